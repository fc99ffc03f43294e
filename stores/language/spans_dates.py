"""Dates and times in a request for typed spans (English and Chinese).

Candidates are found with cheap patterns built from month, weekday and relative-day words
(``March 3rd 2024``, ``next Monday``, ``in 3 days``, ``明天``, ``下周一``, ``2024年3月5日``),
then each candidate alone is parsed: numeric forms (``2024-03-03``, ``03/03/2024``) and times
(``3pm``, ``15:30``, ``下午3点``) here, everything with words by ``dateparser`` relative to
``now``. ``dateparser.search`` would scan the whole request and costs tens of milliseconds;
parsing only the candidates costs well under a millisecond each, and results are cached.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from stores.language.date_formats import parse_written_date
from stores.language.spans_numbers import parse_chinese_numeral
from stores.language.vocabulary import _SMALL_NUMBERS, _TENS


@dataclass(frozen=True)
class DateHit:
    """A date, time or datetime found in the text."""

    kind: str  # "date", "time", "datetime"
    value: str  # ISO: "YYYY-MM-DD", "HH:MM", "YYYY-MM-DDTHH:MM"
    start: int
    end: int
    # A time written without am/pm whose hour could be either ("7:30"), or a pm time ("5pm").
    open_hour: bool = False
    pm: bool = False


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
    r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_COUNT = (
    r"(?:\d+|an?|"
    + "|".join(sorted(set(_SMALL_NUMBERS) | set(_TENS), key=len, reverse=True))
    + r")"
)
_PERIOD = r"(?:days?|weeks?|months?|years?)"
_YEAR = r"(?:1[89]\d\d|2\d\d\d)"

_ENGLISH_DATE = re.compile(
    rf"""(?<![\w-])(?:
      (?P<iso>{_YEAR}-(?:1[0-2]|0?[1-9])-(?:[12]\d|3[01]|0?[1-9]))(?=T\d|(?![\w-]))
    | (?P<ymd>{_YEAR}[/.](?:1[0-2]|0?[1-9])[/.](?:[12]\d|3[01]|0?[1-9]))(?![\w/.]\d)
    | (?P<mdy>\d{{1,2}}(?P<sep>[-/.])\d{{1,2}}(?P=sep){_YEAR})(?![\w/-])
    | (?P<md>0\d/\d\d?|\d\d?/0\d)(?![\w/.])
    | (?P<words>
        {_MONTH}(?:(?<=\.)\s*|\s+|(?<=[a-z])(?=\d)){_DAY}(?:(?:,?\s+|,){_YEAR})?(?![\w:])
      | (?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?(?![\w:])
      | (?:(?:next|this|last|coming)\s+)?{_WEEKDAY}
      | the\s+day\s+(?:after\s+tomorrow|before\s+yesterday)
      | today|tomorrow|yesterday|tonight
      | in\s+{_COUNT}\s+{_PERIOD}
      | {_COUNT}\s+{_PERIOD}\s+(?:ago|from\s+now|later)
      | (?:next|last|this)\s+(?:week|month|year)
    )(?!\w))""",
    re.VERBOSE | re.IGNORECASE,
)
_CN_NUM = r"[\d零〇一二两三四五六七八九十]+"
# Numerals start only where a run of them starts: without this, a long digit run would be
# tried from every position (quadratic).
_CN_RUN_START = r"(?<![\d零〇一二两三四五六七八九十])"
_CHINESE_DATE = re.compile(
    rf"""(?P<cymd>{_CN_RUN_START}(?:(?P<y>\d{{4}})年)?(?P<m>{_CN_NUM})月(?P<d>{_CN_NUM})[日号])
    | (?P<cweek>(?P<wrel>下下|下个|上个|这个|下|上|本|这)?(?:周|星期|礼拜)
        (?P<wd>[一二三四五六日天]))
    | (?P<crel>大后天|后天|明天|今天|昨天|前天|今晚|明早|明晚)
    | (?P<cago>{_CN_RUN_START}{_CN_NUM}(?:天|周|个星期|个月|年)[以之]?[后前])
    """,
    re.VERBOSE,
)
_TIME = re.compile(
    r"""(?:(?<=\dT)|(?<![\w:.]))(?:
      (?P<h12>1[0-2]|0?[1-9])(?::(?P<m12>[0-5]\d))?\s?(?P<ampm>[ap]\.?m\.?)(?![\w])
    | (?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?::[0-5]\d)?(?![\d:])
      (?:\s?(?P<ampm2>[ap]\.?m\.?)(?!\w))?
    | (?P<hpart>1[0-2]|0?[1-9])(?::(?P<mpart>[0-5]\d))?\s+
      (?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night))(?!\w)
    | (?P<word>noon|midnight)
    | (?P<oclock>1[0-2]|0?[1-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)
      \s?o'clock
    )""",
    re.VERBOSE | re.IGNORECASE,
)
_CHINESE_TIME = re.compile(
    rf"(?P<part>凌晨|早上|上午|中午|下午|晚上|傍晚)?{_CN_RUN_START}(?P<h>{_CN_NUM})[点時时]"
    rf"(?:(?P<half>半)|"
    rf"(?P<m>{_CN_NUM})分?)?"
)
_CN_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


_STATED_TODAY = re.compile(
    r"\btoday(?:'s\s+date)?\s+is\s+(?:(?:monday|tuesday|wednesday|thursday|friday|saturday"
    r"|sunday),?\s+)?|今天是\s*",
    re.IGNORECASE,
)


def stated_today(text: str) -> datetime | None:
    """The date a request says is today ("Today is Friday 2023-09-29"), if it says one."""
    match = _STATED_TODAY.search(text)
    if match is None:
        return None
    rest = text[match.end() : match.end() + 40]
    for hit in _find_english_dates(rest, datetime(2000, 1, 1)) + _find_chinese_dates(
        rest, datetime(2000, 1, 1)
    ):
        if hit.start == 0 and re.match(r"\d{4}", hit.value):
            return datetime.fromisoformat(hit.value).replace(hour=12)
    return None


def find_dates(text: str, now: datetime) -> list[DateHit]:
    """All dates, times and date+time pairs in ``text``, parsed relative to ``now``.

    Misspelt month, weekday and relative-day words ("tomorow", "wensday", "Febuary") are read
    as the word they are closest to.
    """
    corrected = _correct_date_words(text)
    if corrected is None:
        english = _find_english_dates(text, now)
    else:
        fixed, to_original = corrected
        english = [
            DateHit(h.kind, h.value, to_original(h.start), to_original(h.end))
            for h in _find_english_dates(fixed, now)
        ]
    dates = english + _find_chinese_dates(text, now)
    times = _find_times(text)
    dates = [d for d in dates if not any(t.start < d.end and d.start < t.end for t in times)]
    return _pair_dates_and_times(text, sorted(dates + times, key=lambda h: h.start))


_DATE_WORDS = (
    "january february march april june july august september october november december"
    " monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday tonight"
).split()
_KNOWN_DATE_WORDS = frozenset(_DATE_WORDS) | frozenset(
    "sept jan feb mar apr may jun jul aug sep oct nov dec".split()
)
_LONG_WORD = re.compile(r"[A-Za-z]{5,}")


_DATE_INITIALS = frozenset(w[0] for w in _DATE_WORDS)


@functools.lru_cache(maxsize=4096)
def _date_word_like(word: str) -> str | None:
    """The date word ``word`` is a typo of, if any (``wensday`` → ``wednesday``)."""
    if word in _KNOWN_DATE_WORDS or word[:-1] in _KNOWN_DATE_WORDS:
        return None
    from rapidfuzz import fuzz, process

    choices = [w for w in _DATE_WORDS if w[0] == word[0]]
    best = process.extractOne(word, choices, scorer=fuzz.ratio, score_cutoff=85)
    return None if best is None else str(best[0])


def _correct_date_words(text: str) -> tuple[str, Callable[[int], int]] | None:
    """Text with misspelt date words replaced, and a map of its offsets back to ``text``.

    rapidfuzz compares each word of five letters or more that starts like a date word with the
    date words (a normalized Indel similarity of 85 or more is a typo of it); None when nothing
    was corrected, which is almost always.
    """
    replacements: list[tuple[int, int, str]] = []
    for match in _LONG_WORD.finditer(text):
        word = match.group().lower()
        if word[0] in _DATE_INITIALS:
            correction = _date_word_like(word)
            if correction is not None:
                replacements.append((match.start(), match.end(), correction))
    if not replacements:
        return None
    pieces: list[str] = []
    segments: list[tuple[int, int, int, int]] = []  # fixed start/end, original start/end
    previous = 0
    length = 0
    for start, end, word in replacements:
        pieces.append(text[previous:start])
        length += start - previous
        segments.append((length, length + len(word), start, end))
        pieces.append(word)
        length += len(word)
        previous = end
    pieces.append(text[previous:])

    def to_original(offset: int) -> int:
        shift = 0
        for fixed_start, fixed_end, start, end in segments:
            if offset <= fixed_start:
                break
            if offset < fixed_end:
                return start
            if offset == fixed_end:
                return end
            shift = end - fixed_end
        return offset + shift

    return "".join(pieces), to_original


def _find_english_dates(text: str, now: datetime) -> list[DateHit]:
    hits: list[DateHit] = []
    yearless: set[int] = set()
    for match in _ENGLISH_DATE.finditer(text):
        raw = match.group()
        value: str | None
        if match.group("iso") or match.group("ymd"):
            year, month, day = (int(p) for p in re.split(r"[-/.]", raw))
            value = _iso(year, month, day)
        elif match.group("mdy"):
            # Month first as written in the US; a first part over 12 can only be a day.
            written = parse_written_date(raw)
            value = None if written is None else written.isoformat()
        elif match.group("md"):
            month, day = (int(p) for p in raw.split("/"))
            value = _next_occurrence(now.date(), month, day)
        else:
            words = re.sub(r"^the\s+", "", raw, flags=re.IGNORECASE)
            words = re.sub(r"^([a-z]+)(?=\d)", r"\1 ", words, flags=re.IGNORECASE)  # "June01"
            value = _parse_words(words.replace("coming ", "next "), now.date())
            if _MONTH_DAY_NO_YEAR.fullmatch(raw):
                yearless.add(match.start())
        if value is not None:
            hits.append(DateHit("date", value, match.start(), match.end()))
    return _absorb_weekdays(text, _share_years(text, hits, yearless, now))


_BARE_WEEKDAY = re.compile(rf"(?:on\s+)?{_WEEKDAY}", re.IGNORECASE)
_WEEKDAY_GLUE = re.compile(r",?\s+(?:the\s+)?")


def _absorb_weekdays(text: str, hits: list[DateHit]) -> list[DateHit]:
    """A weekday right before a date names it ("Friday 2023-09-29", "Friday, March 3")."""
    out: list[DateHit] = []
    for hit in hits:
        previous = out[-1] if out else None
        if (
            previous is not None
            and _BARE_WEEKDAY.fullmatch(text, previous.start, previous.end)
            and _WEEKDAY_GLUE.fullmatch(text, previous.end, hit.start)
        ):
            out[-1] = DateHit("date", hit.value, previous.start, hit.end)
            continue
        out.append(hit)
    return out


# "April 3rd to April 5th 2023": the first date takes the year written with the second.
_MONTH_DAY_NO_YEAR = re.compile(
    rf"(?:the\s+)?(?:{_MONTH}(?:(?<=\.)\s*|\s+|(?<=[a-z])(?=\d)){_DAY}"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH})",
    re.IGNORECASE,
)
_RANGE_GLUE = re.compile(r"\s*(?:to|until|till|through|thru|and|&|-|–|—)\s*", re.IGNORECASE)


def _share_years(
    text: str, hits: list[DateHit], yearless: set[int], now: datetime
) -> list[DateHit]:
    out = list(hits)
    for index in range(len(out) - 1):
        first, second = out[index], out[index + 1]
        if (
            first.start in yearless
            and second.start not in yearless
            and _RANGE_GLUE.fullmatch(text, first.end, second.start)
            and first.value[:4] != second.value[:4]
        ):
            words = re.sub(r"^the\s+", "", text[first.start : first.end], flags=re.IGNORECASE)
            value = _parse_words(f"{words} {second.value[:4]}", now.date())
            if value is not None:
                out[index] = DateHit("date", value, first.start, first.end)
    return out


def _find_chinese_dates(text: str, now: datetime) -> list[DateHit]:
    hits: list[DateHit] = []
    today = now.date()
    for match in _CHINESE_DATE.finditer(text):
        value: str | None = None
        if match.group("cymd"):
            month = _cn_int(match.group("m"))
            day = _cn_int(match.group("d"))
            if month is not None and day is not None:
                if match.group("y"):
                    value = _iso(int(match.group("y")), month, day)
                else:
                    value = _next_occurrence(today, month, day)
        elif match.group("cweek"):
            relative = match.group("wrel") or ""
            weekday = _CN_WEEKDAYS[match.group("wd")]
            monday = today - timedelta(days=today.weekday())
            weeks = {"下": 1, "下个": 1, "下下": 2, "上": -1, "上个": -1}.get(relative)
            if weeks is None and relative:
                target = monday + timedelta(days=weekday)  # 本周五, 这周五: this week's
            elif weeks is None:
                target = today + timedelta(days=(weekday - today.weekday()) % 7)
            else:
                target = monday + timedelta(days=7 * weeks + weekday)
            value = target.isoformat()
        else:
            value = _parse_words(match.group(), today)
        if value is not None:
            hits.append(DateHit("date", value, match.start(), match.end()))
    return hits


def _cn_int(raw: str) -> int | None:
    return int(raw) if raw.isdigit() else parse_chinese_numeral(raw)


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _next_occurrence(today: date, month: int, day: int) -> str | None:
    for year in (today.year, today.year + 1):
        value = _iso(year, month, day)
        if value is not None and value >= today.isoformat():
            return value
    return _iso(today.year, month, day)


@functools.lru_cache(maxsize=4)
def _date_parser(today: date) -> Any:
    """One dateparser per base day (building one is cheap; its settings are fixed at birth)."""
    # Imported lazily: a request without a date never pays for dateparser's language data.
    from dateparser.date import DateDataParser

    return DateDataParser(
        languages=["en", "zh"],
        settings={
            "PREFER_DATES_FROM": "future",
            "RETURN_AS_TIMEZONE_AWARE": False,
            "RELATIVE_BASE": datetime(today.year, today.month, today.day, 12, 0),
        },
    )


@functools.lru_cache(maxsize=2048)
def _parse_words(words: str, today: date) -> str | None:
    """Parse one date phrase with dateparser relative to ``today`` (cached per day)."""
    try:
        found = _date_parser(today).get_date_data(words.lower())
    except (ValueError, OverflowError):
        return None
    if found is None or found.date_obj is None:
        return None
    return str(found.date_obj.date().isoformat())


def _find_times(text: str) -> list[DateHit]:
    hits: list[DateHit] = []
    for match in _TIME.finditer(text):
        hour: int
        minute = 0
        open_hour = False
        if match.group("h12"):
            hour = int(match.group("h12")) % 12
            minute = int(match.group("m12") or 0)
            if match.group("ampm").lower().startswith("p"):
                hour += 12
        elif match.group("h24"):
            hour = int(match.group("h24"))
            minute = int(match.group("m24"))
            ampm = match.group("ampm2")
            open_hour = ampm is None and 1 <= hour <= 11
            if ampm and ampm.lower().startswith("p") and hour < 12:
                hour += 12
            elif ampm and hour == 12:
                hour = 0
        elif match.group("hpart"):
            hour = int(match.group("hpart")) % 12
            minute = int(match.group("mpart") or 0)
            part = (match.group("part") or "").lower()
            if part in {"afternoon", "evening"} or (match.group("night") and hour >= 6):
                hour += 12
        elif match.group("word"):
            hour = 12 if match.group("word").lower() == "noon" else 0
        else:
            raw = match.group("oclock").lower()
            hour = int(raw) if raw.isdigit() else _SMALL_NUMBERS[raw]
        hits.append(
            DateHit(
                "time",
                f"{hour:02d}:{minute:02d}",
                match.start(),
                match.end(),
                open_hour,
                pm=hour >= 12 and not open_hour,
            )  # fmt: skip
        )
    for match in _CHINESE_TIME.finditer(text):
        hour_value = _cn_int(match.group("h"))
        if hour_value is None or hour_value > 24:
            continue
        minute = 30 if match.group("half") else (_cn_int(match.group("m") or "0") or 0)
        if match.group("part") in {"下午", "晚上", "傍晚"} and hour_value < 12:
            hour_value += 12
        if minute < 60:
            hits.append(
                DateHit("time", f"{hour_value % 24:02d}:{minute:02d}", match.start(), match.end())
            )
    return _close_ranges(text, hits)


_TIME_RANGE_GLUE = re.compile(r"\s*(?:-|–|to|until|till)\s*", re.IGNORECASE)


def _close_ranges(text: str, hits: list[DateHit]) -> list[DateHit]:
    """In a range like "3:00-4:30pm" the open first hour takes the pm of the second."""
    hits = sorted(hits, key=lambda h: h.start)
    for index in range(len(hits) - 1):
        first, second = hits[index], hits[index + 1]
        first_hour, second_hour = int(first.value[:2]), int(second.value[:2])
        if (
            first.open_hour
            and second.pm
            and first_hour + 12 <= second_hour
            and _TIME_RANGE_GLUE.fullmatch(text, first.end, second.start)
        ):
            hits[index] = _afternoon(first)
    return hits


def _afternoon(hit: DateHit) -> DateHit:
    hour = int(hit.value[:2]) + 12
    return DateHit("time", f"{hour:02d}{hit.value[2:]}", hit.start, hit.end, pm=True)


_EVENING_WORDS = frozenset({"tonight", "今晚", "明晚"})
_DATE_TIME_GLUE = re.compile(r"^(?:\s*,?\s*(?:at|@|on|by|around)?\s*|\s*的?\s*|T)$", re.IGNORECASE)


def _pair_dates_and_times(text: str, hits: list[DateHit]) -> list[DateHit]:
    """Join "tomorrow at 3pm", "2024-03-03T10:00", "明天下午3点" into datetimes."""
    out: list[DateHit] = []
    index = 0
    while index < len(hits):
        hit = hits[index]
        following = hits[index + 1] if index + 1 < len(hits) else None
        if (
            following is not None
            and {hit.kind, following.kind} == {"date", "time"}
            and following.start >= hit.end
            and _DATE_TIME_GLUE.match(text[hit.end : following.start])
        ):
            day, clock = (hit, following) if hit.kind == "date" else (following, hit)
            if clock.open_hour and text[day.start : day.end].lower() in _EVENING_WORDS:
                clock = _afternoon(clock)  # "7:30 tonight" is 19:30
            out.append(DateHit("datetime", f"{day.value}T{clock.value}", hit.start, following.end))
            index += 2
            continue
        out.append(hit)
        index += 1
    return out
