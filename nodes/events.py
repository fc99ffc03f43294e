"""Typed custom stream events: what the nodes emit through LangGraph's stream writer.

They live in ``nodes`` so the nodes that emit them can build them typed; ``graph.events``
re-exports them with the contract's documentation and the CLI's rendering.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

EVENT_NAMES = (
    "node_started",
    "intent",
    "candidates",
    "call_started",
    "call_finished",
    "clarification_asked",
    "clarification_answered",
    "approval_asked",
    "reconcile_asked",
    "memory_bound",
    "run_finished",
)


class NodeStarted(TypedDict):
    """A node began (emitted by the nodes that announce themselves)."""

    event: Literal["node_started"]
    node: str
    turn: NotRequired[int]


class SubIntentDigest(TypedDict):
    """One sub-intent as the ``intent`` event shows it."""

    id: str
    text: str
    action: str


class IntentParsed(TypedDict):
    """The request was parsed (``parser`` is ``rules``, ``llm`` or a fallback marker)."""

    event: Literal["intent"]
    parser: str
    sub_intents: list[SubIntentDigest]


class CandidatesRanked(TypedDict):
    """Retrieval kept these tools for a sub-intent (best first)."""

    event: Literal["candidates"]
    sub_intent: str
    query: str
    tools: list[str]


class CallStarted(TypedDict):
    """A planned call is about to run."""

    event: Literal["call_started"]
    call_id: str
    tool_id: str


class CallFinished(TypedDict):
    """A planned call ended (``replayed``: its result came from the call ledger)."""

    event: Literal["call_finished"]
    call_id: str
    status: str
    tool_id: NotRequired[str]
    error: NotRequired[str | None]
    replayed: NotRequired[bool]


class ClarificationAsked(TypedDict):
    """The run stops for a missing value (an interrupt follows)."""

    event: Literal["clarification_asked"]
    sub_intent: str
    param: str
    tool_id: str
    question: str


class ClarificationAnswered(TypedDict):
    """The clarification was answered on resume."""

    event: Literal["clarification_answered"]
    sub_intent: str
    param: str
    value: Any


class ApprovalAsked(TypedDict):
    """Destructive calls wait for approval (an interrupt follows)."""

    event: Literal["approval_asked"]
    question: str
    calls: list[dict[str, Any]]


class ReconcileAsked(TypedDict):
    """Calls whose outcome is unknown wait for a person to say what happened (an interrupt)."""

    event: Literal["reconcile_asked"]
    question: str
    calls: list[dict[str, Any]]


class MemoryBound(TypedDict):
    """A follow-up's reference ("that order", "the same") was bound to an earlier turn."""

    event: Literal["memory_bound"]
    kind: Literal["reference", "repeat"]
    bindings: dict[str, Any]
    request: str


class RunFinished(TypedDict):
    """The run ended or stopped for input: the stream's last event (``graph.streaming``).

    ``status`` is ``done``, ``partial``, ``failed`` or ``waiting for input``, the same the
    CLI's exit code and ``--json`` and the MCP server report; ``gaps`` what failed.
    """

    event: Literal["run_finished"]
    thread_id: str
    status: Literal["done", "partial", "failed", "waiting for input"]
    gaps: list[str]
    question: str | None


ZspaceEvent = (
    NodeStarted
    | IntentParsed
    | CandidatesRanked
    | CallStarted
    | CallFinished
    | ClarificationAsked
    | ClarificationAnswered
    | ApprovalAsked
    | ReconcileAsked
    | MemoryBound
    | RunFinished
)
