"""State, input and output schemas of the zspace graph, and their reducers.

State holds plain data only (primitives, TypedDict records, messages): a pydantic object in a
checkpoint is a future deserialization failure. Every key that parallel branches write has a
reducer.
"""

from __future__ import annotations

import functools
import types
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from langgraph.types import Overwrite
from typing_extensions import TypedDict, is_typeddict

from stores.execution.executor import ToolCallResult

Action = Literal["direct_answer", "clarify_intent", "retrieve_api", "call_api"]


class Entities(TypedDict):
    """Values found in a request.

    ``named`` maps parameter-like names to values ("account 123456" gives
    ``{"account": "123456"}``); the planner binds required arguments from it by parameter
    name (``account`` fills ``account_number``, ``order`` fills ``order_id``).
    """

    ids: list[str]
    numbers: list[float]
    quoted: list[str]
    pairs: dict[str, str]
    dates: list[str]
    amounts: list[dict[str, Any]]
    named: dict[str, Any]


class SubIntent(TypedDict):
    """One node of the intent tree: one thing the user wants done."""

    id: str
    text: str
    operation: str
    target: str
    keywords: list[str]
    entities: dict[str, Any]
    depends_on: list[str]
    action: Action
    answer: NotRequired[str | None]
    question: NotRequired[str | None]
    after: NotRequired[list[str]]


class FollowUp(TypedDict):
    """How a follow-up request was read against earlier turns (``nodes.memory``).

    ``kind`` is ``reference`` ("cancel that order": ``bindings`` maps the entity names it
    added, e.g. ``order_id``, to earlier outputs) or ``repeat`` ("do the same for account
    654321": ``request`` is the earlier request with the new entities substituted).
    """

    kind: Literal["reference", "repeat"]
    from_turn: int
    said: str
    request: str
    bindings: dict[str, Any]


class Intent(TypedDict):
    """The structured intent of a request (Z-Space's intent parsing output)."""

    request: str
    category: str
    operation: str
    target: str
    keywords: list[str]
    entities: Entities
    sub_intents: list[SubIntent]
    parser: str
    output_format: NotRequired[str | None]
    follow_up: NotRequired[FollowUp | None]


class TurnMemory(TypedDict):
    """What later turns of a thread may refer to: one finished turn, compactly."""

    turn: int
    request: str
    category: str
    operations: list[str]
    targets: list[str]
    entities: dict[str, Any]
    outputs: dict[str, Any]
    answer: str


class Candidate(TypedDict):
    """A retrieved tool for a sub-intent."""

    tool_id: str
    agent: str
    score: float
    call_name: str


class ArgSource(TypedDict, total=False):
    """Where a planned call's argument comes from: a literal, or another call's output."""

    value: Any
    from_call: str
    field: str
    origin: str


class PlannedCall(TypedDict):
    """A node of the plan DAG."""

    call_id: str
    sub_intent_id: str
    tool_id: str
    role: Literal["core", "auxiliary"]
    args: dict[str, ArgSource]
    depends_on: list[str]
    side_effect: bool


# What happened when a planned call ran: the executor's plain result record, as it is.
CallResult = ToolCallResult


def merge_by_key(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer for records keyed by id: later writes win per key, other keys are kept.

    Parallel ``Send`` branches each write their own call id, so no result is lost; a value of
    ``None`` deletes its key (how a retry clears a failed call).
    """
    merged = dict(left or {})
    for key, value in (right or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def add_lists(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer that appends (a log of earlier attempts)."""
    return [*(left or []), *(right or [])]


def add_numbers(left: int | None, right: int | None) -> int:
    """Reducer that sums counters written by parallel branches."""
    return (left or 0) + (right or 0)


class InputState(TypedDict, total=False):
    """What a caller gives: chat ``messages`` (last human message is the request) or ``request``."""

    messages: Annotated[list[AnyMessage], add_messages]
    request: str


class OutputState(TypedDict, total=False):
    """What a caller gets back."""

    messages: Annotated[list[AnyMessage], add_messages]
    answer: str
    intent: Intent
    plan: list[PlannedCall]
    results: Annotated[dict[str, CallResult], merge_by_key]
    token_ledger: dict[str, Any]
    gaps: list[str]


class ZState(InputState, OutputState, total=False):
    """The whole state of one run.

    Every key is per-turn (a new request starts it afresh, see `fresh_turn`) except the
    thread's own keys, `THREAD_KEYS`.
    """

    run_id: str
    candidates: dict[str, list[Candidate]]
    # Tools that rank among a sub-intent's best but the run's environment policy refuses:
    # never called, only named when they fit better than anything callable (the fix is one
    # line of config).
    policy_refused: dict[str, list[Candidate]]
    agent_ranking: dict[str, list[str]]
    retrieval_rounds: int
    alignment_rounds: int
    clarifications: dict[str, Any]
    pending_question: dict[str, Any] | None
    retry_subintents: list[str]
    retry_effects: dict[str, bool]
    decisions: dict[str, dict[str, Any]]
    excluded_tools: dict[str, list[str]]
    approvals: dict[str, bool]
    awaiting_approval: list[str]
    awaiting_reconcile: list[str]
    reconciled: list[str]
    history: Annotated[list[CallResult], add_lists]
    planner_transcript: list[dict[str, Any]]
    planner_done: bool
    model_answer: str
    turn: int
    memory: list[TurnMemory]


THREAD_KEYS = frozenset({"messages", "turn", "memory"})
"""Keys of `ZState` that live across the turns of a thread; every other key is per-turn."""


@functools.cache
def _per_turn_hints() -> tuple[tuple[str, Any], ...]:
    hints = get_type_hints(ZState, include_extras=True)
    return tuple((key, hint) for key, hint in hints.items() if key not in THREAD_KEYS)


def _empty(key: str, hint: Any) -> Any:
    """The value of ``key`` before anything in a turn wrote it, derived from its type."""
    origin = get_origin(hint)
    if origin is Annotated:
        inner, *metadata = get_args(hint)
        value = _empty(key, inner)
        # A key with a reducer would merge the reset into the old value: replace it instead.
        return Overwrite(value) if any(callable(m) for m in metadata) else value
    if origin in (Union, types.UnionType) and type(None) in get_args(hint):
        return None
    if origin is list:
        return []
    if origin is dict:
        return {}
    if hint in (str, int, float, bool):
        return hint()
    if is_typeddict(hint):
        return None  # a record of the turn (the intent): none yet
    raise TypeError(
        f"ZState key {key!r} has type {hint!r}, which has no empty value: give it a list, "
        "dict, scalar or optional type, or add it to THREAD_KEYS if it outlives a turn"
    )


def fresh_turn() -> dict[str, Any]:
    """The reset value of every per-turn key of `ZState` (all but `THREAD_KEYS`).

    Derived from the state declaration, so a key added to `ZState` is reset with the others:
    empty lists, dicts and strings, zero counters, None for optional values and records, and
    ``Overwrite`` for keys with a reducer. ``parse_intent`` starts each turn with it.
    """
    return {key: _empty(key, hint) for key, hint in _per_turn_hints()}


def answered_directly(state: ZState, sub: SubIntent) -> bool:
    """Whether the sub-intent is answered without a tool.

    By the parser (a greeting), or by the planner when no tool of the catalog does what it
    asks and it has an answer of its own ("what's 2 plus 2" with no calculator tool).
    """
    if sub["action"] == "direct_answer":
        return True
    decision = (state.get("decisions") or {}).get(sub["id"]) or {}
    return decision.get("action") == "direct_answer"
