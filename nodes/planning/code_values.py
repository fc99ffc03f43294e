"""Codes a parameter's description explains: "'1' represents cleaning service, '2' ironing".

Many APIs take a number or a short code for something users name in words, and say in the
description what each code stands for ("For example, 1 represents Bangkok, 2 for Chiang Mai").
:func:`described_codes` reads that table from the description (two codes at least: one number
said "for" something is no table); :func:`code_said` finds the code whose meaning the request
says. Words every meaning shares ("service") tell none apart and count for nothing; every
other word of a meaning must be said, and of several meanings said the one that says most wins
("extensive cleaning" over "cleaning"). Nothing here knows a domain: the table is the schema's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz import fuzz

from nodes.planning.param_fit import Param, content_words

# A code ('1', "A", 3) and what it stands for, up to the next comma, stop or "and".
_ENTRY = re.compile(
    r"(?:'(?P<single>\w{1,12})'|\"(?P<double>\w{1,12})\"|(?<![\w.'\"])(?P<number>\d{1,6})(?![\w.]))"
    r"\s*(?:represents|means|stands\s+for|is\s+for|for|=|:)\s+"
    r"(?P<meaning>['\"]?[A-Za-z][A-Za-z '\-]{0,60}?['\"]?)"
    r"(?=\s*(?:[,;.()]|\band\b|\bor\b|$))",
    re.I,
)
_MAX_MEANING_WORDS = 5


@lru_cache(maxsize=4096)
def described_codes(description: str) -> tuple[tuple[str, str], ...]:
    """The ``(code, meaning)`` pairs a description explains, or () when it explains fewer than 2."""
    found: dict[str, str] = {}
    for match in _ENTRY.finditer(description):
        code = match.group("single") or match.group("double") or match.group("number")
        meaning = match.group("meaning").strip(" '\"")
        if not meaning or len(meaning.split()) > _MAX_MEANING_WORDS:
            continue
        found.setdefault(code, meaning)
    return tuple(found.items()) if len(found) >= 2 else ()


def _said(word: str, words: set[str]) -> bool:
    return word in words or (
        len(word) > 4 and any(len(w) > 4 and fuzz.ratio(word, w) >= 85 for w in words)
    )


def code_said(text: str, param: Param) -> tuple[str, str] | None:
    """The ``(code, meaning)`` of ``param``'s description the request says, or None."""
    table = described_codes(str(param.schema.get("description") or ""))
    if not table:
        return None
    meanings = [content_words(meaning) for _, meaning in table]
    shared = set.intersection(*meanings) if meanings else set()
    said = content_words(text)
    best: tuple[int, tuple[str, str]] | None = None
    for entry, words in zip(table, meanings, strict=True):
        telling = words - shared
        if not telling or not all(_said(word, said) for word in telling):
            continue
        if best is None or len(telling) > best[0]:
            best = (len(telling), entry)
    return best[1] if best is not None else None
