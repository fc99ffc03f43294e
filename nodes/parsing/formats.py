"""Output-format phrases in a request: "as a table", "in JSON", "as a summary"."""

from __future__ import annotations

import re

_FORMATS: list[tuple[str, re.Pattern[str]]] = [
    (
        "md",
        re.compile(
            r"\b(?:as|in|into)\s+(?:a\s+)?(?:markdown\s+|md\s+)?table\b|\btable\s+format\b|"
            r"\btabular(?:\s+form(?:at)?)?\b|\b(?:as|in)\s+markdown\b",
            re.I,
        ),
    ),
    ("json", re.compile(r"\b(?:as|in|into)\s+(?:a\s+)?json\b|\bjson\s+format\b", re.I)),
    (
        "text",
        re.compile(
            r"\b(?:as|in)\s+(?:a\s+)?(?:short\s+|brief\s+|plain\s+)?(?:summary|text|prose|"
            r"paragraph|sentences?)\b|\bin\s+plain\s+(?:english|words)\b",
            re.I,
        ),
    ),
]
_FORMAT_LEAD = re.compile(
    r"(?:,?\s*(?:and\s+)?(?:then\s+)?(?:please\s+)?(?:show|give|return|display|present|output|"
    r"format|print|list|send|report|put)\s+(?:me\s+)?(?:it|them|those|the\s+results?|the\s+"
    r"output|everything|the\s+data|all\s+of\s+(?:it|them))?\s*(?:to\s+me\s+)?)?$",
    re.I,
)


def detect_output_format(text: str) -> tuple[str | None, str]:
    """Find "as a table" / "in JSON" / "as a summary"; return the format and the text without it."""
    for name, pattern in _FORMATS:
        match = pattern.search(text)
        if match is None:
            continue
        before = text[: match.start()]
        lead = _FORMAT_LEAD.search(before)
        cut = lead.start() if lead is not None and lead.group().strip() else match.start()
        remainder = (text[:cut].rstrip(" ,") + " " + text[match.end() :].lstrip(" ,")).strip()
        return name, remainder
    if re.search(r"\bsummari[sz]e\b", text, re.I):
        return "text", text
    return None, text
