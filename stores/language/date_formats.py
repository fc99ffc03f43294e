"""Dates written in the order a parameter's description asks for ("MM-DD-YYYY").

A description may name the format of a date in letters ("yyyy-mm-dd", "MM/DD/YYYY") or in
words ("(month-day-year)"); a date the user wrote in any common form ("2022/08/16", "July 10,
2022", "March 10th, 2023") is rewritten in that order. Without a format in the description a
date stays as it was written (or read).
"""

from __future__ import annotations

import re
from datetime import date, datetime

_FIELD = r"(yyyy|mm|dd|year|month|day)"
_DATE_FORMAT = re.compile(rf"\b{_FIELD}([-/.]){_FIELD}\2{_FIELD}\b", re.IGNORECASE)
_WORD_FIELD = {"year": "yyyy", "month": "mm", "day": "dd"}


def described_date_format(description: str) -> tuple[list[str], str] | None:
    """The order of the fields (``["mm", "dd", "yyyy"]``) and their separator, or None."""
    wanted = _DATE_FORMAT.search(description)
    if wanted is None:
        return None
    fields = [_WORD_FIELD.get(f.lower(), f.lower()) for f in wanted.group(1, 3, 4)]
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
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text)
    for pattern in ("%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d %B %Y", "%b. %d, %Y"):
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
    parts = {"yyyy": f"{parsed.year:04d}", "mm": f"{parsed.month:02d}", "dd": f"{parsed.day:02d}"}
    return separator.join(parts[f] for f in fields)
