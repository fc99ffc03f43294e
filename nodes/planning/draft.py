"""The planner interface: what a planner plans from (PlanRequest) and what it returns (PlanDraft).

Every planner — the rule planner today (:mod:`nodes.planning.rules`), a model planner later —
is a :class:`Planner`: a factory builds it for the run's :class:`~nodes.context.Context`, and
it turns the run's state into a :class:`PlanDraft`, which the ``plan`` node writes to state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from nodes.context import Context
from nodes.state import Candidate, Intent, PlannedCall, ZState

# The reason a gap gives when no candidate tool fits a sub-intent (the alignment check
# rewrites it when an earlier call of that sub-intent failed).
NO_TOOL_FOUND = "no suitable tool was found"


@dataclass(frozen=True)
class PlanRequest:
    """What a plan is made from: the intent and what the run has learnt about it so far."""

    intent: Intent
    candidates: Mapping[str, Sequence[Candidate]] = field(default_factory=dict)
    clarifications: Mapping[str, Any] = field(default_factory=dict)
    excluded: Mapping[str, Sequence[str]] = field(default_factory=dict)
    retrieval_rounds: int = 0
    retry_effects: Mapping[str, bool] = field(default_factory=dict)
    policy_refused: Mapping[str, Sequence[Candidate]] = field(default_factory=dict)

    @classmethod
    def from_state(cls, state: ZState) -> PlanRequest:
        """Read the request from the keys the ``plan`` node reads."""
        return cls(
            intent=state["intent"],
            candidates=state.get("candidates") or {},
            clarifications=state.get("clarifications") or {},
            excluded=state.get("excluded_tools") or {},
            retrieval_rounds=state.get("retrieval_rounds") or 0,
            retry_effects=state.get("retry_effects") or {},
            policy_refused=state.get("policy_refused") or {},
        )


@dataclass
class PlanDraft:
    """A plan being built for one request, sub-intent by sub-intent.

    The planner's steps read the request and the calls planned so far from the draft and add
    their decisions to it, instead of passing each piece along.

    Attributes:
        request: What the plan is for.
        calls: The DAG of planned calls, in plan order (state key ``plan``).
        question: The one value to ask the user for, which stops planning
            (``pending_question``).
        retrieve_again: Sub-intents no candidate fits, to search again (``retry_subintents``).
        gaps: Sub-intents the plan cannot cover, each said plainly (``gaps``).
        decisions: The decider's action per sub-intent, with its reasons (``decisions``).
        core_by_sub: The core call planned for each sub-intent so far.
        shared: Calls another clause makes too (it was not planned twice).
    """

    request: PlanRequest
    calls: list[PlannedCall] = field(default_factory=list)
    question: dict[str, Any] | None = None
    retrieve_again: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    core_by_sub: dict[str, str] = field(default_factory=dict)
    shared: set[str] = field(default_factory=set)

    def decide(self, sub_id: str, action: str, **details: Any) -> None:
        """Record the decider's action for a sub-intent."""
        self.decisions[sub_id] = {"action": action, **details}

    def add_calls(self, sub_id: str, calls: Sequence[PlannedCall]) -> None:
        """Append a sub-intent's calls; the last one is its core call."""
        self.calls.extend(calls)
        self.core_by_sub[sub_id] = calls[-1]["call_id"]


class Planner(Protocol):
    """Turns the run's state into a plan draft; built per run by a :data:`PlannerFactory`."""

    def draft(self, state: ZState) -> PlanDraft:
        """Decide every sub-intent of the state's intent and return the plan."""
        ...


PlannerFactory = Callable[[Context], Planner]
