"""Dates and times written the way a parameter's description asks for ("MM-DD-YYYY", "HH:MM").

A description may name the format of a date in letters ("yyyy-mm-dd", "MM/DD/YYYY") or in
words ("(month-day-year)"); a date the user wrote in any common form ("2022/08/16", "July 10,
2022", "March 10th, 2023") is rewritten in that order. Without a format in the description a
date stays as it was written (or read). Times of day ("7pm", "7:30 pm") likewise go as the
description's "HH:MM", "HH:MM:SS" or "hh:mm AM/PM" asks (:func:`time_as_described`).
"""

from __future__ import annotations

import re
from datetime import date, datetime

# A year's field as written: "YYYY", "YY" (two digits), or "YYY" (a slip for "YYYY").
_FIELD = r"(y{2,4}|mm|dd|year|month|day)"
_DATE_FORMAT = re.compile(rf"\b{_FIELD}([-/.]){_FIELD}\2{_FIELD}\b", re.IGNORECASE)
_WORD_FIELD = {"year": "yyyy", "month": "mm", "day": "dd"}


def described_date_format(description: str) -> tuple[list[str], str] | None:
    """The order of the fields (``["mm", "dd", "yyyy"]``) and their separator, or None."""
    wanted = _DATE_FORMAT.search(description)
    if wanted is None:
        return None
    fields = [_WORD_FIELD.get(f.lower(), f.lower()) for f in wanted.group(1, 3, 4)]
    fields = ["yyyy" if f == "yyy" else f for f in fields]
    if len(set(fields)) < 3:
        return None
    return fields, wanted.group(2)


def parse_written_date(written: str) -> date | None:
    """A written date ("2022/08/16", "July 10, 2022", "March 10th, 2023") as a date."""
    text = written.strip()
    iso = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", text)
    try:
        if iso:
            return date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
    except ValueError:
        return None
    # "01-31-1980", "31/01/1980": month first as written in the US; a first part over 12 is
    # a day.
    numeric = re.fullmatch(r"(\d{1,2})([-/.])(\d{1,2})\2(\d{4})", text)
    if numeric:
        first, second = int(numeric.group(1)), int(numeric.group(3))
        month, day = (second, first) if first > 12 or numeric.group(2) == "." else (first, second)
        try:
            return date(int(numeric.group(4)), month, day)
        except ValueError:
            return None
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text)
    # "Mar.11, 2022", "Jun.20,2023": the month's dot and a comma with no space after it.
    cleaned = re.sub(r",(?=\d)", ", ", re.sub(r"(?<=[A-Za-z])\.(?=\d)", " ", cleaned))
    # "the 15th of March, 2024" is "15 March 2024".
    cleaned = re.sub(r"^the\s+", "", cleaned, flags=re.I)
    cleaned = re.sub(r"^(\d{1,2})\s+of\s+([A-Za-z]+),?\s+(\d{4})$", r"\1 \2 \3", cleaned)
    for pattern in ("%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %B, %Y",
                    "%b. %d, %Y", "%Y %B %d", "%Y %b %d"):
        try:
            return datetime.strptime(cleaned, pattern).date()
        except ValueError:
            continue
    return None


def date_as_described(written: str, description: str) -> str | None:
    """``written`` in the format ``description`` names, or None (no format, or no date)."""
    wanted = described_date_format(description)
    if wanted is None:
        return None
    parsed = parse_written_date(written)
    if parsed is None:
        return None
    fields, separator = wanted
    parts = {"yyyy": f"{parsed.year:04d}", "yy": f"{parsed.year % 100:02d}",
             "mm": f"{parsed.month:02d}", "dd": f"{parsed.day:02d}"}
    return separator.join(parts[f] for f in fields)


# A description's time format: "HH:MM", "hh:mm:ss", with "AM/PM" (or "12-hour") for a clock
# of twelve hours.
_TIME_FORMAT = re.compile(r"\bhh?:mm(:ss)?\b", re.IGNORECASE)
_TWELVE_HOURS = re.compile(r"\bam\s*/\s*pm\b|\b12[- ]hour", re.IGNORECASE)
_WRITTEN_TIME = re.compile(
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?(?::(?P<second>\d{2}))?\s*"
    r"(?P<half>[ap]\.?\s?m\.?)?",
    re.IGNORECASE,
)


def time_as_described(written: str, description: str) -> str | None:
    """A time of day ("7pm", "7:30 pm", "19:00") in the format ``description`` names.

    None when the description names no time format or ``written`` is no time of day.
    """
    wanted = _TIME_FORMAT.search(description)
    if wanted is None:
        return None
    read = _WRITTEN_TIME.fullmatch(written.strip())
    if read is None or (read.group("minute") is None and read.group("half") is None):
        return None
    hour, minute = int(read.group("hour")), int(read.group("minute") or 0)
    second = int(read.group("second") or 0)
    half = (read.group("half") or "").lower().replace(".", "").replace(" ", "")
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    seconds = f":{second:02d}" if wanted.group(1) else ""
    if _TWELVE_HOURS.search(description):
        return f"{(hour % 12) or 12:02d}:{minute:02d}{seconds} {'PM' if hour >= 12 else 'AM'}"
    return f"{hour:02d}:{minute:02d}{seconds}"


# A description asking for a date with its time of day: "ISO-8601 ... 'YYYY-MM-DDTHH:MM:SS'".
_DATETIME_FORMAT = re.compile(r"yyyy-mm-dd[T ]hh:mm(?::ss)?(?P<zone>z)?", re.IGNORECASE)
_DATETIME_EXAMPLE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?(?P<zone>Z)?")
# "Start date and time, ISO 8601", "datetime in ISO-8601 format": both in one ISO value.
_DATETIME_WORDS = re.compile(
    r"(?=.*\biso[\s-]?8601\b)(?=.*\b(?:date\s*(?:and|&|/)\s*time|date-?time|time)\b)"
    r"(?P<zone>(?!))?",
    re.IGNORECASE | re.DOTALL,
)


def datetime_as_described(day: str, time_of_day: str, description: str) -> str | None:
    """A date and a time of day said apart ("November 1, 2023", "4pm") as one datetime.

    Only when ``description`` asks for both in one value, ISO-8601 style ("YYYY-MM-DDTHH:MM:SS",
    or an example such as "2023-04-15T13:45:00Z"; a trailing "Z" when it shows one; or "date
    and time, ISO 8601" in words). None when
    it does not, or either part is no whole date or time.
    """
    wanted = (_DATETIME_FORMAT.search(description) or _DATETIME_EXAMPLE.search(description)
              or _DATETIME_WORDS.match(description))
    if wanted is None:
        return None
    parsed = parse_written_date(day)
    clock = time_as_described(time_of_day, "HH:MM:SS")
    if parsed is None or clock is None:
        return None
    return f"{parsed.isoformat()}T{clock}{'Z' if wanted.group('zone') else ''}"
