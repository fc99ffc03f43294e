"""Values the schema binder derives from others the request gave.

The end date of a stay said by its start and its length (:func:`end_of_stay`: "for 3 nights
starting from 1st June 2022"), and the language a text given is written in
(:func:`language_of_the_text`), each for a parameter that asks for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from nodes.planning.descriptions import asks_date_form
from nodes.planning.param_fit import DATE_WORDS, Param
from nodes.planning.request_spans import Span
from nodes.planning.value_cues import head_word
from stores.language.date_formats import date_as_described, parse_written_date
from stores.language.detect import written_language
from stores.language.identifiers import singular, split_words

__all__ = ["end_of_stay", "language_of_the_text", "path_of_the_named"]

# "a directory called backups in /srv", "a file named todo.txt inside ~/notes": the thing
# named and where it goes.
_NAMED_INSIDE = re.compile(
    r"\b(?:file|folder|directory|dir)\s+(?:called|named)\s+['\"]?(?P<name>[\w.\-]+)['\"]?"
    r"\s+(?:in|inside|under|within|at)\s+(?:the\s+(?:folder|directory)\s+)?(?P<where>\S+)",
    re.I,
)
_PATH_PARAMS = frozenset({"path", "file", "filepath", "filename", "dir", "directory", "folder"})


# A description that asks for the language of the text given, not one to put it into.
_TEXTS_LANGUAGE = re.compile(
    r"\b(?:(?:is|was)\s+written|written\s+in|language\s+of\s+the\s+(?:text|input|message|"
    r"document|content)|source\s+language|input\s+language)\b",
    re.I,
)


def path_of_the_named(text: str, params: Sequence[Param], values: dict[str, list[Any]]) -> None:
    """The path of a file or folder said by its name and where it goes.

    "Create a directory called backups in /srv" for ``create_directory(path)``: the one path
    parameter took "/srv" (or "backups"); the directory is /srv/backups. Only when the
    parameter's name says it is a path and no other parameter took the name or the place.
    """
    match = _NAMED_INSIDE.search(text)
    if match is None:
        return
    name, where = match.group("name"), match.group("where").rstrip(".,;!?")
    holders = [p for p in params
               if p.name_words & _PATH_PARAMS and values.get(p.name) in ([where], [name])]
    if len(holders) != 1:
        return
    others = [v for key, found in values.items() if key != holders[0].name for v in found]
    if name not in (str(v) for v in others) and where not in (str(v) for v in others):
        values[holders[0].name] = [f"{where.rstrip('/')}/{name}"]


def language_of_the_text(
    params: Sequence[Param], values: dict[str, list[Any]], evidence: dict[str, float]
) -> None:
    """A required language of the text the request gives, read from that text.

    "Analyze the sentiment of a customer review 'I love the food here!'" for ``language``
    ("The language in which the text is written"): English. Only for a description that
    asks for the text's own language, and a text of three words or more already bound.
    """
    wanted = [p for p in params if p.required and p.name not in values and p.kind == "string"
              and head_word(p.name) in {"language", "lang"}
              and _TEXTS_LANGUAGE.search(str(p.schema.get("description") or ""))]
    texts = [str(v) for given in values.values() for v in given
             if isinstance(v, str) and len(v.split()) >= 3]
    if len(wanted) != 1 or len(texts) != 1:
        return
    language = written_language(texts[0])
    if language is not None and " " not in language:
        values[wanted[0].name], evidence[wanted[0].name] = [language], 1.0


_STARTS = frozenset({"start", "begin", "from", "arrival", "checkin", "departure"})
_ENDS = frozenset({"end", "until", "to", "checkout", "return"})
_STAY_DAYS = {"night": 1, "day": 1, "week": 7}


def end_of_stay(
    found: Sequence[Span],
    params: Sequence[Param],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
) -> None:
    """The end date of a stay said by its start and its length, when no end is said.

    "Book the Plaza Hotel for 3 nights starting from 1st June 2022" for ``start_date`` and
    ``end_date``: the end is 4 June. Only a pair of date parameters (named for a start and
    an end, or check-in and check-out), one start day bound, one length in nights, days or
    weeks said, and the end asked in the start's written form or the format its description
    names.
    """
    def words(param: Param) -> set[str]:
        said = set(split_words(param.name.lower()))
        return said | ({"checkin"} if {"check", "in"} <= said else set()) | (
            {"checkout"} if {"check", "out"} <= said else set())

    dated = [p for p in params if p.kind == "string" and (
        p.name_words & DATE_WORDS or asks_date_form(p.schema) or words(p) & {"checkin",
                                                                                "checkout"})]
    starts = [p for p in dated if words(p) & _STARTS and not words(p) & _ENDS]
    ends = [p for p in dated if words(p) & _ENDS and not words(p) & _STARTS]
    if len(starts) != 1 or len(ends) != 1 or ends[0].name in values:
        return
    begun = values.get(starts[0].name)
    lengths = [span for span in found if span.kind == "number" and isinstance(span.value, int)
               and singular(str(span.unit or "").lower()) in _STAY_DAYS]
    if not begun or len(begun) != 1 or len(lengths) != 1:
        return
    first = parse_written_date(str(begun[0]))
    if first is None:
        return
    stay = lengths[0]
    last = first + timedelta(days=int(stay.value) * _STAY_DAYS[singular(str(stay.unit).lower())])
    written = str(begun[0])
    described = date_as_described(last.isoformat(), str(ends[0].schema.get("description") or ""))
    if described is None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", written):
        return  # the start's own form is not one to write the end in
    values[ends[0].name] = [described or last.isoformat()]
    evidence[ends[0].name] = 1.0
