"""Array parameters: a list said whole, bracketed lists, a range, a lower-case list.

The schema binder's second pass (:func:`bind_arrays`, after the values named outright): an
array parameter takes a whole list span or a bracketed list ("data: [12, 15, 18]"); several
bracketed lists for the one array parameter are one argument set each ("the first set is
[1, 2], the second [3, 4]"); "from 2015 to 2021" or "between x = -1 and x = 2" is an array of
its two ends; a required list of strings with no list said takes the one lower-case list the
request says ("a lunch that uses chicken and mushrooms"). A text parameter that carries a
comma-separated list takes the values said as one (:func:`delimited_list_said`,
:func:`join_delimited`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nodes.planning.descriptions import list_delimiter
from nodes.planning.param_fit import Param, cue_score, type_fit
from nodes.planning.param_values import coerce
from nodes.planning.request_spans import RANGE_JOIN, Span
from nodes.planning.value_forms import lower_case_lists

__all__ = ["bind_arrays", "delimited_list_said", "join_delimited"]


def bind_arrays(
    text: str,
    found: Sequence[Span],
    atoms: Sequence[tuple[Span, int]],
    params: Sequence[Param],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
    used: set[int],
) -> None:
    """Fill the array parameters ``values`` lacks; the atoms they take go into ``used``."""
    for param in params:
        if param.name in values or param.kind != "array":
            continue
        best_group: tuple[float, list[int]] | None = None
        for group, span in enumerate(found):
            if span.kind == "json" and isinstance(span.value, list):
                members = [i for i, (s, _) in enumerate(atoms) if s is span]
            elif span.kind == "list":
                members = [i for i, (_, g) in enumerate(atoms) if g == group]
            else:
                continue
            if any(i in used for i in members):
                continue
            fit = min(type_fit(atoms[i][0], param) if span.kind == "list" else 1.0 for i in members)
            if fit <= 0.3:
                continue
            score = fit + cue_score(text, span, param)
            if best_group is None or score > best_group[0]:
                best_group = (score, members)
        lists = _json_lists(atoms, found, used, param)
        if len(lists) > 1 and sum(p.kind == "array" and p.name not in values
                                  for p in params) == 1:
            # "the first set is [1, 2], the second [3, 4]": one call per list.
            values[param.name] = [_items_as(atoms[i][0].value, param) for i in lists]
            evidence[param.name] = 1.0
            used.update(lists)
        elif best_group is None and (ends := _range_ends(text, atoms, used, param)):
            # "from 2015 to 2021", "between x = -1 and x = 2": the range is the two ends.
            values[param.name] = [[coerce(atoms[i][0].value, param) for i in ends]]
            evidence[param.name] = 1.0
            used.update(ends)
        elif best_group is not None:
            members = best_group[1]
            first = atoms[members[0]][0]
            if first.kind == "json":
                values[param.name] = [_items_as(first.value, param)]
            else:
                values[param.name] = [[coerce(atoms[i][0].value, param) for i in members]]
            evidence[param.name] = best_group[0]
            used.update(members)
    # A required list of strings with no list of values said takes the one lower-case list
    # the request says ("a lunch that uses chicken and mushrooms"), before a lone name could
    # stand for it ("tomatoes and lettuce at the Whole Foods"); with two lists it is asked for.
    wanted = [p for p in params if p.name not in values and p.required
              and p.kind == "array" and p.item_kind == "string" and not p.enum]
    said = lower_case_lists(text) if len(wanted) == 1 else []
    if len(said) == 1:
        values[wanted[0].name], evidence[wanted[0].name] = [said[0]], 1.0
        return
    # An optional one takes the one list said right after "with" ("a large pizza with
    # pepperoni and mushrooms" for toppings): the things the request adds to its object.
    optional = [p for p in params if p.name not in values and not p.required
                and p.kind == "array" and p.item_kind == "string" and not p.enum]
    said = lower_case_lists(text) if len(optional) == 1 and not wanted else []
    if len(said) == 1 and _WITH.search(text[: text.find(said[0][0])]):
        values[optional[0].name], evidence[optional[0].name] = [said[0]], 1.0


_WITH = re.compile(r"\b(?:with|including)\s+(?:(?:a|an|some|extra)\s+)?$", re.I)


_RANGE_START = re.compile(r"\b(?:from|between)\s*$", re.I)


def _range_ends(
    text: str, atoms: Sequence[tuple[Span, int]], used: set[int], param: Param
) -> list[int]:
    """An array of numbers' two ends, said "from A to B" or "between A and B".

    [] when the text says no such range or more than one.
    """
    if param.item_kind not in {"integer", "number"}:
        return []
    numeric = [i for i, (span, group) in enumerate(atoms)
               if i not in used and group < 0 and span.kind in {"number", "keyvalue"}
               and isinstance(span.value, int | float) and not isinstance(span.value, bool)]
    found = [
        [first, second] for first, second in zip(numeric, numeric[1:], strict=False)
        if _RANGE_START.search(text[: atoms[first][0].start])
        and RANGE_JOIN.fullmatch(text[atoms[first][0].end : atoms[second][0].start])
        and atoms[first][0].key == atoms[second][0].key
    ]
    return found[0] if len(found) == 1 else []


def _items_as(items: Sequence[Any], param: Param) -> list[Any]:
    """A bracketed list's items in the array's item type ("[12, 15]" of floats: 12.0, 15.0)."""
    return [item if isinstance(item, list | dict) else coerce(item, param) for item in items]


def _json_lists(
    atoms: Sequence[tuple[Span, int]], found: Sequence[Span], used: set[int], param: Param
) -> list[int]:
    """The free bracketed lists whose items all fit the array parameter, in the order said."""
    kinds = {"integer": int, "number": int | float, "string": str}
    wanted = kinds.get(param.item_kind)
    return [
        index for index, (span, _) in enumerate(atoms)
        if index not in used and span in found and span.kind == "json"
        and isinstance(span.value, list) and span.value
        and (wanted is None or all(isinstance(item, wanted) and not isinstance(item, bool)
                                   for item in span.value))
    ]


def delimited_list_said(
    text: str, params: Sequence[Param], values: dict[str, list[Any]],
    evidence: dict[str, float],
) -> None:
    """The one lower-case list said, joined, for the one text parameter that carries a list.

    "Tag the photo with beach, sunset and family" for tags described as "separated by
    commas": "beach, sunset, family" (:func:`~nodes.planning.descriptions.list_delimiter`).
    """
    delimiters = {p.name: list_delimiter(str(p.schema.get("description") or ""))
                  for p in params if p.name not in values and p.kind == "string" and not p.enum}
    carrying = [name for name, delimiter in delimiters.items() if delimiter is not None]
    lists_said = lower_case_lists(text) if len(carrying) == 1 else []
    if len(lists_said) == 1:
        name = carrying[0]
        values[name], evidence[name] = [(delimiters[name] or ", ").join(lists_said[0])], 1.0


def join_delimited(values: dict[str, list[Any]], params: Sequence[Param]) -> None:
    """Several values of a text parameter that carries a delimited list are one value.

    "Find Italian and Mexican restaurants" for a cuisine described as a "comma-separated
    list": one call with "Italian,Mexican" (:func:`~nodes.planning.descriptions.list_delimiter`),
    not a call per cuisine.
    """
    for param in params:
        given = values.get(param.name)
        if param.kind != "string" or param.enum or not given or len(given) < 2:
            continue
        delimiter = list_delimiter(str(param.schema.get("description") or ""))
        if delimiter is not None and all(isinstance(v, str) for v in given):
            values[param.name] = [delimiter.join(dict.fromkeys(given))]
