"""Ranking variants at size: ``python -m bench scale --variants --sizes 2490 10000 --keep DIR``.

Per size, the grown catalog's index is built once under ``DIR/eval-<size>`` (the index is the
embedding cache: its entries are keyed by content hash, so a second run embeds nothing), the
fused entity ranking and the BM25 ranking of every question are cached in
``DIR/rankings-<size>-<generation>.pkl``, and each variant re-ranks the agents from that cache
with the shipped functions (``aggregate_agents``, ``rank_providers``): no variant re-embeds
or re-searches. A size at or below the development catalog's 2,490 tools is that catalog.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import DEV_CATALOG, DEV_QUERIES

_NO_LIFT: dict[str, Any] = {"name_boost": 0.0, "lookalike_threshold": 0.85}
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("agent graph only (previous default)", {"name_boost": 0.0, "lookalike_threshold": 1.0}),
    ("named provider lift 0.25", {"name_boost": 0.25, "lookalike_threshold": 1.0}),
    ("named provider lift 0.5", {"name_boost": 0.5, "lookalike_threshold": 1.0}),
    ("named provider lift 1.0", {"name_boost": 1.0, "lookalike_threshold": 1.0}),
    ("look-alikes 0.85, swap inside groups only", {**_NO_LIFT, "lookalike_demotion": 0}),
    ("look-alikes 0.85, demote 1", {**_NO_LIFT, "lookalike_demotion": 1}),
    ("look-alikes 0.85, demote 2", {**_NO_LIFT, "lookalike_demotion": 2}),
    ("look-alikes 0.85, demote 3", {**_NO_LIFT, "lookalike_demotion": 3}),
    ("look-alikes 0.85, demote to the end", {**_NO_LIFT, "lookalike_demotion": 30}),
    ("lift 0.5 + look-alikes 0.80, demote 2", {"lookalike_threshold": 0.8}),
    ("lift 0.5 + look-alikes 0.80, demote 3",
     {"lookalike_threshold": 0.8, "lookalike_demotion": 3}),
    ("lift 0.5 + look-alikes 0.85, demote 1",
     {"lookalike_threshold": 0.85, "lookalike_demotion": 1}),
    ("lift 0.5 + look-alikes 0.85, demote 2", {"lookalike_threshold": 0.85}),
    ("lift 0.5 + look-alikes 0.85, demote 3",
     {"lookalike_threshold": 0.85, "lookalike_demotion": 3}),
    ("lift 1.0 + look-alikes 0.85, demote 2", {"name_boost": 1.0, "lookalike_threshold": 0.85}),
    ("**lift 0.5 + look-alikes 0.90, demote 2 (default)**", {}),
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
    from bench.evaluation.retrieval import load_queries
    from stores.language.keywords import extract_keywords
    from stores.language.lexicon import Lexicon
    from stores.retrieval.ranking import RetrievalConfig, _rank_entities, embed_query

    path = keep / f"rankings-{size}-{index._table.generation_key()}.pkl"
    if path.is_file():
        cached: list[tuple[Any, Any, Any]] = pickle.loads(path.read_bytes())
        return cached
    config, lexicon = RetrievalConfig(), Lexicon.default()
    rows = []
    for query in load_queries(DEV_QUERIES, "question"):
        keywords = extract_keywords(query.text, lexicon)
        vector = embed_query(index, query.text, keywords, config.query_fsww)
        entities, lexical = _rank_entities(
            index, query.text, vector, config.candidates, ("tool", "agent"), None, config
        )
        rows.append((query, entities, lexical))
    path.write_bytes(pickle.dumps(rows))
    return rows


def measure_variants(size: int, keep: Path) -> list[dict[str, Any]]:
    """Agent R@1 and R@5 of every variant at one size."""
    from bench.evaluation.metrics import summarize
    from bench.evaluation.retrieval import open_eval_index
    from stores.retrieval.embeddings import default_embedder
    from stores.retrieval.ranking import RetrievalConfig, aggregate_agents, rank_providers

    index = open_eval_index(_catalog_path(size, keep), default_embedder(), keep / f"eval-{size}",
                            False)
    cached = _cached_rankings(index, size, keep)
    out = []
    for label, change in VARIANTS:
        config = replace(RetrievalConfig(), **change)
        rows = []
        for query, entities, lexical in cached:
            agents = aggregate_agents(
                entities, index, len(entities), config.agent_evidence, config.evidence_k
            )
            ranked = rank_providers(index, query.text, agents, entities, lexical, config)
            if query.gold_agents:
                rows.append(([a.agent for a in ranked], list(query.gold_agents)))
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
