"""How one clause's calls relate to the calls other clauses of the request already planned.

A clause said to come after another waits for its calls; a clause whose call another clause
already makes, or only adds an argument to, is covered by it; the question asked for a value
no clause gives, while the clauses that do not need it keep their calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from nodes.planning.binding import schema_properties
from nodes.planning.draft import PlanDraft
from nodes.state import ArgSource, PlannedCall, SubIntent
from stores.catalog.model import Catalog, ToolSpec


def follow_said_steps(sub: SubIntent, core: PlannedCall, draft: PlanDraft) -> None:
    """A clause said to come after another ("then", a numbered step) waits for its calls."""
    for earlier in sub.get("after") or []:
        waited = [c["call_id"] for c in draft.calls if c["sub_intent_id"] == earlier]
        core["depends_on"] = sorted({*core["depends_on"], *waited})


def completes_earlier_call(
    cores: Sequence[PlannedCall], planned: Sequence[PlannedCall]
) -> str | None:
    """Merge a clause's one call into an earlier call of the same tool it only adds to.

    The earlier call must agree on every argument both have; the arguments it lacks are
    added to it. Returns the earlier call's id, or None when there is no such call.
    """
    if len(cores) != 1:
        return None
    core = cores[0]
    for call in reversed(planned):
        if call["role"] != "core" or call["tool_id"] != core["tool_id"]:
            continue
        if call["sub_intent_id"] == core["sub_intent_id"]:
            return None
        shared = set(call["args"]) & set(core["args"])
        extra = set(core["args"]) - set(call["args"])
        if not extra or not shared:
            return None
        if any(source_key(call["args"][p]) != source_key(core["args"][p]) for p in shared):
            return None
        for param in extra:
            call["args"][param] = core["args"][param]
        return str(call["call_id"])
    return None


def source_key(source: ArgSource) -> str:
    """What an argument is, whatever found it: its literal value or the output it reads."""
    if "from_call" in source:
        return f"{source['from_call']}.{source.get('field')}"
    return repr(source.get("value"))


def planned_already(core: PlannedCall, planned: Sequence[PlannedCall]) -> bool:
    """Whether another clause's core call has this tool and these literal arguments."""
    mine = {k: repr(v.get("value")) for k, v in core["args"].items() if "from_call" not in v}
    if len(mine) != len(core["args"]):
        return False
    return any(
        call["role"] == "core"
        and call["tool_id"] == core["tool_id"]
        and call["sub_intent_id"] != core["sub_intent_id"]
        and {k: repr(v.get("value")) for k, v in call["args"].items()} == mine
        for call in planned
    )


def clarifying_question(sub: SubIntent, spec: ToolSpec, param: str) -> str:
    """The question for a value of ``spec`` the clause needs and nobody gave."""
    described = (schema_properties(spec).get(param) or {}).get("description")
    hint = f" ({described})" if described else ""
    return (
        f"To {sub['text'].strip().rstrip('.')!r} I need a value for '{param}'{hint} "
        f"of {spec.id}. What should it be?"
    )


def settle_waiting(
    draft: PlanDraft, waiting: Sequence[tuple[SubIntent, str]], catalog: Catalog
) -> None:
    """Cover, ask for or state the clauses that miss a value, keeping the others' calls.

    A waiting clause whose tool another clause calls is covered by that call ("Can you
    calculate the force in both scenarios?"). For the rest, the first still unasked value
    becomes the plan's question; a value already asked and not given is a gap. The clauses
    that do not need the answer keep their calls, so they run while the user is asked: only
    a clause said to come after an asked one, or referring to it, waits (with every call
    that needs its calls), never one planned on a guessed value.
    """
    called = {c["tool_id"] for c in draft.calls if c["role"] == "core"}
    asked: set[str] = set()
    for sub, tool in waiting:
        if tool in called:
            draft.decide(sub["id"], "covered", tool=tool)
            continue
        param = str((draft.decisions.get(sub["id"]) or {}).get("missing", ["value"])[0])
        if f"{sub['id']}.{param}" in draft.request.clarifications:
            draft.gaps.append(f"{sub['text']}: no usable value for '{param}' of {tool}")
            draft.decide(sub["id"], "gap", tool=tool)
            continue
        asked.add(sub["id"])
        if draft.question is None and tool in catalog.tools:
            draft.question = {
                "sub_intent": sub["id"],
                "param": param,
                "tool_id": tool,
                "question": clarifying_question(sub, catalog.tools[tool], param),
            }
    _hold_what_waits_for(draft, asked)


def _hold_what_waits_for(draft: PlanDraft, asked: set[str]) -> None:
    """Drop the calls of clauses after or about an asked clause, and the calls needing them."""
    held = set(asked)
    for sub in draft.request.intent["sub_intents"]:
        if sub["id"] in held or not held & {*(sub.get("after") or []), *sub["depends_on"]}:
            continue
        held.add(sub["id"])
        waits_for = sorted(held & {*(sub.get("after") or []), *sub["depends_on"]})
        draft.decide(sub["id"], "clarify_intent", waits_for=waits_for)
    dropped = {c["call_id"] for c in draft.calls if c["sub_intent_id"] in held - asked}
    for call in draft.calls:  # in plan order: a call comes after the calls it needs
        if set(call["depends_on"]) & dropped:
            dropped.add(call["call_id"])
    draft.calls[:] = [c for c in draft.calls if c["call_id"] not in dropped]
    for sub_id in held:
        draft.core_by_sub.pop(sub_id, None)
