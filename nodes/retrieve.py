"""retrieve: step-wise retrieval, one query per sub-intent, over the joint tool index.

``retrieve`` — Reads: intent, candidates, agent_ranking, retry_subintents, excluded_tools,
retrieval_rounds, policy_refused. Writes: candidates, agent_ranking, retrieval_rounds,
retry_subintents, token_ledger, policy_refused.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.planning.eligibility import callable_in, tool_terms
from nodes.state import Candidate, SubIntent, ZState
from stores.catalog.model import Catalog
from stores.language.cues import english_words_of
from stores.language.lexicon import Lexicon
from stores.language.spans_text import asked_attribute_words, value_kind_words, without_paths
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import embed_queries
from stores.retrieval.ranking import retrieve as rank_tools
from stores.retrieval.tokens import token_ledger


def query_for(sub: SubIntent, reformulate: bool, lexicon: Lexicon) -> str:
    """The text to search with; a reformulation spells out canonical terms and synonyms."""
    if not reformulate:
        # The clause plus its canonical terms: "place an order" also searches "create order".
        extra = [t for t in (sub["operation"], sub["target"]) if t and t not in sub["text"]]
        # Chinese cue words add their English words, the language of tool schemas and of
        # the embedding model ("读取文件" also searches "read path file").
        extra += [w for w in dict.fromkeys(english_words_of(sub["text"])) if w not in extra]
        extra += [w for w in value_kind_words(sub["text"]) if w not in extra]
        extra += [w for w in asked_attribute_words(sub["text"]) if w not in extra]
        return " ".join([without_paths(sub["text"]), *extra])
    words = [sub["operation"], sub["target"], *sub["keywords"], *value_kind_words(sub["text"])]
    for term in (sub["operation"], sub["target"]):
        if term:
            words.extend(lexicon.synonyms(term)[:3])
    return " ".join(dict.fromkeys(word for word in words if word))


EXPANSION_AGENTS = 3
EXPANSION_TOOLS = 3


def _named_by_top_agents(
    sub: SubIntent,
    catalog: Catalog,
    lexicon: Lexicon,
    agents: list[str],
    seen: set[str],
    environments: list[str],
) -> list[Candidate]:
    """Callable tools whose names say the sub-intent's operation and object (lexical channel).

    A short clause ("fetch order 1") can rank thousands of public lookalikes above the one
    callable tool named "get order"; such tools, the best-ranked agents' first, are added
    after the top-k so the planner can weigh them. Only canonical terms are compared, so the
    channel adds at most a few schemas to the context.
    """
    if not sub["operation"] or not sub["target"]:
        return []
    named: list[Candidate] = []
    for spec in catalog.tools.values():
        if spec.id in seen or not callable_in(spec, environments):
            continue
        operations, objects, _, _ = tool_terms(spec, lexicon)
        if sub["operation"] in operations and sub["target"] in objects:
            named.append(
                {"tool_id": spec.id, "agent": spec.agent, "score": 0.0, "call_name": spec.call_name}
            )
    # The ranked agents' tools first; any callable tool so named when no ranked agent has one.
    ranked = [c for c in named if c["agent"] in agents] or named
    ranked.sort(
        key=lambda c: (
            agents.index(c["agent"]) if c["agent"] in agents else len(agents),
            len(c["tool_id"]),
            c["tool_id"],
        )
    )
    return ranked[:EXPANSION_TOOLS]


async def retrieve(
    state: ZState,
    runtime: Runtime[Context],
    *,
    index_factory: Any,
    catalog_factory: Any,
    lexicon: Lexicon,
) -> dict[str, Any]:
    """Rank candidate tools per sub-intent and keep the top-k.

    Sub-intents listed in ``retry_subintents`` are searched again with a reformulated query;
    the others keep their candidates. Tools outside the run's environment allow-list never
    become candidates; those among the best ranked are kept apart (``policy_refused``) so
    the planner can say that the tool that fits is refused by policy, and how to allow it.
    The search itself (encoder, Chroma, BM25, files) runs in a worker thread, off the loop.
    """
    context = resolve_context(runtime)
    writer = get_stream_writer()
    update, events = await asyncio.to_thread(
        _rank_candidates, state, context, index_factory, catalog_factory, lexicon
    )
    for event in events:
        writer(event)
    return update


def _rank_candidates(
    state: ZState,
    context: Context,
    index_factory: Any,
    catalog_factory: Any,
    lexicon: Lexicon,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    index: ToolIndex = index_factory()
    catalog: Catalog = catalog_factory()
    events: list[dict[str, Any]] = []
    retry = set(state.get("retry_subintents") or [])
    candidates: dict[str, list[Candidate]] = dict(state.get("candidates") or {})
    agent_ranking: dict[str, list[str]] = dict(state.get("agent_ranking") or {})
    refused: dict[str, list[Candidate]] = dict(state.get("policy_refused") or {})
    excluded = state.get("excluded_tools") or {}
    todo = [
        sub
        for sub in state["intent"]["sub_intents"]
        if sub["action"] != "direct_answer" and (sub["id"] not in candidates or sub["id"] in retry)
    ]
    queries = [query_for(sub, sub["id"] in retry, lexicon) for sub in todo]
    config = context.retrieval_config()
    vectors = (
        embed_queries(index, queries, [sub["keywords"] for sub in todo], config.query_fsww)
        if config.method != "bm25"
        else [None] * len(todo)
    )
    for sub, query, vector in zip(todo, queries, vectors, strict=True):
        result = rank_tools(
            index,
            query,
            sub["keywords"],
            k_tools=context.top_k + len(excluded.get(sub["id"], [])),
            k_agents=context.top_k,
            config=config,
            environments=context.environments or None,
            query_vector=vector,
        )
        kept = [t for t in result.tools if t.tool_id not in excluded.get(sub["id"], [])]
        candidates[sub["id"]] = [
            {
                "tool_id": t.tool_id,
                "agent": t.agent,
                "score": round(t.score, 6),
                "call_name": catalog.tools[t.tool_id].call_name
                if t.tool_id in catalog.tools
                else "",
            }
            for t in kept[: context.top_k]
        ]
        candidates[sub["id"]] += _named_by_top_agents(
            sub,
            catalog,
            lexicon,
            list(
                dict.fromkeys(
                    [a.agent for a in result.agents[:EXPANSION_AGENTS]]
                    + [c["agent"] for c in candidates[sub["id"]]]
                )
            ),
            {c["tool_id"] for c in candidates[sub["id"]]} | set(excluded.get(sub["id"], [])),
            context.environments,
        )
        agent_ranking[sub["id"]] = [a.agent for a in result.agents]
        refused[sub["id"]] = _refused_by_policy(
            index, catalog, query, sub, vector, context, excluded.get(sub["id"], [])
        )
        events.append(
            {
                "event": "candidates",
                "sub_intent": sub["id"],
                "query": query,
                "tools": [c["tool_id"] for c in candidates[sub["id"]]],
            }
        )
    tool_ids = {c["tool_id"] for subs in candidates.values() for c in subs}
    specs = [catalog.tools[t] for t in sorted(tool_ids) if t in catalog.tools]
    update = {
        "candidates": candidates,
        "agent_ranking": agent_ranking,
        "retrieval_rounds": (state.get("retrieval_rounds") or 0) + (1 if retry else 0),
        "retry_subintents": [],
        "token_ledger": dict(token_ledger(specs, catalog)),
        "policy_refused": refused,
    }
    return update, events


def _refused_by_policy(
    index: ToolIndex,
    catalog: Catalog,
    query: str,
    sub: SubIntent,
    vector: Any,
    context: Context,
    excluded: list[str],
) -> list[Candidate]:
    """The best-ranked tools for the query that the run's environments do not allow.

    The same ranking without the environment filter (the query vector is reused): what the
    run would have been offered had the policy allowed it. Never called; the planner only
    names them.
    """
    if not context.environments:
        return []
    result = rank_tools(
        index, query, sub["keywords"], k_tools=context.top_k, k_agents=1,
        config=context.retrieval_config(), environments=None, query_vector=vector,
    )
    return [
        {"tool_id": t.tool_id, "agent": t.agent, "score": round(t.score, 6),
         "call_name": catalog.tools[t.tool_id].call_name}
        for t in result.tools
        if t.tool_id in catalog.tools and t.tool_id not in excluded
        and not callable_in(catalog.tools[t.tool_id], context.environments)
    ]
