"""Numbers in a request for typed spans: digits, number words (English and Chinese), units.

Finds number candidates (``1,000``, ``-3``, ``1e-5``, ``3/4``, ``twenty five``, ``a dozen``,
``third``, ``两百``, ``三个``) and the words right after a number that give it a kind: a
currency (money), ``%`` (percent), a time unit (duration) or a measurement unit. Everything
here is language, not a domain: units, currencies and number words.

The English number words are read here rather than with ``word2number`` or ``number-parser``:
``word2number`` converts a whole string only (it cannot find "twenty five" inside a sentence
nor give offsets) and ``number-parser`` rewrites the sentence without offsets either, while a
request needs the exact character span of each number. The vocabulary is the one the entity
extractor already uses (``stores.language.vocabulary``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from stores.language.keywords import STOPWORDS
from stores.language.vocabulary import _SCALES, _SMALL_NUMBERS, _TENS


@dataclass(frozen=True)
class NumberHit:
    """A number found in the text: its value and character span."""

    value: int | float
    start: int
    end: int


def tidy(value: float) -> int | float:
    """Return an int when a float has no fraction (``3.0`` → ``3``)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return int(value)
    return value


# --- digits -----------------------------------------------------------------------------------

# A minus sign counts only after a space, an opening bracket or a separator ("-3", "x=-3"),
# never inside "3-4" or "ORD-2024". Letters/digits/dots before a digit make it part of a word.
_DIGITS = re.compile(
    r"""(?:(?<![^\s(\[=:,，：（])(?P<sign>[-+−]))?
    (?<![A-Za-z0-9_.^])
    (?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)
    (?P<frac>\.\d+)?
    (?P<exp>[eE][-+]?\d+(?![A-Za-z]))?
    (?P<ord>st|nd|rd|th)?
    (?![0-9])""",
    re.VERBOSE,
)
# A leading zero ("05/20") makes it a date, not a fraction.
_FRACTION = re.compile(r"(?<![A-Za-z0-9_./-])([1-9]\d{0,2})/([1-9]\d{0,2})(?![0-9/])")


def find_digit_numbers(text: str) -> list[NumberHit]:
    """Numbers written with digits: ``1,000``, ``-3``, ``2.5``, ``1e-5``, ``3rd``, ``3/4``."""
    hits: list[NumberHit] = []
    for match in _FRACTION.finditer(text):
        numerator, denominator = int(match.group(1)), int(match.group(2))
        if denominator:
            hits.append(NumberHit(tidy(numerator / denominator), match.start(), match.end()))
    fractions = [(h.start, h.end) for h in hits]
    next_fraction = 0
    for match in _DIGITS.finditer(text):
        start, end = match.start(), match.end()
        while next_fraction < len(fractions) and fractions[next_fraction][1] <= start:
            next_fraction += 1
        if next_fraction < len(fractions) and fractions[next_fraction][0] < end:
            continue  # inside "3/4"
        if (
            "," in match.group("int")
            and text[start - 1 : start] in {"[", "("}
            and text[end : end + 1] in {"]", ")", ","}
        ):
            # "[200,300,400]": commas between the items of an array, not thousands.
            hits.extend(_comma_items(match))
            continue
        ordinal = match.group("ord")
        if ordinal and (match.group("frac") or match.group("exp")):
            continue
        if ordinal and end < len(text) and text[end].isalpha():
            continue
        if ordinal is None and end < len(text) and text[end].isalpha() and match.group("exp"):
            continue
        raw = match.group("int").replace(",", "") + (match.group("frac") or "")
        raw += match.group("exp") or ""
        value: float = float(raw)
        if match.group("sign") in {"-", "−"}:
            value = -value
        number = tidy(value) if (match.group("frac") or match.group("exp")) is None else value
        if isinstance(number, float) and number.is_integer() and match.group("exp"):
            number = value
        hits.append(NumberHit(number, start, end))
    return hits


def _comma_items(match: re.Match[str]) -> list[NumberHit]:
    items: list[NumberHit] = []
    position = match.start("int")
    for index, group in enumerate(match.group("int").split(",")):
        start = match.start() if index == 0 else position
        value = int(group)
        if index == 0 and match.group("sign") in {"-", "−"}:
            value = -value
        items.append(NumberHit(value, start, position + len(group)))
        position += len(group) + 1
    if match.group("frac") or match.group("exp") or match.group("ord"):
        return items[:-1]  # the last item's fraction would be lost: leave it out
    return items


# --- English number words ---------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z]+")
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
}  # fmt: skip
_BIG_SCALES = {**_SCALES, "billion": 1_000_000_000}
_TIMES_WORDS = {"twice": 2, "thrice": 3}
_CARDINALS = set(_SMALL_NUMBERS) | set(_TENS) | set(_BIG_SCALES) | {"dozen"}
# The digits a decimal is said in after "point" ("six point four"): the small numbers
# below ten, and "oh" for zero.
_DIGIT_NAMES = {**{w: v for w, v in _SMALL_NUMBERS.items() if v < 10}, "oh": 0}
# "one" is a pronoun after these ("this one", "the same one", "which one").
_ONE_AS_PRONOUN_AFTER = frozenset(
    "this that the same which each any every no another last first only latest newest other"
    " one".split()
)
_ONE_AS_PRONOUN_BEFORE = frozenset("of by another".split())
# Ordinals that are also other words: "second" is a time unit after a number or "a"/"per".
_SECOND_NOT_ORDINAL_AFTER = frozenset("a per each every one".split())


_ORDINAL_ENDING = re.compile(r"(?:\d(?:st|nd|rd|th)|[A-Za-z]+)$")


def is_ordinal(surface: str) -> bool:
    """Whether a number as written is an ordinal ("3rd", "third", "twenty-first", "第三")."""
    if surface.startswith("第"):
        return True
    ending = _ORDINAL_ENDING.search(surface)
    if ending is None:
        return False
    word = ending.group().lower()
    return word[:1].isdigit() or word in _ORDINALS


def _words(text: str) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]


def _joined(text: str, end: int, start: int, allow: str = " -") -> bool:
    """Whether only spaces/hyphens lie between ``end`` and ``start``."""
    gap = text[end:start]
    return 0 < len(gap) <= 2 and all(c in allow for c in gap)


def find_word_numbers(text: str) -> list[NumberHit]:
    """English number words: ``twenty five``, ``one hundred and five``, ``a dozen``, ``third``.

    ``half`` is 0.5 only on its own (not "half of", "half an hour"); "one" is skipped where it is
    a pronoun ("this one", "one of them"); "first"/"second" are skipped where they are adverbs
    ("First, ...") or a time unit ("a second").
    """
    words = _words(text)
    hits: list[NumberHit] = []
    index = 0
    while index < len(words):
        word, start, end = words[index]
        previous = words[index - 1][0] if index else ""
        following = words[index + 1][0] if index + 1 < len(words) else ""
        if word == "a" and following == "couple" and _joined(text, end, words[index + 1][1], " "):
            # "a couple of days": two
            hits.append(NumberHit(2, start, words[index + 1][2]))
            index += 2
            continue
        if word in {"a", "an"} and following in {"dozen", "hundred", "thousand", "million"}:
            value, stop = _read_cardinal(text, words, index + 1)
            hits.append(NumberHit(tidy(value), start, words[stop - 1][2]))
            index = stop
            continue
        if word in _CARDINALS:
            if word == "one" and (
                previous in _ONE_AS_PRONOUN_AFTER
                or following in _ONE_AS_PRONOUN_BEFORE
                or (following in STOPWORDS and following not in {"and", "more", "hundred"})
                or not following
            ):
                index += 1
                continue
            value, stop = _read_cardinal(text, words, index)
            if all(w in _BIG_SCALES or w == "dozen" for w, _, _ in words[index:stop]):
                # "5 million" is read with its digits; a lone "hundred" is no number.
                index = stop
                continue
            last_end = words[stop - 1][2]
            # "two and a half"
            if (
                stop + 2 < len(words)
                and [w for w, _, _ in words[stop : stop + 3]] == ["and", "a", "half"]
                and _joined(text, last_end, words[stop][1], " ")
            ):
                value += 0.5
                last_end = words[stop + 2][2]
                stop += 3
            # "six point four", "two point five zero": decimals said digit by digit
            elif (
                stop + 1 < len(words)
                and words[stop][0] == "point"
                and words[stop + 1][0] in _DIGIT_NAMES
                and _joined(text, last_end, words[stop][1], " ")
            ):
                digits = ""
                cursor = stop + 1
                while cursor < len(words) and words[cursor][0] in _DIGIT_NAMES and _joined(
                    text, words[cursor - 1][2], words[cursor][1], " "
                ):
                    digits += str(_DIGIT_NAMES[words[cursor][0]])
                    cursor += 1
                value = float(f"{int(value)}.{digits}")
                last_end = words[cursor - 1][2]
                stop = cursor
            # "twenty-first": a cardinal tens word joined to an ordinal.
            elif (
                stop < len(words)
                and words[stop][0] in _ORDINALS
                and words[stop][0] in {o for o, v in _ORDINALS.items() if v < 10}
                and words[stop - 1][0] in _TENS
                and _joined(text, last_end, words[stop][1])
            ):
                value += _ORDINALS[words[stop][0]]
                last_end = words[stop][2]
                stop += 1
            hits.append(NumberHit(tidy(value), start, last_end))
            index = stop
            continue
        if word in _ORDINALS:
            before_gap = text[max(0, start - 2) : start]
            clause_start = index == 0 or any(c in ".!?;:\n" for c in before_gap)
            after = text[end : end + 1]
            if word in {"first", "second", "last"} and (clause_start or after == ","):
                index += 1
                continue
            if word == "second" and (
                previous in _SECOND_NOT_ORDINAL_AFTER or previous in _CARDINALS
            ):
                index += 1
                continue
            if (
                word == "second"
                and start > 0
                and text[max(0, start - 8) : start].rstrip()[-1:].isdigit()
            ):
                index += 1
                continue
            hits.append(NumberHit(_ORDINALS[word], start, end))
        elif word in _TIMES_WORDS:
            hits.append(NumberHit(_TIMES_WORDS[word], start, end))
        elif word == "half" and following not in {"of", "a", "an", "the", "hour", "day"}:
            if previous != "a" or (index >= 2 and words[index - 2][0] != "and"):
                hits.append(NumberHit(0.5, start, end))
        index += 1
    return hits


def _read_cardinal(text: str, words: list[tuple[str, int, int]], index: int) -> tuple[float, int]:
    """Read number words from ``index``; return the value and the index after them."""
    total = 0
    current = 0
    position = index
    consumed = index
    last_was_scale = False
    while position < len(words):
        word, start, _ = words[position]
        if position > index and not _joined(text, words[position - 1][2], start):
            break
        ones_free = current % 100 == 0
        after_tens = current % 100 != 0 and current % 10 == 0
        if word in _SMALL_NUMBERS and (ones_free or (after_tens and _SMALL_NUMBERS[word] < 10)):
            current += _SMALL_NUMBERS[word]
        elif word in _TENS and current % 100 == 0:
            current += _TENS[word]
        elif word == "dozen":
            current = (current or 1) * 12
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in {"thousand", "million", "billion"}:
            total += (current or 1) * _BIG_SCALES[word]
            current = 0
        elif (
            word == "and"
            and last_was_scale
            and position + 1 < len(words)
            and words[position + 1][0] in set(_SMALL_NUMBERS) | set(_TENS)
        ):
            position += 1
            continue
        else:
            break
        last_was_scale = word in {"hundred", "thousand", "million", "billion"}
        position += 1
        consumed = position
    return float(total + current), consumed


# --- Chinese numerals -------------------------------------------------------------------------

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}  # fmt: skip
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_CN_RUN = re.compile(r"第?[零〇一二两三四五六七八九十百千万亿]+")
# Measure words: a numeral before one of them counts something ("三个", "两件", "五天").
CN_MEASURE_WORDS = (
    "个月 小时 分钟 公里 公斤 千克 个 只 件 张 本 台 位 条 次 天 年 月 周 秒 元 块 份 瓶 箱 盒"
    " 双 把 辆 间 家 人 名 岁 号 日 点 斤 米 度 倍 杯 碗 套 页 行 列 项 笔 单 批 部 首 篇 星 分"
    " 美元 欧元 英镑 日元 毛 角 克 升 层 站 晚 周岁 百分点 折 包 颗 粒 头 棵 支 枚 座 所 封 组"
).split()
_CN_VALUE_LEADS = ("是", "为", "成", "到", "：", ":", "设", "改", "共", "有")
_CN_NOT_NUMBERS = frozenset({"万一", "千万", "一一", "一二"})


def parse_chinese_numeral(raw: str) -> int | None:
    """Value of a Chinese numeral (``三十五`` → 35, ``两百`` → 200, ``一万二千`` → 12000)."""
    if not raw:
        return None
    if all(c in _CN_DIGITS for c in raw) and len(raw) > 1:
        # "二〇二四": digits read one by one.
        return int("".join(str(_CN_DIGITS[c]) for c in raw))
    total = 0
    section = 0
    digit = 0
    for char in raw:
        if char in _CN_DIGITS:
            digit = _CN_DIGITS[char]
        elif char in _CN_UNITS:
            section += (digit or 1) * _CN_UNITS[char]
            digit = 0
        elif char in _CN_BIG:
            total += (section + digit) * _CN_BIG[char]
            section = 0
            digit = 0
        else:
            return None
    return total + section + digit


def find_chinese_numbers(text: str) -> list[NumberHit]:
    """Chinese numerals that are numbers here.

    A numeral counts before a measure word ("三个"), when it has a unit character ("两百",
    "十五"), after a value lead ("数量是三"), or as an ordinal ("第三").
    """
    hits: list[NumberHit] = []
    for match in _CN_RUN.finditer(text):
        raw = match.group()
        ordinal = raw.startswith("第")
        digits = raw[1:] if ordinal else raw
        if not digits or digits in _CN_NOT_NUMBERS:
            continue
        if not (digits[0] == "十" or any(c in _CN_DIGITS for c in digits)):
            continue  # "万元", "百分": a unit character alone counts nothing
        value = parse_chinese_numeral(digits)
        if value is None:
            continue
        start, end = match.start(), match.end()
        if text.startswith("百分之", start):
            continue  # "百分之二十" is 20%: the numeral is the part after it
        rest = text[end : end + 3]
        measured = any(rest.startswith(word) for word in CN_MEASURE_WORDS)
        before = text[max(0, start - 2) : start]
        led = before.endswith(_CN_VALUE_LEADS) and (end == len(text) or not _is_cjk(text[end]))
        if ordinal or measured or led or (len(digits) > 1 and digits[0] != digits[-1] == "一"):
            hits.append(NumberHit(value, start, end))
        elif len(digits) > 1 and any(c in _CN_UNITS or c in _CN_BIG for c in digits):
            hits.append(NumberHit(value, start, end))
    return hits


def _is_cjk(char: str) -> bool:
    return "\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"


_COMPACT_DURATION = re.compile(
    r"(?<![A-Za-z0-9_.])(?:\d+(?:\.\d+)?(?:d|h|hr|m|min|s|sec)){2,}(?![A-Za-z0-9_])"
)
_COMPACT_PART = re.compile(r"(\d+(?:\.\d+)?)(d|hr|h|min|m|sec|s)")
_COMPACT_SECONDS = {"d": 86400, "h": 3600, "hr": 3600, "m": 60, "min": 60, "s": 1, "sec": 1}


def seconds_per_unit(unit: str | None) -> int:
    """Seconds in one time unit as written ("hours" → 3600, "m" of "1h30m" → 60); 0 if none."""
    if unit is None:
        return 0
    low = unit.lower()
    return DURATION_UNITS.get(low) or _COMPACT_SECONDS.get(low, 0)


def find_compact_durations(text: str) -> list[tuple[str, Any, int, int]]:
    """Durations written as one token: "1h30m", "2m30s" (seconds; the unit is the last one)."""
    found: list[tuple[str, Any, int, int]] = []
    for match in _COMPACT_DURATION.finditer(text):
        parts = _COMPACT_PART.findall(match.group())
        steps = [_COMPACT_SECONDS[unit] for _, unit in parts]
        if steps != sorted(steps, reverse=True) or len(set(steps)) != len(steps):
            continue  # "30m1h" is no duration
        seconds = sum(float(amount) * _COMPACT_SECONDS[unit] for amount, unit in parts)
        found.append(("duration", tidy(round(seconds, 6)), match.start(), match.end()))
    return found


# --- units after a number ---------------------------------------------------------------------

CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "bucks": "USD", "buck": "USD",
    "us dollars": "USD", "yuan": "CNY", "rmb": "CNY", "cny": "CNY", "renminbi": "CNY",
    "kuai": "CNY", "euro": "EUR", "euros": "EUR", "eur": "EUR", "gbp": "GBP",
    "pounds sterling": "GBP", "sterling": "GBP", "british pound": "GBP",
    "british pounds": "GBP", "yen": "JPY", "jpy": "JPY",
    "rupees": "INR", "rupee": "INR", "inr": "INR", "cad": "CAD", "aud": "AUD", "chf": "CHF",
    "hkd": "HKD", "sgd": "SGD", "krw": "KRW", "won": "KRW",
    "元": "CNY", "块": "CNY", "块钱": "CNY", "元人民币": "CNY", "人民币": "CNY", "美元": "USD",
    "美金": "USD", "欧元": "EUR", "英镑": "GBP", "日元": "JPY",
}  # fmt: skip
CURRENCY_CODES = frozenset({"USD", "EUR", "GBP", "CNY", "RMB", "JPY", "INR", "CAD", "AUD",
                            "CHF", "HKD", "SGD", "KRW"})  # fmt: skip
CURRENCY_SYMBOLS = {"US$": "USD", "$": "USD", "€": "EUR", "£": "GBP", "¥": "CNY", "￥": "CNY",
                    "₹": "INR", "₩": "KRW"}  # fmt: skip
# Seconds per time unit, as written after a number.
DURATION_UNITS = {
    "second": 1, "seconds": 1, "sec": 1, "secs": 1, "s": 1,
    "minute": 60, "minutes": 60, "min": 60, "mins": 60,
    "hour": 3600, "hours": 3600, "hr": 3600, "hrs": 3600, "h": 3600,
    "day": 86400, "days": 86400, "week": 604800, "weeks": 604800,
    "month": 2592000, "months": 2592000, "year": 31536000, "years": 31536000,
    "秒": 1, "秒钟": 1, "分钟": 60, "小时": 3600, "个小时": 3600, "天": 86400, "日": 86400,
    "周": 604800, "星期": 604800, "个星期": 604800, "个月": 2592000, "年": 31536000,
}  # fmt: skip
PERCENT_WORDS = ("%", "percent", "per cent", "pct", "％")
# Measurement and counting units (language, not a domain): unit as written, lower-case.
MEASURE_UNITS = frozenset(
    "km kilometer kilometers kilometre kilometres m meter meters metre metres cm centimeter"
    " centimeters mm millimeter millimeters mi mile miles ft foot feet in inch inches yd yard"
    " yards kg kilogram kilograms kilo kilos g gram grams mg milligram milligrams lb lbs pound"
    " pounds oz ounce ounces t ton tons tonne tonnes l liter liters litre litres ml milliliter"
    " milliliters gal gallon gallons celsius fahrenheit kelvin °c °f ℃ ℉ degrees degree"
    " kb mb gb tb kbps mbps gbps hz khz mhz ghz w kw kwh v mph kph km/h m/s rpm px pt"
    " units unit items item pieces piece pcs times x percentile calories cal kcal"
    " acres acre hectares hectare sq sqft steps cup cups tbsp tsp tablespoon tablespoons"
    " teaspoon teaspoons newton newtons joule joules volt volts amp amps ampere amperes watt"
    " watts pascal pascals hertz coulomb coulombs farad farads henry henries mole moles ohm"
    " ohms atmosphere atmospheres calorie kilojoules kilowatts megawatts"
    " 公里 公斤 千克 克 米 厘米 毫米 升 毫升 度 斤 摄氏度 华氏度".split()
)
_LOOSE_UNITS = frozenset({"in", "x", "sq", "pt", "t"})
_UNIT_ALIASES = {"°c": "celsius", "℃": "celsius", "°f": "fahrenheit", "℉": "fahrenheit",
                 "摄氏度": "celsius", "华氏度": "fahrenheit"}  # fmt: skip


@dataclass(frozen=True)
class UnitHit:
    """A unit word right after a number: its kind and where it ends."""

    kind: str  # "money", "percent", "duration", "number"
    unit: str  # lower-case as written (an ISO code for money)
    end: int
    factor: int = 1  # seconds per unit for durations


_UNIT_WORD = re.compile(
    r"[ \t-]?(°[CcFf]|[℃℉%％]|[A-Za-zµΩ]+(?:\^-?\d|[²³])?(?:/[A-Za-zµΩ]+(?:\^-?\d|[²³])?)?"
    r"|[\u4e00-\u9fff]{1,4})"
)
_POWER = re.compile(r"(?:\^-?\d|[²³])$")
# SI symbols of two letters or more, case as written ("mH", "kPa"); one-letter ones ("5C", "4A")
# are too often parts of identifiers (a gate, a flat) to be read as units.
_SI_SYMBOLS = frozenset(
    "Pa kPa MPa hPa Hz kHz MHz GHz mH µH uH µF uF nF pF mF kΩ MΩ mA µA kV mV kJ MJ kN mol"
    " mmol eV keV MeV kW MW GW Wh kWh MWh atm bar psi dB cd lm lx Gy Sv Bq Wb".split()
)


def is_measure_unit(word: str) -> bool:
    """Whether ``word`` is a unit: "km", "m/s^2", "kg/m³", "kPa", "newtons"."""
    parts = word.split("/")
    for part in parts:
        base = _POWER.sub("", part)
        low = base.lower()
        if not (
            low in MEASURE_UNITS
            or base in _SI_SYMBOLS
            or (len(parts) > 1 and low in DURATION_UNITS)
            or base == "Ω"
        ):
            return False
    return True


_NEXT_WORD = re.compile(r" ([A-Za-z]+)")
_DECADE = re.compile(r"(?:(?<![0-9])(?:1[5-9]|20)\d0|['’]\d0)$")


def unit_after(text: str, end: int) -> UnitHit | None:
    """The unit written right after a number ending at ``end``, if any."""
    match = _UNIT_WORD.match(text, end)
    if match is None:
        return None
    word = match.group(1)
    low = word.lower()
    stop = match.end()
    if _is_cjk(word[0]):
        return _chinese_unit_after(text, match.start(1))
    if low in {"%", "％"}:
        return UnitHit("percent", "%", stop)
    if low in {"percent", "pct"}:
        return UnitHit("percent", "%", stop)
    if low == "per" and text[stop : stop + 4].lower() == " cen":
        cent = re.match(r" cent\b", text[stop : stop + 6].lower())
        if cent:
            return UnitHit("percent", "%", stop + cent.end())
    two = _NEXT_WORD.match(text, stop)
    if two is not None:
        pair = f"{low} {two.group(1).lower()}"
        if pair in CURRENCY_WORDS:
            return UnitHit("money", CURRENCY_WORDS[pair], two.end())
        if low in {"degrees", "degree"} and two.group(1).lower() in {"celsius", "fahrenheit",
                                                                      "c", "f"}:  # fmt: skip
            unit = {"c": "celsius", "f": "fahrenheit"}.get(two.group(1).lower(), two.group(1))
            return UnitHit("number", unit.lower(), two.end())
    if word.upper() in CURRENCY_CODES and (word.isupper() or low in CURRENCY_WORDS):
        return UnitHit("money", "CNY" if word.upper() == "RMB" else word.upper(), stop)
    if low in CURRENCY_WORDS:
        return UnitHit("money", CURRENCY_WORDS[low], stop)
    if low in DURATION_UNITS and (len(low) > 1 or match.group().startswith(word)):
        if low in {"s", "h"} and match.group() != word:
            return None  # "3 s" is too loose: only "3s", "3h" written together
        if low == "s" and _DECADE.search(text, max(0, end - 6), end):
            return None  # "the 1980s", "'80s": decades
        return UnitHit("duration", low, stop, DURATION_UNITS[low])
    if is_measure_unit(word):
        if match.group() != word and low in _LOOSE_UNITS:
            # "5 in stock", "3 x 4", "2 t": these unit words count only written together.
            return None
        return UnitHit("number", _UNIT_ALIASES.get(low, low), stop)
    return None


def _longest_first(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted((w for w in words if _is_cjk(w[0])), key=len, reverse=True))


_CN_CURRENCY_WORDS = _longest_first(CURRENCY_WORDS)
_CN_DURATION_WORDS = _longest_first(DURATION_UNITS)
_CN_MEASURE_UNITS = _longest_first(MEASURE_UNITS)


def _chinese_unit_after(text: str, start: int) -> UnitHit | None:
    rest = text[start : start + 5]
    for word in _CN_CURRENCY_WORDS:
        if rest.startswith(word):
            return UnitHit("money", CURRENCY_WORDS[word], start + len(word))
    for word in _CN_DURATION_WORDS:
        if rest.startswith(word):
            if word in {"日", "年", "月"}:
                return None  # "3日", "2024年": parts of dates, not durations
            return UnitHit("duration", word, start + len(word), DURATION_UNITS[word])
    for word in _CN_MEASURE_UNITS:
        if rest.startswith(word):
            return UnitHit("number", _UNIT_ALIASES.get(word, word), start + len(word))
    return None


_CURRENCY_BEFORE = re.compile(
    r"(?:(?P<symbol>US\$|[$€£¥￥₹₩])|(?P<code>\b(?:USD|EUR|GBP|CNY|RMB|JPY|INR|CAD|AUD|CHF|HKD|"
    r"SGD|KRW)|人民币))[ \t]?$"
)


def currency_before(text: str, start: int) -> tuple[str, int] | None:
    """The currency written right before a number starting at ``start``: (ISO code, its start)."""
    match = _CURRENCY_BEFORE.search(text, max(0, start - 5), start)
    if match is None:
        return None
    symbol = match.group("symbol")
    if symbol is not None:
        return CURRENCY_SYMBOLS[symbol], match.start()
    code = match.group("code")
    return ("CNY" if code in {"RMB", "人民币"} else code), match.start()


def percent_before(text: str, start: int) -> int | None:
    """Start of "百分之" right before a number (``百分之十五`` is 15%)."""
    if text[max(0, start - 3) : start] == "百分之":
        return start - 3
    return None
