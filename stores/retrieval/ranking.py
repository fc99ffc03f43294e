"""Ranking tools and agents for one query: dense, BM25, their rank fusion, Tool-to-Agent.

``retrieve(...)`` is the one entry point; the pipeline's retrieve node wraps exactly it.

Methods:
    bm25: lexical only. dense: Chroma cosine only. hybrid: both, fused by reciprocal rank
    (RRF) or by a weighted sum of min-max normalized scores. hierarchical: MCP-Zero's score
    (agent score x tool score x the larger of the two), a baseline.
Agent graph (on by default): an owner is ranked by all its entries in the fused ranking, not
    only the first (``agent_evidence``), and a tool's rank is lifted by its owner's
    (``sibling_boost``), so a provider whose several tools match beats a look-alike.
Look-alike providers (on by default, ``stores.retrieval.lookalikes``): an agent the query
    names is lifted (``name_boost``), and near-duplicate agents are ranked once
    (``lookalike_threshold``, ``lookalike_depth``, ``lookalike_demotion``).
Step-wise (on by default, ``stores.retrieval.steps``): a query of several sentences is also
    ranked sentence by sentence, and the agent rankings are fused (``stepwise``,
    ``step_depth``, ``step_rrf_k``; a step weighted by its BM25 head, ``step_head_power``;
    its agents the whole query also ranks lifted, ``step_corroboration``); the tools stay
    those of the whole query.
Scopes:
    joint: tools and agents in one ranking; agents come from Tool-to-Agent aggregation
    (walk the entity ranking, map each tool to its owner, keep the first K unique agents).
    tools: tool entries only (agents still by owner mapping). agents: agent entries only.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from stores.retrieval.entries import EntryKind
from stores.retrieval.fsww import FSWWParams, fsww_embed
from stores.retrieval.index import Hit, ToolIndex, lexical_tokens
from stores.retrieval.lookalikes import boost_named_agents, group_lookalikes, rank_lookalikes
from stores.retrieval.steps import fuse_step_rankings, split_steps, step_weights

Method = Literal["bm25", "dense", "hybrid", "hierarchical"]
Scope = Literal["joint", "tools", "agents"]
Fusion = Literal["rrf", "weighted", "zscore"]


@dataclass(frozen=True)
class RetrievalConfig:
    """How to rank; the defaults are the best measured on the development set."""

    method: Method = "hybrid"
    scope: Scope = "joint"
    fusion: Fusion = "zscore"
    rrf_k: int = 60
    dense_weight: float = 0.3
    candidates: int = 100
    query_fsww: FSWWParams | None = None
    # Measured on StableToolBench grown with look-alike providers (bench/results/scale.md):
    # agent R@5 0.844 -> 0.852 at 2.5k tools, 0.730 -> 0.747 at 10k; tool R@5 0.702 -> 0.723
    # and 0.541 -> 0.588.
    agent_evidence: float = 1.0
    evidence_k: int = 1
    # The agent's own document (name, description, tool names) counts this much of a tool
    # entry in its owner's score: it restates what the owner's tools already matched. Agent
    # R@5 with step-wise queries 0.868 -> 0.872 at 2.5k tools, 0.806 -> 0.808 at 10k,
    # 0.730 -> 0.731 at 30k, 0.687 unchanged at 100k (bench/results/scale.md).
    agent_document_weight: float = 0.7
    sibling_boost: float = 2.0
    # Look-alike providers: agent R@5 0.852 -> 0.854 at 2.5k tools, 0.747 -> 0.761 at 10k
    # (R@1 0.618 -> 0.615 and 0.549 -> 0.558)
    # (bench/results/scale.md; every variant tried is there). A threshold of 1.0 or more turns
    # the grouping off (a demotion of 0 only reorders inside groups); a name boost of 0 turns
    # the lift off.
    name_boost: float = 0.5
    lookalike_threshold: float = 0.9
    lookalike_depth: int = 30
    lookalike_demotion: int = 2
    # Step-wise querying (stores.retrieval.steps): a query of several sentences is also
    # ranked sentence by sentence and the agent rankings fused by reciprocal rank (k 1, each
    # step's first 5). Agent R@5 0.854 -> 0.868 at 2.5k tools, 0.761 -> 0.806 at 10k
    # (bench/results/scale.md); tools stay ranked by the whole query.
    stepwise: bool = True
    step_depth: int = 5
    # How the steps are fused (stores.retrieval.steps.fuse_step_rankings): a step weighs its
    # best BM25 score over the best step's, to this power (0: all steps alike); a step's agent
    # that the whole query's ranking holds too counts 1 + corroboration; k 0.5 gives a
    # ranking's first places more weight than k 1. Agent R@5 0.872 -> 0.875 at 2.5k tools,
    # 0.808 -> 0.822 at 10k, 0.687 -> 0.691 at 100k (bench/results/scale.md).
    step_rrf_k: float = 0.5
    step_head_power: float = 0.5
    step_corroboration: float = 0.5


@dataclass(frozen=True)
class RankedTool:
    """A candidate tool with its fused score and its owner."""

    tool_id: str
    agent: str
    score: float


@dataclass(frozen=True)
class RankedAgent:
    """An agent (tool owner) with the score of the entry that first brought it in."""

    agent: str
    score: float


@dataclass
class RetrievalResult:
    """Ranked tools and agents for one query."""

    tools: list[RankedTool]
    agents: list[RankedAgent]
    entities: list[Hit]
    embed_ms: float = 0.0
    search_ms: float = 0.0


def embed_query(
    index: ToolIndex, query: str, keywords: Sequence[str], fsww: FSWWParams | None
) -> np.ndarray:
    """Query vector: FSWW(query, keywords) in one encoder call, or the plain embedding."""
    vectors: np.ndarray = embed_queries(index, [query], [keywords], fsww)
    return np.asarray(vectors[0], dtype=np.float32)


def embed_queries(
    index: ToolIndex,
    queries: Sequence[str],
    keyword_lists: Sequence[Sequence[str]],
    fsww: FSWWParams | None,
) -> np.ndarray:
    """Vectors of several queries (a request's sub-intents) in one encoder call."""
    if not queries:
        return np.zeros((0, index.embedder.dim), dtype=np.float32)
    if fsww is None or not any(keyword_lists):
        vectors = index.embedder.embed(list(queries))
    else:
        vectors = fsww_embed(
            index.embedder,
            list(queries),
            [list(k) for k in keyword_lists],
            fsww,
            index.keyword_cache,
        )
    return np.asarray(vectors, dtype=np.float32)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hit]], k: int = 60) -> list[Hit]:
    """Fuse rankings by ``sum 1 / (k + rank)`` (rank from 1); ties keep first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            scores[hit.entry_id] = scores.get(hit.entry_id, 0.0) + 1.0 / (k + rank)
    return [Hit(i, s) for i, s in sorted(scores.items(), key=lambda item: -item[1])]


def weighted_fusion(dense: Sequence[Hit], lexical: Sequence[Hit], dense_weight: float) -> list[Hit]:
    """Fuse by a weighted sum of min-max normalized scores (absent = 0)."""

    def normalized(hits: Sequence[Hit]) -> dict[str, float]:
        if not hits:
            return {}
        values = np.array([h.score for h in hits], dtype=np.float64)
        low, high = float(values.min()), float(values.max())
        span = high - low if high > low else 1.0
        return {h.entry_id: (h.score - low) / span for h in hits}

    dense_scores, lexical_scores = normalized(dense), normalized(lexical)
    ids = list(dict.fromkeys([h.entry_id for h in dense] + [h.entry_id for h in lexical]))
    fused = {
        i: dense_weight * dense_scores.get(i, 0.0) + (1 - dense_weight) * lexical_scores.get(i, 0.0)
        for i in ids
    }
    return [Hit(i, s) for i, s in sorted(fused.items(), key=lambda item: -item[1])]


def zscore_fusion(dense: Sequence[Hit], lexical: Sequence[Hit], dense_weight: float) -> list[Hit]:
    """Fuse by a weighted sum of z-scored scores.

    An entry absent from one list gets that list's lowest z-score (it ranked below everything
    retrieved there).

    Z-scores keep how far a hit stands out from the rest, which min-max scaling loses when
    one outlier sets the range; on StableToolBench this was the best fusion measured.
    """

    def standardized(hits: Sequence[Hit]) -> dict[str, float]:
        if not hits:
            return {}
        values = np.array([h.score for h in hits], dtype=np.float64)
        spread = float(values.std()) or 1.0
        mean = float(values.mean())
        return {h.entry_id: (h.score - mean) / spread for h in hits}

    dense_z, lexical_z = standardized(dense), standardized(lexical)
    dense_floor = min(dense_z.values(), default=0.0)
    lexical_floor = min(lexical_z.values(), default=0.0)
    ids = list(dict.fromkeys([h.entry_id for h in dense] + [h.entry_id for h in lexical]))
    fused = {
        i: dense_weight * dense_z.get(i, dense_floor)
        + (1 - dense_weight) * lexical_z.get(i, lexical_floor)
        for i in ids
    }
    return [Hit(i, s) for i, s in sorted(fused.items(), key=lambda item: -item[1])]


def tool_to_agent(entities: Sequence[Hit], index: ToolIndex, k: int) -> list[RankedAgent]:
    """Algorithm 1 of Tool-to-Agent Retrieval: first ``k`` unique owners down the ranking."""
    agents: list[RankedAgent] = []
    seen: set[str] = set()
    for hit in entities:
        entry = index.entries.get(hit.entry_id)
        if entry is None or entry.agent in seen:
            continue
        seen.add(entry.agent)
        agents.append(RankedAgent(entry.agent, hit.score))
        if len(agents) >= k:
            break
    return agents


def aggregate_agents(
    entities: Sequence[Hit],
    index: ToolIndex,
    k: int,
    evidence: float,
    rrf_k: int = 60,
    agent_document: float = 1.0,
) -> list[RankedAgent]:
    """Agents ranked by all their entries in the ranking, not only the first (agent graph).

    Each entry at rank r adds ``1 / (rrf_k + r)`` to its owner: the first one in full, every
    further one times ``evidence``. With ``evidence`` 0 the order is Tool-to-Agent's; above
    0 an owner whose several tools match outranks a look-alike with one matching tool. The
    owner's own document (an ``agent:`` entry) is further weighted by ``agent_document``.
    """
    scores: dict[str, float] = {}
    for rank, hit in enumerate(entities, start=1):
        entry = index.entries.get(hit.entry_id)
        if entry is None:
            continue
        weight = evidence if entry.agent in scores else 1.0
        if entry.kind == "agent":
            weight *= agent_document
        scores[entry.agent] = scores.get(entry.agent, 0.0) + weight / (rrf_k + rank)
    ranked = sorted(scores.items(), key=lambda item: -item[1])[:k]
    return [RankedAgent(agent, score) for agent, score in ranked]


def rerank_tools(
    tools: Sequence[RankedTool], agents: Sequence[RankedAgent], sibling_boost: float
) -> list[RankedTool]:
    """Tools re-ordered by their rank plus their owner's score (the agent graph's expansion).

    Tool → owner → sibling tools: a tool whose owner ranks high rises over a look-alike from
    an owner that matched less. Scores: ``60 / (60 + rank)`` plus ``sibling_boost`` times the
    owner's score relative to the best owner's.
    """
    owner_score = {agent.agent: agent.score for agent in agents}
    best = max(owner_score.values(), default=0.0) or 1.0
    scored = [
        (60.0 / (60 + rank) + sibling_boost * owner_score.get(tool.agent, 0.0) / best, tool)
        for rank, tool in enumerate(tools, start=1)
    ]
    scored.sort(key=lambda pair: -pair[0])
    return [RankedTool(tool.tool_id, tool.agent, score) for score, tool in scored]


def retrieve(
    index: ToolIndex,
    query: str,
    keywords: Sequence[str] = (),
    *,
    k_tools: int = 5,
    k_agents: int = 5,
    config: RetrievalConfig | None = None,
    environments: Sequence[str] | None = None,
    query_vector: np.ndarray | None = None,
) -> RetrievalResult:
    """Rank tools and agents for one query.

    Args:
        index: the joint tool + agent index.
        query: the query text (a sub-intent, a step, a question).
        keywords: words to fuse into the query vector by FSWW (ignored without FSWW).
        k_tools: how many tools to return.
        k_agents: how many agents to return.
        config: the ranking method; defaults to the measured best.
        environments: allow-list; tools tagged with another environment never appear.
            Untagged tools pass. None means no filter.
        query_vector: the query's vector when the caller embedded it already (a batch of
            sub-intents in one encoder call); computed here otherwise.

    Returns:
        Ranked tools, ranked agents and the fused entity ranking.
    """
    config = config or RetrievalConfig()
    started = time.perf_counter()
    vector: np.ndarray | None = query_vector
    if config.method != "bm25" and vector is None:
        vector = embed_query(index, query, keywords, config.query_fsww)
    embedded = time.perf_counter()
    n = max(config.candidates, k_tools, k_agents)
    if config.method == "hierarchical":
        assert vector is not None
        tools, agents, entities = _hierarchical(index, vector, n, environments)
    else:
        kinds: tuple[EntryKind, ...] = {
            "joint": ("tool", "agent"),
            "tools": ("tool",),
            "agents": ("agent",),
        }[config.scope]  # type: ignore[assignment]
        agents, entities, _ = _ranked_agents(
            index, query, vector, n, kinds, environments, config
        )
        steps = split_steps(query) if config.stepwise else [query]
        if len(steps) > 1:
            agents = _fuse_steps(index, agents, steps, n, kinds, environments, config)
        # The joint ranking already orders the tools: filtering it costs nothing, where a
        # second tool-only search would double the latency.
        tool_hits = (
            [h for h in entities if h.entry_id.startswith("tool:")]
            if config.scope != "agents"
            else _rank_entities(index, query, vector, n, ("tool",), environments, config)[0]
        )
        tools = [
            RankedTool(index.entries[h.entry_id].ref, index.entries[h.entry_id].agent, h.score)
            for h in tool_hits
            if h.entry_id in index.entries
        ]
        if config.sibling_boost:
            # Owners scored by their first entry (Tool-to-Agent's order, RRF-flat): measured
            # better for lifting siblings than the evidence-weighted agent ranking.
            owners = aggregate_agents(entities, index, len(entities), 0.0)
            tools = rerank_tools(tools, owners, config.sibling_boost)
    finished = time.perf_counter()
    return RetrievalResult(
        tools=tools[:k_tools],
        agents=agents[:k_agents],
        entities=list(entities),
        embed_ms=(embedded - started) * 1000,
        search_ms=(finished - embedded) * 1000,
    )


def _ranked_agents(
    index: ToolIndex,
    query: str,
    vector: np.ndarray | None,
    n: int,
    kinds: tuple[EntryKind, ...],
    environments: Sequence[str] | None,
    config: RetrievalConfig,
) -> tuple[list[RankedAgent], list[Hit], list[Hit]]:
    """One query's agents (agent graph, look-alikes), its entity and BM25 rankings."""
    entities, lexical = _rank_entities(index, query, vector, n, kinds, environments, config)
    agents = (
        aggregate_agents(
            entities,
            index,
            len(entities),
            config.agent_evidence,
            config.evidence_k,
            config.agent_document_weight,
        )
        if config.agent_evidence
        else tool_to_agent(entities, index, len(entities))
    )
    return rank_providers(index, query, agents, entities, lexical, config), entities, lexical


def _fuse_steps(
    index: ToolIndex,
    agents: Sequence[RankedAgent],
    steps: Sequence[str],
    n: int,
    kinds: tuple[EntryKind, ...],
    environments: Sequence[str] | None,
    config: RetrievalConfig,
) -> list[RankedAgent]:
    """The whole query's agents fused with each step's (``stores.retrieval.steps``).

    The steps are embedded in one encoder call; an agent's score becomes its fused score.
    """
    vectors: list[np.ndarray | None] = [None] * len(steps)
    if config.method != "bm25":
        vectors = list(embed_queries(index, steps, [()] * len(steps), None))
    rankings: list[list[str]] = []
    heads: list[float] = []
    for step, vector in zip(steps, vectors, strict=True):
        ranked, _, lexical = _ranked_agents(index, step, vector, n, kinds, environments, config)
        rankings.append([agent.agent for agent in ranked])
        heads.append(lexical[0].score if lexical else 0.0)
    fused = fuse_step_rankings(
        [agent.agent for agent in agents],
        rankings,
        config.step_depth,
        config.step_rrf_k,
        step_weights(heads, config.step_head_power),
        config.step_corroboration,
    )
    return [RankedAgent(agent, score) for agent, score in fused]


def rank_providers(
    index: ToolIndex,
    query: str,
    agents: Sequence[RankedAgent],
    entities: Sequence[Hit],
    lexical: Sequence[Hit],
    config: RetrievalConfig,
) -> list[RankedAgent]:
    """Agents re-ranked for look-alike providers (``stores.retrieval.lookalikes``).

    The agent the query names is lifted; then, among the top ``lookalike_depth`` agents,
    look-alikes (their best-ranked tools' vectors at least ``lookalike_threshold`` similar)
    are ordered by their BM25 evidence and name coverage, and all but the first of each
    group move ``lookalike_demotion`` places down. Scores stay those of the ranking signal
    (after the name lift), so a demoted agent may keep a higher score than the one above it.
    """
    grouping = config.lookalike_threshold < 1.0
    if not agents or (config.name_boost <= 0.0 and not grouping):
        return list(agents)
    entries = index.entries
    query_tokens = frozenset(lexical_tokens(query))
    names = index.agent_names()
    scored = boost_named_agents(
        [(agent.agent, agent.score) for agent in agents], names, query_tokens, config.name_boost
    )
    if grouping:
        top = [agent for agent, _ in scored[: config.lookalike_depth]]
        best_entry: dict[str, str] = {}
        for hit in entities:
            entry = entries.get(hit.entry_id)
            if entry is not None and entry.kind == "tool":
                best_entry.setdefault(entry.agent, hit.entry_id)
        chosen = {agent: best_entry.get(agent, f"agent:{agent}") for agent in top}
        stored = index.vectors(sorted(set(chosen.values())))
        vectors = {agent: stored[i] for agent, i in chosen.items() if i in stored}
        best_lexical: dict[str, float] = {}
        for hit in lexical:
            entry = entries.get(hit.entry_id)
            if entry is not None:
                best_lexical.setdefault(entry.agent, hit.score)

        def evidence(agent: str) -> float:
            coverage = names.coverage(agent, query_tokens)
            return best_lexical.get(agent, 0.0) * (1.0 + coverage)

        order = rank_lookalikes(
            top,
            group_lookalikes(top, vectors, config.lookalike_threshold),
            evidence,
            config.lookalike_demotion,
        )
        score = dict(scored)
        scored = [(agent, score[agent]) for agent in order] + scored[config.lookalike_depth :]
    return [RankedAgent(agent, score) for agent, score in scored]


def _rank_entities(
    index: ToolIndex,
    query: str,
    vector: np.ndarray | None,
    n: int,
    kinds: tuple[EntryKind, ...],
    environments: Sequence[str] | None,
    config: RetrievalConfig,
) -> tuple[list[Hit], list[Hit]]:
    """The fused entity ranking, and the BM25 ranking it came from (empty for dense)."""
    dense: list[Hit] = []
    lexical: list[Hit] = []
    if config.method in ("dense", "hybrid"):
        assert vector is not None
        dense = index.dense_search(vector, n, kinds, environments)
    if config.method in ("bm25", "hybrid"):
        lexical = index.lexical_search(query, n, kinds, environments)
    if config.method == "dense":
        return dense, lexical
    if config.method == "bm25":
        return lexical, lexical
    if config.fusion == "weighted":
        return weighted_fusion(dense, lexical, config.dense_weight)[:n], lexical
    if config.fusion == "zscore":
        return zscore_fusion(dense, lexical, config.dense_weight)[:n], lexical
    return reciprocal_rank_fusion([dense, lexical], config.rrf_k)[:n], lexical


def _hierarchical(
    index: ToolIndex, vector: np.ndarray, n: int, environments: Sequence[str] | None
) -> tuple[list[RankedTool], list[RankedAgent], list[Hit]]:
    agent_hits = index.dense_search(vector, n, ("agent",), environments)
    tool_hits = index.dense_search(vector, n * 3, ("tool",), environments)
    agent_score = {index.entries[h.entry_id].agent: max(h.score, 0.0) for h in agent_hits}
    scored: list[RankedTool] = []
    for hit in tool_hits:
        entry = index.entries[hit.entry_id]
        s_agent = agent_score.get(entry.agent, 0.0)
        s_tool = max(hit.score, 0.0)
        scored.append(RankedTool(entry.ref, entry.agent, s_agent * s_tool * max(s_agent, s_tool)))
    scored.sort(key=lambda tool: -tool.score)
    agents: list[RankedAgent] = []
    seen: set[str] = set()
    for tool in scored:
        if tool.agent not in seen:
            seen.add(tool.agent)
            agents.append(RankedAgent(tool.agent, tool.score))
    entities = [Hit(f"tool:{t.tool_id}", t.score) for t in scored]
    return scored, agents, entities
