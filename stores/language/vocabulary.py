"""Vocabularies: the English words around values, and the domain vocabulary's loader.

Where the line runs: words any request in English uses whatever its domain are code here
(number words, months, currencies and their symbols, counting nouns like "units" and "items",
the words between an object and its id, articles and prepositions, generic keys such as
``name``, ``reason``, ``date``, ``limit``). The words of one domain are data:
``data/vocabulary.yaml`` (statuses, payment methods, tiers, which word before or after a
number names a price, a rating or a stock, which keys hold money, what creating an object
consumes, the canned answers ...), read once by `domain_vocabulary`. A user replaces sections
of it with a file of their own named by ``ZSPACE_VOCABULARY``, as ``ZSPACE_LEXICON`` extends
the lexicon. ``tests/unit_tests/test_no_domain_words.py`` fails when a domain word comes back
into the code.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from stores.language import datafile

# --- English vocabularies ---------------------------------------------------------------------

_SMALL_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORDS = set(_SMALL_NUMBERS) | set(_TENS) | set(_SCALES) | {"dozen"}

_CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "bucks": "USD", "buck": "USD",
    "yuan": "CNY", "rmb": "CNY", "cny": "CNY", "元": "CNY", "块": "CNY", "kuai": "CNY",
    "euro": "EUR", "euros": "EUR", "eur": "EUR", "pound": "GBP", "pounds": "GBP", "gbp": "GBP",
    "yen": "JPY", "jpy": "JPY",
}  # fmt: skip
_CURRENCY_PREFIXES = {
    "$": "USD", "us$": "USD", "usd": "USD", "¥": "CNY", "￥": "CNY", "rmb": "CNY", "cny": "CNY",
    "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP",
}  # fmt: skip

_MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}  # fmt: skip
_RELATIVE_DATES = {"today", "tomorrow", "tonight", "yesterday"}

# Words after a number that make it a count of things ("3 units"), not an id.
_UNIT_WORDS = frozenset(
    "unit units item items piece pieces pc pcs copy copies box boxes pack packs bottle bottles"
    " cup cups bag bags set sets x times pair pairs".split()
)
# Plural nouns after a number that do not count things ("17 details").
_NOT_COUNTED = frozenset(
    "details records logs stats statistics info history events status statuses".split()
)
# Words between an object word and its id: "order id 17", "account number: 123456".
_ID_CONNECTORS = frozenset("id ids number no num code ref reference is = : # . of".split())
# "the order with id 17", "the user whose account number is ..." need one of _ID_WORDS after.
_ID_LEADS = frozenset("with whose having".split())
_ID_WORDS = frozenset("id number no num code ref reference".split())
# Where a free-text value (a name, a reason) stops (the vocabulary adds its value words).
_TEXT_STOP_WORDS = frozenset(
    "and then with for at in under from to using which that who whose because so but after"
    " before once when".split()
)
_CLAUSE_END = frozenset(",.;!?\n，。；！？")

# Pair keys written in other words (the vocabulary adds its own: "qty", "cost", ...).
_KEY_ALIASES = {"title": "name", "named": "name"}
# Keys whose values are whole numbers or decimals in any domain (the vocabulary adds its own).
_INT_KEYS = frozenset("months days limit".split())
_FLOAT_KEYS = frozenset({"percent"})
_FREE_TEXT_KEYS = frozenset("reason note name title description text message".split())
_LANGUAGE_PAIR_KEYS = frozenset("email phone id currency type".split())
_LANGUAGE_VALUE_KEYS = frozenset("date query limit street".split())


def key_alias(key: str) -> str:
    """The key a pair key stands for ("qty" → "quantity", "title" → "name")."""
    return _KEY_ALIASES.get(key) or domain_vocabulary().key_aliases.get(key, key)


def integer_keys() -> frozenset[str]:
    """Keys whose values are whole numbers: language ones and the vocabulary's."""
    return _INT_KEYS | domain_vocabulary().integer_values


def decimal_keys() -> frozenset[str]:
    """Keys whose values are decimals (money, percentages): language ones and the vocabulary's."""
    return _FLOAT_KEYS | domain_vocabulary().decimal_values


def free_text_keys() -> frozenset[str]:
    """Keys whose unquoted value runs to the end of the clause ("reason: arrived damaged")."""
    return _FREE_TEXT_KEYS | domain_vocabulary().text_values


def known_pair_keys() -> frozenset[str]:
    """Keys a ``key=value`` or ``key: value`` pair may have without looking like code."""
    return (
        free_text_keys()
        | integer_keys()
        | decimal_keys()
        | _LANGUAGE_PAIR_KEYS
        | domain_vocabulary().value_keys
    )


def value_keys() -> frozenset[str]:
    """Keys of ``named`` that hold values of a fixed kind, never the id of an object."""
    return known_pair_keys() | _LANGUAGE_VALUE_KEYS


# --- the domain vocabulary (a data file) ------------------------------------------------------

DEFAULT_VOCABULARY_RESOURCE = "data/vocabulary.yaml"
VOCABULARY_ENV = "ZSPACE_VOCABULARY"
"""Environment variable naming a YAML file whose sections replace the shipped ones."""


class VocabularyError(datafile.DataFileError):
    """A vocabulary file is malformed; the message names the file, the line, the key and the fix.

    Raised for invalid YAML, an unknown or repeated section, a section of the wrong shape, a
    word that is not a string, or a missing section when there is no base to fill it.
    """


@dataclass(frozen=True)
class DomainVocabulary:
    """The words of one domain that the entity extractor and the rule parser read.

    Each field is a section of ``data/vocabulary.yaml``, which says what it is for. Words are
    lowercase; objects and operations are the lexicon's canonical terms.
    """

    statuses: Mapping[str, str]
    payment_methods: Mapping[str, str]
    tiers: frozenset[str]
    tier_nouns: frozenset[str]
    address_labels: frozenset[str]
    id_nouns: frozenset[str]
    code_objects: frozenset[str]
    product_objects: frozenset[str]
    value_cues: Mapping[str, str]
    value_units: Mapping[str, str]
    counted_values: frozenset[str]
    price_verbs: Mapping[str, str]
    value_names: Mapping[str, str]
    integer_values: frozenset[str]
    decimal_values: frozenset[str]
    key_aliases: Mapping[str, str]
    key_second_words: frozenset[str]
    text_values: frozenset[str]
    value_keys: frozenset[str]
    named_values: frozenset[str]
    comment_cues: frozenset[str]
    name_stop_words: frozenset[str]
    named_field_objects: frozenset[str]
    payment_verbs: frozenset[str]
    methods_after_paying: frozenset[str]
    label_nouns: frozenset[str]
    noun_verbs: Mapping[str, str]
    orderable: frozenset[str]
    nominalizations: Mapping[str, str]
    consumes: Mapping[str, frozenset[str]]
    categories: Mapping[str, str]
    operation_categories: Mapping[str, str]
    instance_operations: frozenset[str]
    operation_rewrites: Mapping[str, str]
    status_operation: str
    no_instance_objects: frozenset[str]
    person_objects: frozenset[str]
    giving_operations: frozenset[str]
    issuing_operation: str
    given_objects: frozenset[str]
    containers: frozenset[str]
    attribute_params: frozenset[str]
    param_aliases: Mapping[str, frozenset[str]]
    numeric_slots: frozenset[str]
    own_identifier_spaces: frozenset[str]
    greeting_answer: str
    capability_answer: str

    @functools.cached_property
    def status_phrases(self) -> tuple[tuple[str, ...], ...]:
        """The status phrases as word tuples, longest first (the longest match wins)."""
        return tuple(sorted((tuple(p.split()) for p in self.statuses), key=len, reverse=True))

    @classmethod
    def from_yaml_text(
        cls, text: str, source: str = "<vocabulary>", base: DomainVocabulary | None = None
    ) -> DomainVocabulary:
        """Parse vocabulary YAML.

        Args:
            text: The YAML document: a mapping of section names to their words.
            source: Name used in error messages (usually the file path).
            base: Vocabulary whose sections fill those the text leaves out; None requires
                every section.

        Returns:
            The vocabulary.

        Raises:
            VocabularyError: On invalid YAML, an unknown or repeated section, a section of
                the wrong shape, a word that is not a string, or (without ``base``) a
                missing section.
        """
        root = datafile.compose_yaml(
            text, source, VocabularyError, list_example="section: [word, another word]"
        )
        sections = _parse_sections(root, source)
        if base is None:
            missing = [name for name in _SECTION_KINDS if name not in sections]
            if missing:
                raise VocabularyError(
                    source,
                    datafile.line_of(root) if root is not None else 1,
                    f"section(s) {', '.join(missing)} missing",
                    "add them, or load the file over the shipped vocabulary (base=...)",
                )
        else:
            sections = {name: getattr(base, name) for name in _SECTION_KINDS} | sections
        return cls(**sections)

    @classmethod
    def load(cls, path: str | Path, base: DomainVocabulary | None = None) -> DomainVocabulary:
        """Load a vocabulary file, its sections replacing those of ``base``.

        Args:
            path: YAML file with some or (without ``base``) all sections.
            base: Vocabulary to lay the file over (typically ``DomainVocabulary.default()``).

        Returns:
            The vocabulary.

        Raises:
            VocabularyError: If the file is missing, unreadable or malformed, or if it lacks
                a section and there is no ``base``.
        """
        file_path = Path(path)
        text = datafile.read_data_file(
            file_path,
            VocabularyError,
            what="the vocabulary",
            fix=f"check the path (or {VOCABULARY_ENV}), or leave it unset for the shipped one",
        )
        return cls.from_yaml_text(text, str(file_path), base)

    @staticmethod
    def default() -> DomainVocabulary:
        """Return the shipped vocabulary (``stores/language/data/vocabulary.yaml``), read once."""
        return _default_vocabulary()


def domain_vocabulary() -> DomainVocabulary:
    """Return the vocabulary in use: the shipped one, with ``$ZSPACE_VOCABULARY`` laid over it.

    Each file is read once per process.

    Raises:
        VocabularyError: If the file ``ZSPACE_VOCABULARY`` names is missing or malformed.
    """
    return _vocabulary_at(os.environ.get(VOCABULARY_ENV) or "")


@functools.cache
def _vocabulary_at(path: str) -> DomainVocabulary:
    default = _default_vocabulary()
    return DomainVocabulary.load(path, base=default) if path else default


@functools.cache
def _default_vocabulary() -> DomainVocabulary:
    resource = resources.files("stores.language").joinpath(DEFAULT_VOCABULARY_RESOURCE)
    return DomainVocabulary.from_yaml_text(resource.read_text(encoding="utf-8"), str(resource))


_WORDS = "a list of words"
_WORD_MAP = "a mapping of words to words"
_WORD_LISTS = "a mapping of words to lists of words"
_TEXT = "a text"
_KIND_OF_TYPE = {
    "frozenset[str]": _WORDS,
    "Mapping[str, str]": _WORD_MAP,
    "Mapping[str, frozenset[str]]": _WORD_LISTS,
    "str": _TEXT,
}
# The sections are the fields of DomainVocabulary, their shape is the field's type.
_SECTION_KINDS = {f.name: _KIND_OF_TYPE[str(f.type)] for f in dataclasses.fields(DomainVocabulary)}
_EXAMPLES = {
    _WORDS: "'{name}: [word, another word]'",
    _WORD_MAP: "'{name}:' then indented 'word: value' lines",
    _WORD_LISTS: "'{name}:' then indented 'word: [word, another]' lines",
    _TEXT: "'{name}: some text' (or '{name}: >-' and indented lines)",
}


def _string(node: yaml.Node, source: str, what: str, *, word: bool = True) -> str:
    clean = datafile.clean_phrase if word else str.strip
    return datafile.scalar_string(node, source, what, VocabularyError, clean=clean)


def _parse_sections(root: yaml.Node | None, source: str) -> dict[str, Any]:
    names = ", ".join(_SECTION_KINDS)
    sections = datafile.top_level_sections(
        root,
        source,
        VocabularyError,
        read_name=lambda node: _string(node, source, "a section name"),
        known=_SECTION_KINDS,
        top_level_problem="the top level must be a mapping of section names",
        top_level_fix=f"start lines with section names: {names}",
        unknown_fix=f"the sections are {names}",
        repeated_fix="keep one of them",
    )
    return {name: _section(body, _SECTION_KINDS[name], name, source) for name, body in sections}


def _section(body: yaml.Node, kind: str, name: str, source: str) -> Any:
    shape_error = VocabularyError(
        source,
        datafile.line_of(body),
        f"section '{name}' must be {kind}",
        f"write {_EXAMPLES[kind].format(name=name)}",
    )
    if kind != _TEXT and datafile.is_null(body):
        return frozenset() if kind == _WORDS else MappingProxyType({})  # "tiers:" with no words
    if kind == _TEXT:
        if not isinstance(body, yaml.ScalarNode):
            raise shape_error
        return _string(body, source, f"section '{name}'", word=False)
    if kind == _WORDS:
        if not isinstance(body, yaml.SequenceNode):
            raise shape_error
        return frozenset(_string(item, source, f"a word of '{name}'") for item in body.value)
    if not isinstance(body, yaml.MappingNode):
        raise shape_error
    mapping: dict[str, Any] = {}
    for key_node, value_node in body.value:
        key = _string(key_node, source, f"a key of '{name}'")
        what = f"the value of '{name}: {key}'"
        if kind == _WORD_MAP:
            mapping[key] = _string(value_node, source, what, word=False)
        elif isinstance(value_node, yaml.SequenceNode):
            mapping[key] = frozenset(_string(item, source, what) for item in value_node.value)
        else:
            raise VocabularyError(
                source,
                datafile.line_of(value_node),
                f"{what} must be a list",
                f"write {_EXAMPLES[kind].format(name=name)}",
            )
    return MappingProxyType(mapping)
