"""Tokens of a request for entity extraction: numbers, number words, dates, compounds."""


from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from stores.language.cues import cue_words
from stores.language.keywords import STOPWORDS
from stores.language.spans_cjk import segment as cjk_words
from stores.language.vocabulary import (
    _CURRENCY_PREFIXES,
    _CURRENCY_WORDS,
    _MONTHS,
    _NUMBER_WORDS,
    _RELATIVE_DATES,
    _SCALES,
    _SMALL_NUMBERS,
    _TENS,
)

# --- tokens -----------------------------------------------------------------------------------


@dataclass
class _Token:
    kind: str  # quoted email url date phone money code num word punct pct
    text: str
    start: int
    end: int
    value: Any = None
    used: bool = False
    english: str | None = None  # a Chinese cue word's English word (data/cues.yaml)

    @property
    def lower(self) -> str:
        # The rules read words in lower case; a Chinese cue word reads as its English word,
        # so "价格 30" is "price 30" and "订单 17" is "order 17" to them.
        return self.english or self.text.lower()


_MASTER = re.compile(
    r"""
    (?P<quoted>"[^"\n]+"|“[^”\n]+”|「[^」\n]+」|‘[^’\n]+’|(?<![\w'’])'[^'\n]+'(?![\w]))
  | (?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)
  | (?P<url>https?://\S+)
  | (?P<date>\d{4}-\d{1,2}-\d{1,2}(?:[T\s]\d{1,2}:\d{2}(?::\d{2})?)?(?!\d)
      |\d{4}/\d{1,2}/\d{1,2}(?!\d)|\d{1,2}/\d{1,2}/\d{4}(?!\d))
  | (?P<phone>\+\d[\d\s-]{6,}\d|(?<!\d)\d{3}-\d{3,4}-\d{4}(?!\d)|(?<!\d)1[3-9]\d{9}(?!\d))
  | (?P<money>(?:\b(?:US\$|USD|RMB|CNY|EUR|GBP)|[$¥￥€£])\s?\d[\d,]*(?:\.\d+)?)
  | (?P<code>\#\d+|[A-Za-z][A-Za-z0-9]*[-_][\w-]*\d[\w-]*|[A-Za-z]+\d[A-Za-z0-9_-]*
      |\d+[A-Za-z]+\d[\w-]*)
  | (?P<num>\d[\d,]*(?:\.\d+)?)
  | (?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)
  | (?P<punct>[^\s\w])
    """,
    re.VERBOSE,
)


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def _number_value(text: str) -> float:
    return float(text.replace(",", ""))


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    for match in _MASTER.finditer(text):
        kind = match.lastgroup or "punct"
        raw = match.group()
        if kind == "word" and _CJK.search(raw):
            # Chinese has no spaces: one word token per jieba word ("查询订单" → 查询, 订单).
            offset = match.start()
            cues = cue_words()
            for part in cjk_words(raw):
                english = cues.get(part)
                token = _Token("word", part, offset, offset + len(part))
                token.english = english[0] if english else None
                tokens.append(token)
                offset += len(part)
            continue
        token = _Token(kind, raw, match.start(), match.end())
        if kind == "quoted":
            token.value = raw[1:-1].strip()
        elif kind == "num":
            if "," in raw and not re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw):
                # "1,2" is a list, not a number: keep the first part only.
                head = raw.split(",")[0]
                token = _Token("num", head, match.start(), match.start() + len(head))
            token.value = _number_value(token.text)
        elif kind == "money":
            number = re.search(r"\d[\d,]*(?:\.\d+)?", raw)
            assert number is not None
            prefix = raw[: number.start()].strip().lower()
            token.value = {
                "value": _number_value(number.group()),
                "currency": _CURRENCY_PREFIXES.get(prefix, "USD"),
            }
        elif kind == "date":
            token.value = _iso_date(raw)
        elif kind == "code":
            token.value = raw[1:] if raw.startswith("#") else raw
        tokens.append(token)
    return _merge_compounds(_merge_number_words(tokens))


def _iso_date(raw: str) -> str:
    if "/" in raw:
        parts = raw.split("/")
        if len(parts[0]) == 4:
            year, month, day = parts
        else:
            month, day, year = parts
        return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
    date, _, time = raw.replace("T", " ").partition(" ")
    year, month, day = date.split("-")
    iso = f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
    return f"{iso}T{time.strip()}" if time.strip() else iso


def _merge_number_words(tokens: list[_Token]) -> list[_Token]:
    """Turn "twenty five", "one hundred and five", "a dozen", "a couple of" into numbers."""
    out: list[_Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        low = token.lower if token.kind == "word" else ""
        following = tokens[index + 1].lower if index + 1 < len(tokens) else ""
        if low in {"a", "an"} and following in {"dozen", "hundred", "thousand", "couple", "pair"}:
            if following in {"couple", "pair"}:
                stop = index + 2
                if stop < len(tokens) and tokens[stop].lower == "of":
                    stop += 1
                value = 2.0
            else:
                value, stop = _read_number_words(tokens, index + 1)
                value = value if following != "dozen" else value
            out.append(_word_number(tokens, index, stop, value))
            index = stop
            continue
        if low in _NUMBER_WORDS and low != "dozen" or (low == "dozen"):
            if low == "one" and not _counts_something(tokens, index):
                out.append(token)
                index += 1
                continue
            value, stop = _read_number_words(tokens, index)
            out.append(_word_number(tokens, index, stop, value))
            index = stop
            continue
        out.append(token)
        index += 1
    return out


_ONE_AS_PRONOUN_AFTER = frozenset(
    "this that the same which each any every no new another last first only latest newest"
    " other".split()
)


def _counts_something(tokens: list[_Token], index: int) -> bool:
    """Whether "one" at ``index`` is a number ("one product") rather than a pronoun."""
    if index + 1 >= len(tokens):
        return False
    following = tokens[index + 1]
    if following.lower in _SCALES:
        return True
    previous = tokens[index - 1].lower if index > 0 else ""
    if previous in _TENS:
        return True
    if previous in _ONE_AS_PRONOUN_AFTER:
        return False
    return following.kind == "word" and following.lower not in STOPWORDS


def _read_number_words(tokens: list[_Token], index: int) -> tuple[float, int]:
    total = 0
    current = 0
    position = index
    consumed = index
    while position < len(tokens):
        word = tokens[position].lower if tokens[position].kind == "word" else ""
        if word in _SMALL_NUMBERS:
            current += _SMALL_NUMBERS[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "dozen":
            current = (current or 1) * 12
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in {"thousand", "million"}:
            total += (current or 1) * _SCALES[word]
            current = 0
        elif word == "and" and consumed > index and _next_is_number_word(tokens, position):
            position += 1
            continue
        elif tokens[position].text == "-" and _next_is_number_word(tokens, position):
            position += 1
            continue
        else:
            break
        position += 1
        consumed = position
    return float(total + current), consumed


def _next_is_number_word(tokens: list[_Token], index: int) -> bool:
    return index + 1 < len(tokens) and tokens[index + 1].lower in _NUMBER_WORDS - {"dozen"}


def _word_number(tokens: list[_Token], start: int, stop: int, value: float) -> _Token:
    first, last = tokens[start], tokens[stop - 1]
    text = " ".join(t.text for t in tokens[start:stop])
    return _Token("num", text, first.start, last.end, value=value)


def _merge_compounds(tokens: list[_Token]) -> list[_Token]:
    """Merge money with a currency word, percentages, month-name dates and relative dates."""
    out: list[_Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.kind == "num" and following is not None:
            if following.lower in _CURRENCY_WORDS:
                value = {"value": token.value, "currency": _CURRENCY_WORDS[following.lower]}
                out.append(_Token("money", f"{token.text} {following.text}", token.start,
                                  following.end, value))  # fmt: skip
                index += 2
                continue
            if following.text == "%" or following.lower == "percent":
                out.append(_Token("pct", token.text, token.start, following.end, token.value))
                index += 2
                continue
        date = _month_date(tokens, index)
        if date is not None:
            iso, stop = date
            out.append(_Token("date", iso, token.start, tokens[stop - 1].end, iso))
            index = stop
            continue
        if token.kind == "word" and token.lower in _RELATIVE_DATES:
            out.append(_Token("date", token.text, token.start, token.end, token.lower))
            index += 1
            continue
        out.append(token)
        index += 1
    return out


def _month_date(tokens: list[_Token], index: int) -> tuple[str, int] | None:
    """Read "Nov 22, 2026" or "22 November 2026" (a year is required)."""

    def kind_at(i: int) -> str:
        return tokens[i].kind if i < len(tokens) else ""

    def integer_at(i: int) -> int | None:
        if kind_at(i) == "num" and re.fullmatch(r"\d+", tokens[i].text):
            return int(tokens[i].text)
        return None

    token = tokens[index]
    month = _MONTHS.get(token.lower) if token.kind == "word" else None
    if month is not None:
        day = integer_at(index + 1)
        position = index + 2
        if position < len(tokens) and tokens[position].text == ",":
            position += 1
        year = integer_at(position)
        if day is not None and year is not None and 1 <= day <= 31 and year >= 1900:
            return f"{year:04d}-{month:02d}-{day:02d}", position + 1
        return None
    day = integer_at(index)
    if day is not None and 1 <= day <= 31 and kind_at(index + 1) == "word":
        month = _MONTHS.get(tokens[index + 1].lower)
        year = integer_at(index + 2)
        if month is not None and year is not None and year >= 1900:
            return f"{year:04d}-{month:02d}-{day:02d}", index + 3
    return None




