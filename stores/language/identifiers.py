"""Names of things: words of a name, singular nouns, and which names denote identifiers.

One home for three rules that binding, planning, intake, the dependency graph and entity
extraction all need: split ``getUserByID`` into words, take a noun's singular (``addresses`` →
``address``, never ``addre``), and tell whether a parameter or field name is an identifier
(``order_id``, ``accountNumber``, ``sku_code``, ``id``).
"""

from __future__ import annotations

import re

# Last words of a name that make it an identifier: "the id of a user is a user_id".
IDENTIFIER_WORDS = frozenset(
    {"id", "ids", "uuid", "number", "no", "code", "key", "ref", "reference"}
)

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")
# Endings whose final "s" is not a plural: address, status, analysis, bonus.
_NOT_PLURAL = ("ss", "us", "is")


def split_words(name: str) -> list[str]:
    """Split a name into lowercase words: ``getUserByID`` → ``['get', 'user', 'by', 'id']``."""
    spaced = _CAMEL.sub(r"\1 \2", name)
    spaced = _ACRONYM.sub(r"\1 \2", spaced)
    return [word for word in _NOT_WORD.split(spaced.lower()) if word]


def singular(word: str) -> str:
    """Return the singular of an English noun by suffix rules (``orders`` → ``order``).

    ``-ies`` → ``-y`` (``deliveries``), ``-sses``/``-shes``/``-ches``/``-xes`` lose ``-es``
    (``addresses``, ``boxes``, ``statuses``), a plain ``-s`` is dropped unless the word ends in a
    non-plural ``-ss``/``-us``/``-is`` (``address``, ``status``). Words of three letters
    or fewer are kept. The case of the input is kept.
    """
    lowered = word.lower()
    if len(lowered) > 4 and lowered.endswith("ies"):
        return word[:-3] + ("Y" if word[-1].isupper() else "y")
    if len(lowered) > 4 and lowered.endswith(("sses", "shes", "ches", "xes", "uses")):
        return word[:-2]
    if len(lowered) > 3 and lowered.endswith("s") and not lowered.endswith(_NOT_PLURAL):
        return word[:-1]
    return word


def is_identifier_name(name: str) -> bool:
    """Return True when a parameter or field name denotes an identifier.

    Its last word is one of :data:`IDENTIFIER_WORDS`: ``id``, ``order_id``, ``accountNumber``,
    ``order_no``, ``sku_code``, ``api_key``, ``ref``. ``count`` or ``name`` are not.
    """
    words = split_words(name)
    return bool(words) and words[-1] in IDENTIFIER_WORDS


def identifier_base(name: str) -> str:
    """Return what an identifier name identifies: ``order_id`` → ``order``, ``id`` → ``""``.

    Names that are not identifiers are returned lowercased with words joined by ``_``.
    """
    words = split_words(name)
    if words and words[-1] in IDENTIFIER_WORDS:
        words = words[:-1]
    return "_".join(words)
