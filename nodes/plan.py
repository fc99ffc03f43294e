"""plan: decide an action per sub-intent and build the DAG of calls (NaviAgent's decider).

``plan`` — Reads: intent, candidates, clarifications, excluded_tools, retrieval_rounds, plan,
results, planner_transcript, token_ledger, gaps, policy_refused.
Writes: plan, pending_question, retry_subintents, gaps, decisions, planner_transcript,
planner_done, model_answer, token_ledger, candidates.

Two planners behind one node. Offline (no chat model, or ``Context.planner == "rules"``) the
node asks a :class:`~nodes.planning.draft.Planner` (the rule planner of
:mod:`nodes.planning.rules`) for a :class:`~nodes.planning.draft.PlanDraft`: the calls with
literal or referenced arguments and ``depends_on``, the question that needs the user, the
sub-intents to retrieve again, the gaps and each sub-intent's decision.

With a chat model configured, :class:`~nodes.planning.model.ModelPlanner` takes one turn per
pass: it sees the candidates as real tools and the results so far, and answers with checked
calls (appended to the plan; ``execute`` runs them and the graph comes back here) or with its
answer (``model_answer``, ``planner_done``). When no offered tool fits, the model may search
the catalog (the retrieve node's ranking, under the run's environment allow-list); the tools
it finds join the candidates under ``model_search``. Its prompt and completion tokens go to
the token ledger, next to what injecting every tool would cost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.planning.draft import PlanDraft, PlannerFactory
from nodes.planning.eligibility import own_untagged_server_tool, refused_gap
from nodes.planning.model import ModelPlanner, ModelPlannerError, ModelStep
from nodes.state import Candidate, ZState
from stores.catalog.model import Catalog
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import retrieve as rank_tools


async def plan(
    state: ZState,
    runtime: Runtime[Context],
    *,
    planner_factory: PlannerFactory,
    chat_model_factory: Callable[[Context], Any] | None = None,
    catalog_factory: Callable[[], Catalog] | None = None,
    index_factory: Callable[[], ToolIndex] | None = None,
) -> dict[str, Any]:
    """Decide an action per sub-intent and build the plan DAG (one model turn with a model)."""
    context = resolve_context(runtime)
    model = chat_model_factory(context) if chat_model_factory is not None else None
    if model is not None and context.planner != "rules" and catalog_factory is not None:
        return await _plan_with_model(state, context, model, catalog_factory, index_factory)

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


def catalog_search(
    index: ToolIndex, catalog: Catalog, context: Context
) -> Callable[[str], list[Candidate]]:
    """Rank the catalog for a query as the retrieve node does, under the run's allow-list."""

    def search(query: str) -> list[Candidate]:
        result = rank_tools(
            index, query, [], k_tools=context.top_k, k_agents=context.top_k,
            config=context.retrieval_config(), environments=context.environments or None,
        )
        return [
            {"tool_id": t.tool_id, "agent": t.agent, "score": round(t.score, 6),
             "call_name": catalog.tools[t.tool_id].call_name or ""}
            for t in result.tools[: context.top_k]
            if t.tool_id in catalog.tools
        ]

    return search


async def _plan_with_model(
    state: ZState,
    context: Context,
    model: Any,
    catalog_factory: Callable[[], Catalog],
    index_factory: Callable[[], ToolIndex] | None,
) -> dict[str, Any]:
    """One model turn: new checked calls, a question, or the model's answer."""
    intent = state["intent"]
    transcript = list(state.get("planner_transcript") or [])
    plan_so_far = list(state.get("plan") or [])
    gaps = list(state.get("gaps") or [])
    ledger = dict(state.get("token_ledger") or {})
    candidates = dict(state.get("candidates") or {})
    update: dict[str, Any] = {
        "retry_subintents": [],
        "pending_question": None,
        "decisions": state.get("decisions") or {},
        "candidates": candidates,
    }
    if len(transcript) >= context.max_model_turns:
        gaps.append(
            f"the model used its {context.max_model_turns} planning turns without answering; "
            "what ran is shown below"
        )
        return {**update, "plan": plan_so_far, "gaps": gaps, "planner_transcript": transcript,
                "planner_done": True, "model_answer": "", "token_ledger": ledger}
    catalog = await asyncio.to_thread(catalog_factory)
    search = None
    if index_factory is not None:
        index = await asyncio.to_thread(index_factory)
        search = catalog_search(index, catalog, context)
    planner = ModelPlanner(model, catalog, search=search)
    try:
        step = await planner.step(
            str(intent.get("request") or ""),
            intent["sub_intents"],
            candidates,
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
    if step.found:
        candidates["model_search"] = [*candidates.get("model_search", []), *step.found]
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
        update["gaps"] = gaps + _refused_by_policy(state, plan_so_far, catalog, context)
    return update


def _refused_by_policy(
    state: ZState, plan_so_far: list[Any], catalog: Catalog, context: Context
) -> list[str]:
    """Gaps for the parts the model left without a call whose best tool the policy refused.

    Only a tool of the user's own MCP server without an environment tag is named: it is one
    line of config away, and the model never saw it (refused tools are not offered).
    """
    covered = {call["sub_intent_id"] for call in plan_so_far}
    refused = state.get("policy_refused") or {}
    gaps = []
    for sub in state["intent"]["sub_intents"]:
        if sub["action"] == "direct_answer" or sub["id"] in covered:
            continue
        specs = [catalog.tools.get(c["tool_id"]) for c in refused.get(sub["id"], [])]
        spec = next((s for s in specs if s is not None and own_untagged_server_tool(s)), None)
        if spec is not None:
            gaps.append(refused_gap(sub, spec, context.environments))
    return gaps


def _count_model_tokens(ledger: dict[str, Any], step: ModelStep) -> None:
    """Add one planning turn's tokens and offered tools to the run's token ledger."""
    ledger["model_turns"] = int(ledger.get("model_turns", 0)) + step.model_turns
    ledger["model_prompt_tokens"] = int(ledger.get("model_prompt_tokens", 0)) + step.prompt_tokens
    ledger["model_completion_tokens"] = (
        int(ledger.get("model_completion_tokens", 0)) + step.completion_tokens
    )
    ledger["tools_offered_per_turn"] = [*ledger.get("tools_offered_per_turn", []), step.offered]
