"""Options said in a clause of their own join the call another clause of the request makes.

Users write the action first and a preference afterwards, in a sentence of its own: "I want
the forecast for Lisbon. Could you give it to me in fahrenheit?", "Fit a model on
sales.csv. Also apply standardization." The later clause names no tool (nothing fits it as
an action) but says a value of an optional parameter of a call the plan already makes: one
of that parameter's enum values, or the name of a boolean flag. Those values are added to
the calls lacking them and the clause is covered by them, instead of ending as a gap or a
new search. A clause that names an object of its own is never taken for an option. Only the
tool's own schema decides (no word lists).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nodes.planning.binding import enum_mentioned, schema_properties
from nodes.planning.draft import PlanDraft
from nodes.planning.param_fit import describe_params
from nodes.planning.param_values import flag_value
from stores.catalog.model import Catalog

# What the decider records for a clause no candidate fits (a gap, or a search again).
_UNFITTED = ("gap", "retrieve_api")


def option_values(text: str, schema: Mapping[str, Any], taken: set[str]) -> dict[str, Any]:
    """Values of the schema's optional parameters (not in ``taken``) that a clause says.

    An enum value written in the clause, or a boolean flag named by it.
    """
    required = set(schema.get("required") or [])
    found: dict[str, Any] = {}
    for param in describe_params(schema):
        if param.name in taken or param.name in required:
            continue
        prop = (schema.get("properties") or {}).get(param.name) or {}
        if prop.get("enum"):
            mentioned = enum_mentioned(text, prop)
            if mentioned is not None:
                found[param.name] = mentioned
        elif prop.get("type") == "boolean":
            flag = flag_value(text, param)
            if flag is not None:
                found[param.name] = flag
    return found


def add_later_options(draft: PlanDraft, catalog: Catalog) -> None:
    """Give each unfitted clause's option values to the core calls lacking them; cover it."""
    cores = [c for c in draft.calls if c["role"] == "core"]
    if not cores:
        return
    for sub in draft.request.intent["sub_intents"]:
        decision = draft.decisions.get(sub["id"]) or {}
        if decision.get("action") not in _UNFITTED or "tool" in decision or sub["target"]:
            # A clause that names an object of its own ("cancel the order") is about that
            # object: its words are no option of another call, and its gap stays said.
            continue
        added: list[str] = []
        for call in cores:
            spec = catalog.tools.get(call["tool_id"])
            if spec is None:
                continue
            schema = {**spec.input_schema, "properties": schema_properties(spec)}
            for param, value in option_values(sub["text"], schema, set(call["args"])).items():
                call["args"][param] = {"value": value, "origin": f"span:{param}"}
                added.append(call["call_id"])
        if not added:
            continue
        prefix = f"{sub['text']}: "
        draft.gaps[:] = [gap for gap in draft.gaps if not gap.startswith(prefix)]
        draft.retrieve_again[:] = [s for s in draft.retrieve_again if s != sub["id"]]
        draft.decide(sub["id"], "covered", completes=added[0])
