"""Values said as alternatives: "at 7pm or 8pm" asks for one of them, not for both.

A read may be made for each ("Is it warmer in Oslo or in Rome?" compares two answers); a call
that writes is made once, and which value it takes is the user's to say: "Book a table at
7pm or 8pm" books one table. The planner asks which instead of repeating the write.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nodes.planning.request_spans import extract_spans
from nodes.state import PlannedCall

_OR = re.compile(r"\bor\b", re.I)
_AND = re.compile(r"\band\b|&|\bas\s+well\s+as\b", re.I)


def said_alternatives(text: str, cores: Sequence[PlannedCall]) -> tuple[str, list[Any]] | None:
    """The parameter the calls differ in and its values, when the clause says them with "or".

    ``cores`` are one clause's repeated calls of one tool. The clause must hold one list
    of as many items as there are calls, joined by "or" (and commas) with no "and"; the calls
    must differ in one parameter only. None otherwise.
    """
    if len(cores) < 2:
        return None
    names = {name for core in cores for name in core["args"]}
    differing = [
        name for name in sorted(names)
        if len({repr(core["args"].get(name, {}).get("value")) for core in cores}) > 1
    ]
    if len(differing) != 1:
        return None
    either = []
    for span in extract_spans(text):
        if span.kind != "list" or len(span.items) != len(cores):
            continue
        joints = " ".join(text[a.end : b.start] for a, b in zip(span.items, span.items[1:],
                                                                 strict=False))
        if _OR.search(joints) and not _AND.search(joints):
            either.append(span)
    if len(either) != 1:
        return None
    param = differing[0]
    return param, [core["args"][param]["value"] for core in cores]


def alternatives_question(spec_id: str, param: str, options: Sequence[Any]) -> str:
    """The question that asks which of the values said as alternatives a write takes."""
    said = " or ".join(
        f"{option:g}" if isinstance(option, float) else repr(option) for option in options
    )
    return (
        f"Which '{param}' should {spec_id} use: {said}? The request gives both, and a call "
        "that changes data is made once."
    )
