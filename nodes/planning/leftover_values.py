"""The one number of a clause nothing else took, for the tool's one free numeric slot.

"top up by 5": a number said bare goes to the one required numeric parameter still empty, or
to an amount-like slot the domain vocabulary names (``numeric_slots``), when it is the only
number of the clause not already given to another parameter, and a number the request says
as one ("9.8 m/s^2" holds no 2 of its own).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from nodes.planning.binding import (
    coerce_to_schema,
    identified_object,
    required_params,
    schema_properties,
)
from nodes.planning.request_spans import extract_spans
from nodes.state import ArgSource, SubIntent
from stores.catalog.model import ToolSpec
from stores.language.entities import extract_entities
from stores.language.lexicon import Lexicon


def bind_leftover_number(
    sub: SubIntent,
    spec: ToolSpec,
    args: dict[str, ArgSource],
    numeric_slots: Iterable[str],
    lexicon: Lexicon,
) -> None:
    """Give the one bare number of a clause to the tool's one free amount-like slot."""
    properties = schema_properties(spec)
    required = [
        p
        for p in required_params(spec)
        if p not in args
        and not identified_object(p)  # an id is never a bare number's guess
        and _is_numeric(properties.get(p, {}))
    ]
    slots = required or [
        p
        for p in properties
        if p in numeric_slots and p not in args and _is_numeric(properties[p])
    ]
    if not slots or len(required) > 1:
        return
    entities = extract_entities(sub["text"], lexicon)
    named = [*(sub.get("entities") or {}).values(), *entities["named"].values()]
    # A number already given to another parameter of the call is no leftover.
    named += [source.get("value") for source in args.values()]
    taken = {number for number in (_as_float(v) for v in named) if number is not None}
    leftovers = [float(n) for n in entities["numbers"]]
    leftovers += [float(a["value"]) for a in entities["amounts"]]
    # Only a number said as one ("9.8 m/s^2" holds no 2 of its own).
    said = {float(span.value) for span in extract_spans(sub["text"])
            if span.kind in {"number", "money", "percent"}
            and isinstance(span.value, int | float) and not isinstance(span.value, bool)}
    free = list(dict.fromkeys(n for n in leftovers if n not in taken and n in said))
    if len(free) == 1:
        args[slots[0]] = {
            "value": coerce_to_schema(free[0], properties[slots[0]]),
            "origin": "text",
        }


def _is_numeric(schema: Mapping[str, Any]) -> bool:
    kinds = {schema.get("type")} | {
        option.get("type") for option in schema.get("anyOf") or [] if isinstance(option, dict)
    }
    return bool(kinds & {"number", "integer"})


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
