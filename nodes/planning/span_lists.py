"""Values said together as lists: "Paris, Rome and Oslo", "3 and 4, 5 and 12".

The span reader's last step (:func:`nodes.planning.request_spans.extract_spans`): runs of
spans of one kind joined by commas, "and", "or", "as well as" or "vs" (numbers by "plus"
too) become one list span
holding its items; two names joined by a comma alone are one place ("Boston, MA"); "A and B,
C and D" are pairs.
"""

from __future__ import annotations

import re

from stores.language.spans import Span

_LIST_JOINERS = re.compile(
    r"^\s*(?:,\s*(?:and|or|&)?|and|or|&|as\s+well\s+as|vs\.?|versus)(?:\s+the)?\s*$", re.I
)

# "133 plus 34 plus 12": numbers added up are said as a list of them.
_SUMMED = re.compile(r"\s*(?:plus|\+)\s*", re.I)


def group_lists(text: str, atoms: list[Span]) -> list[Span]:
    """Join runs of same-kind spans separated by ", " / "and" / "or" into list spans."""
    grouped: list[Span] = []
    index = 0
    while index < len(atoms):
        run = [atoms[index]]
        stop = index + 1
        while stop < len(atoms):
            gap = text[run[-1].end : atoms[stop].start]
            summed = run[0].kind == "number" and _SUMMED.fullmatch(gap) is not None
            if _compatible(run[0], atoms[stop]) and (_LIST_JOINERS.match(gap) or summed):
                run.append(atoms[stop])
                stop += 1
            else:
                break
        joined = " ".join(text[a.end : b.start] for a, b in zip(run, run[1:], strict=False))
        if len(run) == 2 and run[0].kind == "name" and not re.search(r"\b(?:and|or)\b|&", joined):
            # "Chicago, Illinois" and "Boston, MA" are one place, written as the user wrote it.
            place = text[run[0].start : run[1].end]
            if " " not in str(run[1].value).strip():
                grouped.append(
                    Span("name", place, place, run[0].start, run[1].end, items=tuple(run))
                )
                index = stop
                continue
            run = run[:1]
            stop = index + 1
        pairs = _pairs_said(text, run)
        if pairs:
            # "3 and 4, 5 and 12": two pairs, not one list of four.
            grouped.extend(
                Span("list", [s.value for s in pair], text[pair[0].start : pair[-1].end],
                     pair[0].start, pair[-1].end, items=tuple(pair))
                for pair in pairs
            )
        elif len(run) > 1:
            grouped.append(
                Span(
                    "list",
                    [s.value for s in run],
                    text[run[0].start : run[-1].end],
                    run[0].start,
                    run[-1].end,
                    items=tuple(run),
                )
            )
        else:
            grouped.append(run[0])
        index = stop
    return grouped


def _pairs_said(text: str, run: list[Span]) -> list[list[Span]]:
    """Groups of a run said "A and B, C and D": "and" inside each, commas between; [] else."""
    if len(run) < 4:
        return []
    groups: list[list[Span]] = [[run[0]]]
    for before, item in zip(run, run[1:], strict=False):
        gap = text[before.end : item.start]
        if "," in gap:
            groups.append([item])
        elif re.fullmatch(r"\s*(?:and|or|&)\s*", gap, re.I):
            groups[-1].append(item)
        else:
            return []
    sizes = {len(group) for group in groups}
    return groups if len(groups) > 1 and len(sizes) == 1 and sizes != {1} else []


def _compatible(first: Span, other: Span) -> bool:
    if first.kind != other.kind or first.kind in {"keyvalue", "json"}:
        return False
    if first.kind == "number" and first.unit and other.unit:
        units = {first.unit.lower(), other.unit.lower()}
        return len(units) == 1 or units <= _ORDINAL_ENDINGS  # "2nd, 3rd and 4th"
    return True


_ORDINAL_ENDINGS = frozenset({"st", "nd", "rd", "th"})
