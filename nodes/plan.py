"""plan: decide an action per sub-intent and build the DAG of calls (NaviAgent's decider).

``plan`` — Reads: intent, candidates, clarifications, excluded_tools, retrieval_rounds, plan,
results, planner_transcript, token_ledger, gaps.
Writes: plan, pending_question, retry_subintents, gaps, decisions, planner_transcript,
planner_done, model_answer, token_ledger.

Two planners behind one node. Offline (no chat model, or ``Context.planner == "rules"``) the
node asks a :class:`~nodes.planning.draft.Planner` (the rule planner of
:mod:`nodes.planning.rules`) for a :class:`~nodes.planning.draft.PlanDraft`: the calls with
literal or referenced arguments and ``depends_on``, the question that needs the user, the
sub-intents to retrieve again, the gaps and each sub-intent's decision.

With a chat model configured, :class:`~nodes.planning.model.ModelPlanner` takes one turn per
pass: it sees the candidates as real tools and the results so far, and answers with checked
calls (appended to the plan; ``execute`` runs them and the graph comes back here) or with its
answer (``model_answer``, ``planner_done``). Its prompt and completion tokens go to the token
ledger, next to what injecting every tool would cost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.planning.draft import PlanDraft, PlannerFactory
from nodes.planning.model import ModelPlanner, ModelPlannerError, ModelStep
from nodes.state import ZState
from stores.catalog.model import Catalog


async def plan(
    state: ZState,
    runtime: Runtime[Context],
    *,
    planner_factory: PlannerFactory,
    chat_model_factory: Callable[[Context], Any] | None = None,
    catalog_factory: Callable[[], Catalog] | None = None,
) -> dict[str, Any]:
    """Decide an action per sub-intent and build the plan DAG (one model turn with a model)."""
    context = resolve_context(runtime)
    model = chat_model_factory(context) if chat_model_factory is not None else None
    if model is not None and context.planner != "rules" and catalog_factory is not None:
        return await _plan_with_model(state, context, model, catalog_factory)

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
        "planner_transcript": [],
        "planner_done": True,
        "model_answer": "",
        "token_ledger": state.get("token_ledger") or {},
    }


async def _plan_with_model(
    state: ZState, context: Context, model: Any, catalog_factory: Callable[[], Catalog]
) -> dict[str, Any]:
    """One model turn: new checked calls, a question, or the model's answer."""
    intent = state["intent"]
    transcript = list(state.get("planner_transcript") or [])
    plan_so_far = list(state.get("plan") or [])
    gaps = list(state.get("gaps") or [])
    ledger = dict(state.get("token_ledger") or {})
    update: dict[str, Any] = {
        "retry_subintents": [],
        "pending_question": None,
        "decisions": state.get("decisions") or {},
    }
    if len(transcript) >= context.max_model_turns:
        gaps.append(
            f"the model used its {context.max_model_turns} planning turns without answering; "
            "what ran is shown below"
        )
        return {**update, "plan": plan_so_far, "gaps": gaps, "planner_transcript": transcript,
                "planner_done": True, "model_answer": "", "token_ledger": ledger}
    catalog = await asyncio.to_thread(catalog_factory)
    planner = ModelPlanner(model, catalog)
    try:
        step = await planner.step(
            str(intent.get("request") or ""),
            intent["sub_intents"],
            state.get("candidates") or {},
            plan_so_far,
            state.get("results") or {},
            transcript,  # type: ignore[arg-type]
            state.get("clarifications") or {},
        )
    except ModelPlannerError as exc:
        gaps.append(f"planning stopped: {exc}")
        return {**update, "plan": plan_so_far, "gaps": gaps, "planner_transcript": transcript,
                "planner_done": True, "model_answer": "", "token_ledger": ledger}
    if step.turn is not None:
        transcript.append(dict(step.turn))
    gaps.extend(step.failures)
    _count_model_tokens(ledger, step)
    update.update({
        "plan": plan_so_far + step.calls,
        "gaps": gaps,
        "planner_transcript": transcript,
        "token_ledger": ledger,
        "planner_done": False,
        "model_answer": "",
    })
    if step.question is not None:
        asked = step.turn["calls"][-1] if step.turn and step.turn["calls"] else None
        update["pending_question"] = {
            "sub_intent": asked["call_id"] if asked else "model",
            "param": step.question_param or "value",
            "tool_id": "",
            "question": step.question,
        }
    elif not step.calls:
        # Text (the answer), or nothing left that could run: planning ends here.
        update["planner_done"] = True
        update["model_answer"] = step.answer or ""
    return update


def _count_model_tokens(ledger: dict[str, Any], step: ModelStep) -> None:
    """Add one planning turn's tokens and offered tools to the run's token ledger."""
    ledger["model_turns"] = int(ledger.get("model_turns", 0)) + step.model_turns
    ledger["model_prompt_tokens"] = int(ledger.get("model_prompt_tokens", 0)) + step.prompt_tokens
    ledger["model_completion_tokens"] = (
        int(ledger.get("model_completion_tokens", 0)) + step.completion_tokens
    )
    ledger["tools_offered_per_turn"] = [*ledger.get("tools_offered_per_turn", []), step.offered]
