"""The currencies of a conversion: which one the request converts from, which one to.

"Convert 250 euros into Japanese yen" fills ``from_currency`` and ``to_currency``; users say
currencies in words, codes and symbols, and the schema's two parameters differ only by a
word of their name or description ("from", "base", "source" against "to", "target").
:func:`currency_values` binds them, as ISO 4217 codes (pycountry's names and the span
reader's currency words, no list here): the currency an amount is said in is the one
converted from; without an amount, the one said after "from" (or first) is, and the other is
the target. A single currency parameter takes the one currency said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pycountry

from nodes.planning.param_fit import Param
from nodes.planning.request_spans import Span
from stores.language.codes import codes_of
from stores.language.spans_numbers import CURRENCY_WORDS

# Words by which a parameter's name or description says it is the currency converted from.
_SOURCE = frozenset({"from", "base", "source", "src", "original", "current"})
_TARGET = frozenset({"to", "target", "into", "desired", "quote", "dst", "dest"})
_WORDS = re.compile(r"[A-Za-z]+|[$€£¥₹₩]")
_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW"}


def _code_of(words: str) -> str | None:
    """The ISO code a name or code of a currency is ("Swiss francs", "yen", "USD")."""
    if words in _SYMBOLS:
        return _SYMBOLS[words]
    if re.fullmatch(r"[A-Z]{3}", words):
        return words if words in CURRENCY_WORDS.values() or _is_iso_currency(words) else None
    code = CURRENCY_WORDS.get(words.lower())
    if code is not None and code.isascii():
        return code
    codes = codes_of(words, "currency")
    return codes[0] if len(set(codes)) == 1 else None


def _is_iso_currency(code: str) -> bool:
    return pycountry.currencies.get(alpha_3=code) is not None  # type: ignore[no-untyped-call]


def currency_mentions(text: str) -> list[tuple[int, int, str]]:
    """Each currency the text names: (start, end, ISO code), in order, longest names first."""
    words = list(_WORDS.finditer(text))
    found: list[tuple[int, int, str]] = []
    index = 0
    while index < len(words):
        for width in range(min(3, len(words) - index), 0, -1):
            start, end = words[index].start(), words[index + width - 1].end()
            code = _code_of(text[start:end])
            if code is not None:
                found.append((start, end, code))
                index += width
                break
        else:
            index += 1
    return found


def _role(param: Param) -> str | None:
    """'source', 'target', or None: which side of a conversion a currency parameter is."""
    named = set(re.split(r"[_\W]+", param.name.lower()))
    if named & _SOURCE:
        return "source"
    if named & _TARGET:
        return "target"
    description = str(param.schema.get("description") or "").lower()
    if re.search(r"\bfrom\b", description) or set(description.split()) & (_SOURCE - {"to"}):
        return "source"
    if set(re.findall(r"[a-z]+", description)) & _TARGET:
        return "target"
    return None


def _is_currency_param(param: Param) -> bool:
    return (
        param.kind == "string"
        and not param.enum
        and not param.closed
        and ("currency" in param.name_words or "currency" in param.description_words
             # "ISO 4217 code": the standard's number says it is a currency
             or "4217" in str(param.schema.get("description") or ""))
    )


def currency_values(
    text: str, spans: Sequence[Span], params: Sequence[Param], values: dict[str, list[Any]]
) -> list[tuple[int, int]]:
    """Bind the unbound currency parameters; the stretches of text the currencies took."""
    wanted = [p for p in params if p.name not in values and _is_currency_param(p)]
    if not wanted:
        return []
    mentions = currency_mentions(text)
    codes = list(dict.fromkeys(code for _, _, code in mentions))
    if not codes:
        return []
    if len(wanted) == 1 and len(codes) == 1:
        values[wanted[0].name] = [codes[0]]
        return [(start, end) for start, end, _ in mentions]
    roles = {p.name: _role(p) for p in wanted}
    source_params = [p for p in wanted if roles[p.name] == "source"]
    target_params = [p for p in wanted if roles[p.name] == "target"]
    if len(source_params) != 1 or len(target_params) != 1:
        return []
    pairs = _conversions(text, mentions)
    if pairs is not None:
        # "100 USD to EUR and 50 GBP to JPY": one conversion each, in the order said.
        values[source_params[0].name] = [source for source, _, _ in pairs]
        values[target_params[0].name] = [target for _, target, _ in pairs]
        amounts = [p for p in params if p.name not in values and p.kind in {"number", "integer"}]
        if len(amounts) == 1:  # each conversion's own amount, not one for all
            kind = amounts[0].kind
            values[amounts[0].name] = [int(a) if kind == "integer" and a.is_integer() else a
                                       for _, _, a in pairs]
        return [(start, end) for start, end, _ in mentions]
    if len(codes) != 2:
        return []
    source = _amount_currency(text, spans, mentions) or _after_from(text, mentions) or codes[0]
    target = next(code for code in codes if code != source)
    values[source_params[0].name] = [source]
    values[target_params[0].name] = [target]
    return [(start, end) for start, end, _ in mentions]


def _amount_currency(
    text: str, spans: Sequence[Span], mentions: Sequence[tuple[int, int, str]]
) -> str | None:
    """The currency an amount is said in ("250 euros", "$40", "40 Swiss francs")."""
    for span in spans:
        if span.kind == "money" and isinstance(span.unit, str) and re.fullmatch(r"[A-Z]{3}",
                                                                                 span.unit):
            inside = [code for start, end, code in mentions
                      if span.start <= start < span.end + 2 or start <= span.start < end]
            return inside[-1] if inside else span.unit
    for start, _, code in mentions:
        if re.search(r"\d[\d,.]*\s*$", text[max(0, start - 12) : start]):
            return code
    return None


def _after_from(text: str, mentions: Sequence[tuple[int, int, str]]) -> str | None:
    """The currency said right after "from" ("from Canadian dollars to ...")."""
    for start, _, code in mentions:
        if re.search(r"\bfrom\s+(?:the\s+)?(?:[A-Z][a-z]+\s+)?$", text[max(0, start - 30) : start]):
            return code
    return None


def _conversions(
    text: str, mentions: Sequence[tuple[int, int, str]]
) -> list[tuple[str, str, float]] | None:
    """Two or more conversions said one after another: (from, to, amount) each.

    None unless the currencies pair up that way: an amount right before every first one.
    """
    if len(mentions) < 4 or len(mentions) % 2:
        return None
    pairs = []
    for (start, _, source), (_, _, target) in zip(mentions[::2], mentions[1::2], strict=True):
        amount = re.search(r"(\d[\d,]*(?:\.\d+)?)\s*$", text[max(0, start - 16) : start])
        if amount is None:
            return None
        pairs.append((source, target, float(amount.group(1).replace(",", ""))))
    return pairs
