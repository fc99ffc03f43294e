"""Numbers in a request's entities: the scan the entity rules share, and the numeric rules.

Split from `stores.language.entities` (which runs the rules): `_Scan` holds the tokens and
what the rules bound; `_rule_numeric_values` binds numbers led by a cue word ("price 30",
"qty: 3") or followed by a unit ("5 stars", "3 months", "50 in stock"), `_rule_money` binds
money as a price near a product or else an amount. Which words are cues and units, and the
keys they bind, are the domain vocabulary's (``value_cues``, ``value_units``); time units
and "top 5"/"latest 10" are English and stay here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from stores.language.keywords import STOPWORDS, lemmatize
from stores.language.lexicon import Lexicon
from stores.language.spans_numbers import DURATION_UNITS
from stores.language.tokens import _Token
from stores.language.vocabulary import (
    _ID_CONNECTORS,
    _NOT_COUNTED,
    _UNIT_WORDS,
    DomainVocabulary,
    integer_keys,
)


@dataclass
class _Scan:
    text: str
    tokens: list[_Token]
    lexicon: Lexicon
    vocabulary: DomainVocabulary
    named: dict[str, Any] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    objects: dict[int, tuple[str, int]] = field(default_factory=dict)

    def bind(self, key: str, value: Any, start: int = -1, end: int = -1) -> None:
        if key not in self.named and value not in (None, ""):
            self.named[key] = value
            if start >= 0:
                self.spans.append((start, end))

    def word(self, index: int) -> str:
        if 0 <= index < len(self.tokens):
            return self.tokens[index].lower
        return ""


def _is_plural_count_noun(scan: _Scan, index: int) -> bool:
    if index >= len(scan.tokens) or scan.tokens[index].kind != "word":
        return False
    word = scan.tokens[index].lower
    if word in _UNIT_WORDS:
        return True
    if word in STOPWORDS or word in _NOT_COUNTED or not word.endswith("s"):
        return False
    if scan.lexicon.canonical(word, "operation") is not None:
        return False
    return lemmatize(word, scan.lexicon.vocabulary) != word


def _next_value(
    scan: _Scan, index: int, fillers: frozenset[str], kinds: frozenset[str], limit: int = 3
) -> int | None:
    """Index of the first token of ``kinds`` after ``index``, skipping at most ``limit`` fillers."""
    position = index + 1
    skipped = 0
    # A number right after another object word is that object's id ("of product 5").
    object_ends = {stop for start, (_, stop) in scan.objects.items() if start != index}
    while position < len(scan.tokens):
        token = scan.tokens[position]
        if token.kind in kinds and position not in object_ends:
            return position
        if token.lower in fillers and skipped < limit:
            position += 1
            skipped += 1
            continue
        if limit and skipped < limit + 3 and position in scan.objects:
            # "price of product 5 to $20": step over the object and its id.
            position = scan.objects[position][1]
            if position < len(scan.tokens) and scan.tokens[position].kind in {"num", "code"}:
                position += 1
            skipped += 1
            continue
        return None
    return None


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_VALUE_FILLERS = frozenset(
    "of is at to = : as be set with a an the for by was ： 为 是 设 成 改 到 设为 改为 改成".split()
)
_NUMERIC = frozenset({"num", "money", "pct"})


def _numeric_value(token: _Token) -> float:
    if token.kind == "money":
        return float(token.value["value"])
    return float(token.value)


def _bind_number(scan: _Scan, key: str, index: int, as_int: bool) -> None:
    token = scan.tokens[index]
    number = _numeric_value(token)
    token.used = True
    scan.bind(key, int(number) if as_int else number, token.start, token.end)


# Words before a number that name its value in any domain ("top 5", "latest 10"); the
# vocabulary's ``value_cues`` add the domain's ("price 30", "rating 5").
_LIMIT_CUES = frozenset("limit top latest first last recent".split())
# Time units after a number ("3 months", "5 days"); the vocabulary's ``value_units`` add the
# domain's ("5 stars", "50 in stock").
_TIME_UNITS = {"month": "months", "months": "months", "day": "days", "days": "days"}


def _cue_key(scan: _Scan, word: str) -> tuple[str, bool] | None:
    """The key a word before a number names, and whether its value is a whole number."""
    if word in _LIMIT_CUES:
        return "limit", True
    key = scan.vocabulary.value_cues.get(word)
    return None if key is None else (key, key in integer_keys())


def _unit_key(scan: _Scan, index: int) -> tuple[str, bool, int] | None:
    """The key the words after the number at ``index`` name, whole or not, and their length."""
    following = scan.word(index + 1)
    skip = 1
    if following == "-":  # "5-star", "3-month"
        following, skip = scan.word(index + 2), 2
    units = scan.vocabulary.value_units
    pair = f"{following} {scan.word(index + skip + 1)}"
    if pair in units:
        return units[pair], units[pair] in integer_keys(), skip + 1
    key = _TIME_UNITS.get(following) or units.get(following)
    return None if key is None else (key, True, skip)


def _rule_numeric_values(scan: _Scan) -> None:
    """Keyword-led and unit-led numbers: "price 30", "qty: 3", "5 stars", "3 units"."""
    tokens = scan.tokens
    vocabulary = scan.vocabulary
    for index, token in enumerate(tokens):
        cue = _cue_key(scan, token.lower) if token.kind == "word" else None
        if cue is not None:
            key, as_int = cue
            limit = 0 if key == "limit" else 3
            found = _next_value(scan, index, _VALUE_FILLERS, _NUMERIC, limit)
            if found is not None and not tokens[found].used:
                if key in vocabulary.counted_values and _is_plural_count_noun(scan, found + 1):
                    continue
                if key == "limit" and scan.word(found + 1) in DURATION_UNITS:
                    continue  # "in the last 2 hours": a time window, no count of results
                _bind_number(scan, key, found, as_int)
        if token.kind == "word" and token.lower in vocabulary.price_verbs:
            found = _next_value(scan, index, frozenset({"for", "at"}), _NUMERIC, 1)
            if found is not None and not tokens[found].used:
                _bind_number(scan, vocabulary.price_verbs[token.lower], found, False)
    object_ends = {stop for _, stop in scan.objects.values()}
    for index, token in enumerate(tokens):
        if token.kind not in {"num", "pct"} or token.used:
            continue
        after_object = index in object_ends or (
            scan.word(index - 1) in _ID_CONNECTORS and index - 1 in object_ends
        )
        following = scan.word(index + 1)
        unit = _unit_key(scan, index) if token.kind == "num" else None
        if token.kind == "pct":
            scan.bind("percent", float(token.value), token.start, token.end)
            token.used = True
        elif unit is not None:
            _bind_number(scan, unit[0], index, unit[1])
        elif (following == "out" and scan.word(index + 2) == "of") or (
            following == "/" and scan.word(index + 2) == "5"
        ):
            _bind_number(
                scan, vocabulary.value_names["score_out_of"], index, True
            )  # "4 out of 5", "4/5"
        elif (
            following == "most"
            and scan.word(index + 2) in {"recent", "recently"}
            or (following in {"latest", "newest", "recent", "last"} and not after_object)
        ):
            _bind_number(scan, "limit", index, True)  # "the five most recent orders"
        elif _is_plural_count_noun(scan, index + 1) or (
            token.value == 1 and scan.word(index + 1) in _UNIT_WORDS | {"unit", "item"}
        ):
            _bind_number(scan, "quantity", index, True)
        elif (
            "." not in token.text
            and index + 1 in scan.objects
            and token.value < 1000
            and not after_object
        ):
            # "create 1 product", "2 coupons": a small count before an object word.
            _bind_number(scan, "quantity", index, True)


def _rule_money(scan: _Scan) -> None:
    """Money after "for"/"at" near a product is its price; any other money is an amount."""
    tokens = scan.tokens
    for index, token in enumerate(tokens):
        if token.kind != "money" or token.used:
            continue
        if scan.word(index - 1) in {"for", "at"} and _near_product(scan, index):
            _bind_number(scan, scan.vocabulary.value_names["money_for_object"], index, False)
        else:
            _bind_number(scan, "amount", index, False)


def _near_product(scan: _Scan, index: int) -> bool:
    for position in range(index - 1, max(-1, index - 9), -1):
        if position in scan.objects:
            canonical = scan.lexicon.canonical(scan.objects[position][0], "object")
            products = scan.vocabulary.product_objects
            return canonical in products or scan.objects[position][0] in products
    return False
