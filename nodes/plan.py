"""plan: decide an action per sub-intent and build the DAG of calls (NaviAgent's decider).

``plan`` — Reads: intent, candidates, clarifications, excluded_tools, retrieval_rounds.
Writes: plan, pending_question, retry_subintents, gaps, decisions.

The node asks a :class:`~nodes.planning.draft.Planner` (built for the run's context by the
factory the graph binds; the rule planner of :mod:`nodes.planning.rules` by default) for a
:class:`~nodes.planning.draft.PlanDraft` and writes it to state: the calls with literal or
referenced arguments and ``depends_on``, the question that needs the user, the sub-intents to
retrieve again, the gaps and each sub-intent's decision.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.planning.draft import PlanDraft, PlannerFactory
from nodes.state import ZState


async def plan(
    state: ZState, runtime: Runtime[Context], *, planner_factory: PlannerFactory
) -> dict[str, Any]:
    """Decide an action per sub-intent and build the plan DAG."""
    context = resolve_context(runtime)

    def draft() -> PlanDraft:
        return planner_factory(context).draft(state)

    # Loading the catalog and the dependency graph touches files and SQLite: off the loop.
    drafted = await asyncio.to_thread(draft)
    return {
        "plan": drafted.calls,
        "pending_question": drafted.question,
        "retry_subintents": drafted.retrieve_again,
        "gaps": drafted.gaps,
        "decisions": drafted.decisions,
    }
