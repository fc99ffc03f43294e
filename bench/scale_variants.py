"""Ranking variants at size: ``python -m bench scale --variants --sizes 2490 10000 --keep DIR``.

Per size, the grown catalog's index is built once under ``DIR/eval-<size>`` (the index is the
embedding cache: its entries are keyed by content hash, so a second run embeds nothing), the
fused entity ranking and the BM25 ranking of every question are cached in
``DIR/rankings-<size>-<generation>.pkl``, and each variant re-ranks the agents from that cache
with the shipped functions (``aggregate_agents``, ``rank_providers``, ``fuse_step_rankings``,
``step_weights``): no variant re-embeds or re-searches. The cache holds the rankings of every
step of a question too (``stores.retrieval.steps``). A size at or below the development
catalog's 2,490 tools is that catalog.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import DEV_CATALOG, DEV_QUERIES

_WHOLE: dict[str, Any] = {"stepwise": False, "agent_document_weight": 1.0}
# The step fusion before the head weights and corroboration (reciprocal rank, k 1).
_PLAIN: dict[str, Any] = {"step_rrf_k": 1.0, "step_head_power": 0.0, "step_corroboration": 0.0}
_STEPS: dict[str, Any] = {**_PLAIN, "agent_document_weight": 1.0}
_NO_LIFT: dict[str, Any] = {**_WHOLE, "name_boost": 0.0, "lookalike_threshold": 0.85}
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("agent graph only", {**_WHOLE, "name_boost": 0.0, "lookalike_threshold": 1.0}),
    ("named provider lift 0.5", {**_WHOLE, "name_boost": 0.5, "lookalike_threshold": 1.0}),
    ("look-alikes 0.85, demote 2", {**_NO_LIFT, "lookalike_demotion": 2}),
    ("lift 0.5 + look-alikes 0.90, demote 2", _WHOLE),
    ("step-wise, k 1, each step's first 3", {**_STEPS, "step_depth": 3}),
    ("step-wise, k 3, each step's first 5", {**_STEPS, "step_rrf_k": 3.0}),
    ("step-wise without look-alikes and lift",
     {**_STEPS, "name_boost": 0.0, "lookalike_threshold": 1.0}),
    ("step-wise, k 1, each step's first 5", _STEPS),
    ("step-wise, agent document weight 0.7 (previous default)", _PLAIN),
    ("steps weighted by their BM25 head, power 0.5", {**_PLAIN, "step_head_power": 0.5}),
    ("steps' agents the whole query also ranks x1.5", {**_PLAIN, "step_corroboration": 0.5}),
    ("head weights + corroboration 0.5, k 1", {"step_rrf_k": 1.0}),
    ("head weights + corroboration 0.5, k 0.25", {"step_rrf_k": 0.25}),
    ("head weights + corroboration 0.3, k 0.5", {"step_corroboration": 0.3}),
    ("head weights + corroboration 1.0, k 0.5", {"step_corroboration": 1.0}),
    ("head weights power 1.0 + corroboration 0.5, k 0.5", {"step_head_power": 1.0}),
    ("**head weights 0.5 + corroboration 0.5, k 0.5 (default)**", {}),
]


def _catalog_path(size: int, keep: Path) -> Path:
    from bench.scale import grow_catalog

    base = json.loads(DEV_CATALOG.read_text())
    if size <= len(base["tools"]):
        return DEV_CATALOG
    path = keep / f"catalog-{size}.json"
    if not path.is_file():
        path.write_text(json.dumps(grow_catalog(base, size)))
    return path


def _cached_rankings(index: Any, size: int, keep: Path) -> list[tuple[Any, Any, Any]]:
    """Per question: the query, and the entity and BM25 rankings of the whole and each step."""
    from bench.evaluation.retrieval import load_queries
    from stores.language.keywords import extract_keywords
    from stores.language.lexicon import Lexicon
    from stores.retrieval.ranking import RetrievalConfig, _rank_entities, embed_query
    from stores.retrieval.steps import split_steps

    path = keep / f"rankings-steps-{size}-{index._table.generation_key()}.pkl"
    if path.is_file():
        cached: list[tuple[Any, Any, Any]] = pickle.loads(path.read_bytes())
        return cached
    config, lexicon = RetrievalConfig(), Lexicon.default()
    rows = []
    for query in load_queries(DEV_QUERIES, "question"):
        steps = split_steps(query.text)
        texts = [query.text, *steps] if len(steps) > 1 else [query.text]
        rankings = []
        for text in texts:
            keywords = extract_keywords(text, lexicon) if text == query.text else []
            vector = embed_query(index, text, keywords, config.query_fsww)
            rankings.append(_rank_entities(
                index, text, vector, config.candidates, ("tool", "agent"), None, config
            ))
        rows.append((query, texts, rankings))
    path.write_bytes(pickle.dumps(rows))
    return rows


def _agents(index: Any, text: str, entities: Any, lexical: Any, config: Any) -> list[str]:
    from stores.retrieval.ranking import aggregate_agents, rank_providers

    agents = aggregate_agents(
        entities, index, len(entities), config.agent_evidence, config.evidence_k,
        config.agent_document_weight,
    )
    return [a.agent for a in rank_providers(index, text, agents, entities, lexical, config)]


def measure_variants(size: int, keep: Path) -> list[dict[str, Any]]:
    """Agent R@1 and R@5 of every variant at one size."""
    from bench.evaluation.metrics import summarize
    from bench.evaluation.retrieval import open_eval_index
    from stores.retrieval.embeddings import default_embedder
    from stores.retrieval.ranking import RetrievalConfig
    from stores.retrieval.steps import fuse_step_rankings, step_weights

    index = open_eval_index(_catalog_path(size, keep), default_embedder(), keep / f"eval-{size}",
                            False)
    cached = _cached_rankings(index, size, keep)
    out = []
    for label, change in VARIANTS:
        config = replace(RetrievalConfig(), **change)
        rows = []
        for query, texts, rankings in cached:
            ranked = [_agents(index, text, *ranking, config)
                      for text, ranking in zip(texts, rankings, strict=True)]
            agents = ranked[0]
            if config.stepwise and len(ranked) > 1:
                heads = [lexical[0].score if lexical else 0.0 for _, lexical in rankings[1:]]
                fused = fuse_step_rankings(
                    ranked[0], ranked[1:], config.step_depth, config.step_rrf_k,
                    step_weights(heads, config.step_head_power), config.step_corroboration,
                )
                agents = [agent for agent, _ in fused]
            if query.gold_agents:
                rows.append((agents, list(query.gold_agents)))
        figures = summarize(rows, (1, 5))
        out.append({"variant": label, "size": size, "agent_r1": figures["recall"][1],
                    "agent_r5": figures["recall"][5]})
        print(json.dumps(out[-1]), flush=True)
    return out


def format_variants(rows: list[dict[str, Any]], sizes: list[int]) -> list[str]:
    """One line per variant, agent R@5 and R@1 per size."""
    head = " | ".join(f"{size:,} agent R@5 | R@1" for size in sizes)
    lines = [f"| variant | {head} |", "|---" + "|---:|---:" * len(sizes) + "|"]
    for label, _ in VARIANTS:
        cells = []
        for size in sizes:
            row = next(r for r in rows if r["variant"] == label and r["size"] == size)
            cells.append(f"{row['agent_r5']:.3f} | {row['agent_r1']:.3f}")
        lines.append(f"| {label} | {' | '.join(cells)} |")
    return lines
