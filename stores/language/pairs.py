"""key=value pairs, ids and numbers collected from a request."""

from __future__ import annotations

import re
from typing import Any

from stores.language.identifiers import is_identifier_name
from stores.language.keywords import STOPWORDS
from stores.language.tokens import _number_value, _read_number_words, _Token
from stores.language.vocabulary import (
    _NUMBER_WORDS,
    decimal_keys,
    domain_vocabulary,
    free_text_keys,
    integer_keys,
    known_pair_keys,
)

# --- pairs, ids, numbers ----------------------------------------------------------------------

_PAIR = re.compile(
    r"""(?<![\w.@/-])
    (?P<key>[A-Za-z][A-Za-z0-9_]*(?:[ -][A-Za-z][A-Za-z0-9_]*)?)
    \s*(?P<sep>=|:)\s*(?!//)
    (?P<value>"[^"]*"|'[^']*'|“[^”]*”|[^\s,;]+)""",
    re.VERBOSE,
)


def _extract_pairs(text: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for match in _PAIR.finditer(text):
        words = match.group("key").lower().replace("-", " ").split()
        if len(words) == 2 and (words[0] in STOPWORDS or not _looks_like_key(words)):
            words = words[1:]
        key = "_".join(words)
        raw = match.group("value")
        quoted = raw[:1] in {'"', "'", "“"}
        value = raw[1:-1] if quoted else raw.rstrip(".")
        if match.group("sep") == ":" and not (
            quoted
            or any(c.isdigit() for c in value)
            or key in known_pair_keys()
            or "_" in key
            or is_identifier_name(match.group("key"))
        ):
            continue
        if key in free_text_keys() and not quoted:
            value = _rest_of_clause(text, match.start("value"))
        if key and value and key not in pairs:
            pairs[key] = value
    return pairs


def _looks_like_key(words: list[str]) -> bool:
    """Two-word keys are kept only when the second word is a key word ("account number")."""
    return words[1] in _KEY_SECOND_WORDS or words[1] in domain_vocabulary().key_second_words


# Second words of two-word keys in any domain ("account number", "ship date"); the
# vocabulary adds its own ("unit price").
_KEY_SECOND_WORDS = frozenset({"id", "number", "no", "name", "code", "status", "date", "type"})


def _rest_of_clause(text: str, start: int) -> str:
    match = re.match(r"[^,;\n]*", text[start:])
    value = match.group() if match else ""
    value = re.split(r"\s+(?:and\s+)?then\b|\s+and\s+|\s+[A-Za-z_]+\s*[=:]", value)[0]
    return value.strip().rstrip(".").strip()


def _typed_value(key: str, value: str) -> Any:
    cleaned = value.strip()
    whole = integer_keys()
    if key in whole | decimal_keys():
        number = re.search(r"-?\d[\d,]*(?:\.\d+)?", cleaned)
        if number is not None:
            parsed = _number_value(number.group())
            return int(parsed) if key in whole and parsed.is_integer() else parsed
        words = cleaned.lower().split()
        if words and all(w in _NUMBER_WORDS for w in words):
            tokens = [_Token("word", w, 0, 0) for w in words]
            return int(_read_number_words(tokens, 0)[0])
    if key == "status":
        phrase = " ".join(cleaned.lower().replace("_", " ").replace("-", " ").split())
        return domain_vocabulary().statuses.get(phrase, phrase.replace(" ", "_"))
    return cleaned
