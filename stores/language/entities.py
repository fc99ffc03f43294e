"""Entity extraction from a request: ids, numbers, quoted text, pairs, dates, amounts, bindings.

Everything here is a pure function of the text (and the synonym lexicon). The result has the
shape of ``nodes.state.Entities``::

    ids      id-like values as strings, in order: digit runs of 3 or more ("000042" keeps its
             zeros), codes with letters and digits ("ORD-2024-001", "u_42", "SAVE10"), "#17"
             (as "17"), and every value bound to an object word in ``named``.
    numbers  numeric values that are not ids, dates or phone numbers ("3", "three",
             "a dozen", "$25.50" gives 25.5), as floats.
    quoted   the inside of "...", '...', “...”, ‘...’ and 「...」.
    pairs    ``key=value`` and ``key: value`` exactly as written (lowercase key, spaces as
             ``_``, string value).
    dates    ISO dates ("2026-11-22", "2026/11/22", "Nov 22, 2026" all give "2026-11-22",
             with a time if one was written) and the words "today", "tomorrow", "tonight",
             "yesterday" as written.
    amounts  money: ``{"value": 25.5, "currency": "USD"}``; "$", "dollars", "bucks", "usd"
             are USD, "¥", "yuan", "rmb", "cny", "元", "块" are CNY, also EUR, GBP, JPY.
    named    parameter-like bindings the planner matches to tool parameters by name.

Conventions of ``named`` (the planner relies on them):

- Keys are lowercase singular nouns or parameter names, never phrases with spaces.
- An object word followed by an id binds that id under the word's own singular form:
  "account 123456", "account number 123456", "account #123456", "with account 123456" and
  "whose account is 123456" give ``{"account": "123456"}``; "order 17", "order #17",
  "order id 17", "order no. 17" give ``{"order": "17"}``; "customer 42" gives
  ``{"customer": "42"}``. A multi-word lexicon phrase binds under its canonical term
  ("promo code SAVE10" gives ``{"coupon": "SAVE10"}``). The planner matches ``account`` to a
  parameter ``account_number`` and ``order`` to ``order_id`` (key, key + ``_id``,
  key + ``_number``, ...) and may canonicalize a key through the lexicon (customer -> user).
  Bound ids are always strings.
- Values of a known kind have fixed keys and types. The extractor's mechanisms (a cue word
  before a number, a unit after it, a status phrase after "to"/"as", a method after "with")
  are code; which words are cues, units, statuses, methods and tiers, and the keys they bind,
  are the domain vocabulary's (``data/vocabulary.yaml``: ``value_cues``, ``value_units``,
  ``statuses``, ``payment_methods``, ``tiers``, ``value_names`` ...). With the shipped
  vocabulary: ``quantity`` (int: "quantity 3", "3 units",
  "three items", "qty: 3", "5 mugs"), ``price`` (float: "price 30", "priced at $30",
  "a product for $30"), ``amount`` (float: any other money), ``name`` (str: "named 'Blue
  Mug'", "called Blue Mug", "titled ..."), ``rating`` (int: "rating 5", "5 stars", "4/5"),
  ``status`` (str, underscored: "to pending payment" gives ``"pending_payment"``, "mark as
  shipped", "paid orders"), ``reason`` (str: "reason: damaged", "because ..."), ``comment``,
  ``category``, ``city``, ``email``, ``phone``, ``method`` (card, wallet, cash, alipay,
  wechat, paypal), ``tier``, ``months``, ``days``, ``limit`` ("top 5", "latest 10"),
  ``points``, ``stock``, ``percent`` ("20% off"), ``balance``, ``date`` (the first date).
- ``key=value`` / ``key: value`` pairs also land in ``named`` (``qty`` becomes ``quantity``,
  known keys get their type); an explicit pair wins over a value found in running text.
- Only the first value of each key is kept; lists ("orders 1, 2 and 3") keep the first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from stores.language.entity_numbers import (
    _CJK,
    _is_plural_count_noun,
    _rule_money,
    _rule_numeric_values,
    _Scan,
)
from stores.language.identifiers import is_identifier_name
from stores.language.keywords import STOPWORDS, lemmatize
from stores.language.lexicon import Lexicon
from stores.language.pairs import _extract_pairs, _typed_value
from stores.language.tokens import _tokenize
from stores.language.vocabulary import (
    _CLAUSE_END,
    _ID_CONNECTORS,
    _ID_LEADS,
    _ID_WORDS,
    _TEXT_STOP_WORDS,
    DomainVocabulary,
    domain_vocabulary,
    key_alias,
    value_keys,
)

# --- extraction -------------------------------------------------------------------------------


@dataclass
class EntityScan:
    """Entities of a text plus the character spans that hold literal values.

    Attributes:
        entities: The ``Entities``-shaped dict (see the module docstring).
        value_spans: ``(start, end)`` spans of the text that are values (quoted text, ids,
            names, reasons, statuses, amounts): the intent parser masks them before looking
            for operation and object words, so a product named "Order Tracker" adds no order.
    """

    entities: dict[str, Any]
    value_spans: list[tuple[int, int]] = field(default_factory=list)


def scan_entities(text: str, lexicon: Lexicon | None = None) -> EntityScan:
    """Extract entities and report where their literal values sit in ``text``.

    Args:
        text: A request or one clause of it.
        lexicon: Synonym lexicon for object words; None uses ``Lexicon.default()``.

    Returns:
        The entities and the value spans.
    """
    lexicon = lexicon or Lexicon.default()
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    scan = _Scan(text, _tokenize(text), lexicon, domain_vocabulary())
    _find_objects(scan)
    pairs = _extract_pairs(text)
    for key, value in pairs.items():
        key_name = key_alias(key)
        scan.bind(key_name, _typed_value(key_name, value))
    for rule in _RULES:
        rule(scan)
    for token in scan.tokens:
        if token.kind == "quoted":
            scan.spans.append((token.start, token.end))
    entities: dict[str, Any] = {
        "ids": _collect_ids(scan),
        "numbers": _collect_numbers(scan),
        "quoted": [t.value for t in scan.tokens if t.kind == "quoted" and t.value],
        "pairs": pairs,
        "dates": list(dict.fromkeys(str(t.value) for t in scan.tokens if t.kind == "date")),
        "amounts": [dict(t.value) for t in scan.tokens if t.kind == "money"],
        "named": scan.named,
    }
    return EntityScan(entities, sorted(set(scan.spans)))


def extract_entities(text: str, lexicon: Lexicon | None = None) -> dict[str, Any]:
    """Extract the entities of a request (the ``Entities`` shape; see the module docstring).

    Args:
        text: A request or one clause of it.
        lexicon: Synonym lexicon for object words; None uses ``Lexicon.default()``.

    Returns:
        ``{"ids", "numbers", "quoted", "pairs", "dates", "amounts", "named"}``.
    """
    return scan_entities(text, lexicon).entities


def _find_objects(scan: _Scan) -> None:
    """Record object words: token index -> (key, index after the phrase)."""
    words = [t.lower if t.kind == "word" else "\x00" for t in scan.tokens]
    for match in scan.lexicon.find_terms(words):
        if match.kind == "operation" and match.stop - match.start == 1:
            # "refund 1", "review number 3": a verb that is also an object, with an id.
            noun = scan.lexicon.canonical(words[match.start], "object")
            following = scan.tokens[match.stop] if match.stop < len(scan.tokens) else None
            if (
                noun is not None
                and following is not None
                and (following.kind in {"num", "code"} or following.lower in _ID_WORDS | {"#"})
                and match.start > 0
            ):
                scan.objects[match.start] = (noun, match.stop)
            continue
        if match.kind != "object" or match.canonical == "status":
            continue
        if match.stop - match.start == 1:
            key = lemmatize(words[match.start], scan.lexicon.vocabulary)
        else:
            key = match.canonical
        scan.objects[match.start] = (key, match.stop)
    for index, word in enumerate(words):
        if word in scan.vocabulary.id_nouns and index not in scan.objects:
            scan.objects[index] = (word, index + 1)


def _rule_object_ids(scan: _Scan) -> None:
    """Bind "order 17", "account number: 123456", "order with id 17", "coupon 'WELCOME'"."""
    tokens = scan.tokens
    for start, (key, stop) in sorted(scan.objects.items()):
        position = stop
        saw_id_word = False
        if scan.word(position) in _ID_LEADS:
            lookahead = position + 1
            while scan.word(lookahead) in {"the", "an", "a", "its", "their"} | scan.objects.keys():
                lookahead += 1
            if scan.word(lookahead) not in _ID_WORDS and lookahead not in scan.objects:
                continue
            position = lookahead
        steps = 0
        while position < len(tokens) and steps < 4:
            token = tokens[position]
            if token.kind == "word" and position in scan.objects and position != start:
                # "whose account is 123456": the inner object word takes the id itself.
                break
            if token.lower in _ID_CONNECTORS and token.kind in {"word", "punct"}:
                saw_id_word = saw_id_word or token.lower in _ID_WORDS
                position += 1
                steps += 1
                continue
            break
        if position >= len(tokens) or position in scan.objects or tokens[position].used:
            continue
        token = tokens[position]
        value: str | None = None
        if token.kind == "code":
            value = str(token.value)
        elif token.kind == "num" and re.fullmatch(r"\d+", token.text):
            if not _is_plural_count_noun(scan, position + 1):
                value = token.text
        elif (
            token.kind == "num"
            and token.text[:1].isalpha()
            and isinstance(token.value, float)
            and token.value.is_integer()
            and token.value > 0
            and not _is_plural_count_noun(scan, position + 1)
            and position + 1 not in scan.objects
        ):
            # "order three", "product number five": a number written out is an id too.
            value = str(int(token.value))
        elif (
            token.kind == "quoted"
            and token.value
            and " " not in token.value
            and not _CJK.search(str(token.value))  # 骑手「张三」: a Chinese name, not an id
        ):
            value = str(token.value)
        elif (
            token.kind == "word"
            and token.text.isupper()
            and len(token.text) >= 3
            and (
                saw_id_word or scan.lexicon.canonical(key, "object") in scan.vocabulary.code_objects
            )
        ):
            value = token.text
        if value is not None:
            token.used = True
            scan.bind(key, value, token.start, token.end)
            if key in scan.named and scan.named[key] == value:
                scan.ids.append(value)


def _text_value(scan: _Scan, index: int, max_words: int = 8) -> tuple[str, int, int] | None:
    """Free text starting at token ``index``: a quoted string or words up to a stop."""
    if index >= len(scan.tokens):
        return None
    first = scan.tokens[index]
    if first.kind == "quoted":
        first.used = True
        return str(first.value), first.start, first.end
    stop = index
    while stop < len(scan.tokens) and stop - index < max_words:
        token = scan.tokens[stop]
        if token.text in _CLAUSE_END or token.kind in {"money", "date", "email", "url"}:
            break
        if (
            token.kind == "word"
            and (token.lower in _TEXT_STOP_WORDS or token.lower in scan.vocabulary.name_stop_words)
            and stop > index
        ):
            break
        if token.kind == "num" and stop > index and not _is_capitalized_run(scan, index, stop):
            break
        stop += 1
    if stop == index:
        return None
    start, end = scan.tokens[index].start, scan.tokens[stop - 1].end
    return scan.text[start:end].strip(" '\""), start, end


def _is_capitalized_run(scan: _Scan, start: int, stop: int) -> bool:
    return all(t.text[:1].isupper() for t in scan.tokens[start:stop] if t.kind == "word")


_NAME_TRIGGERS = frozenset({"named", "called", "titled", "entitled"})
_NAME_NOUNS = frozenset({"name", "title"})
_NAME_FILLERS = (
    frozenset({"is", "of", ":", "=", "to", "as", "should", "be", "：", "是"})
    | _NAME_NOUNS
    | _NAME_TRIGGERS
)


def _rule_names(scan: _Scan) -> None:
    """Bind "named 'Blue Mug'", "called Blue Mug", "with the name X", "product "Blue Mug""."""
    tokens = scan.tokens
    for index, token in enumerate(tokens):
        start: int | None = None
        if token.lower in _NAME_TRIGGERS:
            start = index + 1
        elif (
            token.lower in _NAME_NOUNS
            and scan.word(index - 1) not in scan.vocabulary.named_field_objects
        ):
            start = index + 1
            while scan.word(start) in _NAME_FILLERS:  # "the name is X", "名字叫 X"
                start += 1
        elif (
            token.kind == "quoted"
            and index - 1 in {p for p, (_, stop) in scan.objects.items() if stop == index}
            # 评论“很好” (a comment "great"): a value word's quoted text is that value.
            and scan.objects[index - 1][0] not in value_keys()
            and (" " in str(token.value) or not any(c.isdigit() for c in str(token.value)))
            and not token.used
        ):
            start = index
        if start is None or start >= len(tokens):
            continue
        found = _text_value(scan, start)
        if found is not None:
            scan.bind("name", *found)
            return


def _rule_status(scan: _Scan) -> None:
    """Status words after "to", "as", "status" or before an object: "to pending payment"."""
    words = [t.lower if t.kind == "word" else t.text for t in scan.tokens]
    index = 0
    while index < len(words):
        phrase = _status_at(words, index, scan.vocabulary)
        if phrase is None:
            index += 1
            continue
        value, stop = phrase
        before = words[index - 1] if index > 0 else ""
        before2 = words[index - 2] if index > 1 else ""
        after = words[stop] if stop < len(words) else ""
        led = before in {"to", "as", "into", "status", "state", "=", ":", "stage"}
        led = led or before in {"为", "是", "成", "："}  # Chinese: "状态为 shipped", "改成 paid"
        led = led or (before in {"is", "be", "being"} and before2 in {"status", "state"})
        # "orders that were cancelled", "riders who are available".
        led = led or (
            before in {"is", "are", "was", "were"} and before2 in {"that", "which", "who"}
        )
        marked = any(
            w in {"mark", "marked", "marking", "marks"} for w in words[max(0, index - 5) : index]
        )
        before_object = stop in scan.objects or after in {"status", "state", "stage"}
        if led or marked or before_object:
            scan.bind("status", value, scan.tokens[index].start, scan.tokens[stop - 1].end)
            return
        index = stop


def _status_at(
    words: list[str], index: int, vocabulary: DomainVocabulary
) -> tuple[str, int] | None:
    for phrase in vocabulary.status_phrases:
        if tuple(words[index : index + len(phrase)]) == phrase:
            return vocabulary.statuses[" ".join(phrase)], index + len(phrase)
    return None


def _rule_reason(scan: _Scan) -> None:
    """Bind "reason: damaged", "because it arrived damaged", "due to a wrong size"."""
    tokens = scan.tokens
    for index, token in enumerate(tokens):
        start: int | None = None
        if token.lower == "reason":
            start = index + 1
            while scan.word(start) in {":", "=", "is", "being", "of", "for", "that", "as", "："}:
                start += 1
        elif token.lower == "because":
            start = index + 1 + (scan.word(index + 1) == "of")
        elif token.lower == "due" and scan.word(index + 1) == "to":
            start = index + 2
        if start is None or start >= len(tokens):
            continue
        found = _reason_text(scan, start)
        if found is not None:
            scan.bind("reason", *found)
            return


def _reason_text(scan: _Scan, index: int) -> tuple[str, int, int] | None:
    first = scan.tokens[index]
    if first.kind == "quoted":
        return str(first.value), first.start, first.end
    stop = index
    while stop < len(scan.tokens):
        token = scan.tokens[stop]
        if token.text in _CLAUSE_END:
            break
        if token.lower in {"then", "afterwards"} or (
            token.lower == "and" and scan.word(stop + 1) in {"then", "also"}
        ):
            break
        stop += 1
    if stop == index:
        return None
    start, end = scan.tokens[index].start, scan.tokens[stop - 1].end
    return scan.text[start:end].strip(), start, end


def _rule_word_values(scan: _Scan) -> None:
    """Comment, category, city, payment method, tier, email, phone, first date."""
    tokens = scan.tokens
    vocabulary = scan.vocabulary
    methods, labels = vocabulary.payment_methods, vocabulary.address_labels
    tiers, tier_nouns = vocabulary.tiers, vocabulary.tier_nouns
    after_paying, paying = vocabulary.methods_after_paying, vocabulary.payment_verbs
    for index, token in enumerate(tokens):
        low = token.lower
        if token.kind == "email":
            scan.bind("email", token.text, token.start, token.end)
        elif token.kind == "phone":
            scan.bind("phone", token.text, token.start, token.end)
        elif token.kind == "date":
            scan.bind("date", str(token.value))
        elif low in vocabulary.comment_cues and (
            low != vocabulary.value_names["comment"]
            or scan.word(index + 1) in {":", "=", "is", "of", "saying", "："}
            or (index + 1 < len(tokens) and tokens[index + 1].kind == "quoted")
        ):
            start = index + 1
            while scan.word(start) in {":", "=", "is", "of", "saying", "："}:
                start += 1
            found = _reason_text(scan, start) if start < len(tokens) else None
            if found is not None:
                scan.bind(
                    vocabulary.value_names["comment"], found[0].strip("'\""), found[1], found[2]
                )
        elif low in vocabulary.named_values:
            start = index + 1
            while scan.word(start) in {":", "=", "is", "of", "named", "called"}:
                start += 1
            if start < len(tokens) and (
                tokens[start].kind == "quoted"
                or tokens[start].text[:1].isupper()
                or scan.word(start - 1) in {":", "="}
            ):
                found = _text_value(scan, start, max_words=3)
                if found is not None:
                    scan.bind(low, *found)
        elif low in {"with", "via", "by", "using", "through"}:
            first = index + 1
            if scan.word(first) in {"the", "a", "my", "his", "her", "their", "its", "your"}:
                first += 1
            candidate = scan.word(first)
            pair = f"{candidate} {scan.word(first + 1)}"
            if pair in methods:
                last = first + 1
            elif candidate in methods and scan.word(first + 1) not in after_paying:
                last = first
                if candidate in after_paying and scan.word(index - 1) not in paying:
                    continue
            else:
                continue
            method = methods[" ".join(scan.word(i) for i in range(first, last + 1))]
            scan.bind(
                vocabulary.value_names["instrument"], method, tokens[first].start, tokens[last].end
            )
        elif low == "in" and index > 0 and "city" not in scan.named:
            # "shops in Springfield", "a rider in Shelbyville": a capitalized place name.
            start = index + 1
            if (
                start < len(tokens)
                and tokens[start].kind == "word"
                and tokens[start].text[:1].isupper()
                and not tokens[start].used
                and tokens[start].lower not in STOPWORDS
                and scan.lexicon.canonical(tokens[start].lower, "object") is None
            ):
                found = _text_value(scan, start, max_words=2)
                if found is not None and not _is_capitalized_run(scan, start, start + 2):
                    # "in Denver over the next 3 days": the place is the capitalized word
                    found = (tokens[start].text, tokens[start].start, tokens[start].end)
                if found is not None:
                    scan.bind("city", *found)
        elif low in labels and scan.word(index + 1) in vocabulary.label_nouns:
            scan.bind(vocabulary.value_names["place_tag"], low, token.start, token.end)
        elif (
            token.kind == "quoted"
            and token.value
            and (
                scan.word(index - 1) in {"matching", "containing", "like", "contains", "match"}
                or (
                    scan.word(index - 1) == "for"
                    and any(w.lower in {"search", "find", "look"} for w in tokens[:index])
                )
            )
        ):
            scan.bind("query", str(token.value), token.start, token.end)
        elif low in tiers and (
            scan.word(index + 1) in tier_nouns or scan.word(index - 1) in tier_nouns
        ):
            scan.bind(vocabulary.value_names["grade"], low, token.start, token.end)
        elif low in tier_nouns and scan.word(index + 1) in tiers:
            scan.bind(vocabulary.value_names["grade"], scan.word(index + 1))


_STREET = re.compile(
    r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Court|Ct|"
    r"Way|Drive|Dr|Boulevard|Blvd|Place|Pl|Square|Sq)\b\.?"
)


def _rule_street(scan: _Scan) -> None:
    """A street address line: "at 12 Hill Street" gives ``street``."""
    match = _STREET.search(scan.text)
    if match is None:
        return
    for token in scan.tokens:
        if token.start >= match.start() and token.end <= match.end():
            token.used = True
    scan.bind("street", match.group().rstrip("."), match.start(), match.end())


# Order matters: keyword-led numbers ("rating 5", "stock 50": both words are also objects)
# claim their tokens before object ids do.
_RULES: tuple[Callable[[_Scan], None], ...] = (
    _rule_street,
    _rule_numeric_values,
    _rule_money,
    _rule_object_ids,
    _rule_status,
    _rule_names,
    _rule_reason,
    _rule_word_values,
)


def _collect_ids(scan: _Scan) -> list[str]:
    ids: list[str] = []
    for token in scan.tokens:
        if token.kind == "code":
            ids.append(str(token.value))
        elif (
            token.kind == "num"
            and not token.used
            and re.fullmatch(r"\d{3,}", token.text)
            and not _is_plural_count_noun(scan, scan.tokens.index(token) + 1)
        ):
            ids.append(token.text)
    ids.extend(scan.ids)
    for key, value in scan.named.items():
        if isinstance(value, str) and is_identifier_name(key) and value:
            ids.append(value)
    return list(dict.fromkeys(ids))


def _collect_numbers(scan: _Scan) -> list[float]:
    numbers: list[float] = []
    id_values = set(_collect_ids(scan))
    for token in scan.tokens:
        if token.kind == "num" and token.text not in id_values:
            numbers.append(float(token.value))
        elif token.kind == "money":
            numbers.append(float(token.value["value"]))
        elif token.kind == "pct":
            numbers.append(float(token.value))
    return numbers
