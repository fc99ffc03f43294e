"""Retrieval evaluation in the two-file benchmark format (catalog.json + queries.jsonl).

Step mode: each step with gold is one query. Question mode: the question is the query.
Agents are ranked by Tool-to-Agent aggregation, tools directly; metrics are Recall, AP and
nDCG at K with binary relevance (``stores.metrics``), plus latency per query.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from bench.evaluation.metrics import percentile, summarize
from stores.catalog.enrich import enrich_catalog
from stores.catalog.model import Catalog
from stores.language.keywords import extract_keywords
from stores.language.lexicon import Lexicon
from stores.retrieval.embeddings import Embedder
from stores.retrieval.fsww import FSWWParams
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, retrieve

Mode = Literal["step", "question"]
RUN_DEPTH = 10


class BenchmarkFormatError(ValueError):
    """A queries file that does not follow the benchmark format."""


@dataclass(frozen=True)
class EvalQuery:
    """One query to score."""

    qid: str
    step: int | None
    text: str
    gold_agents: tuple[str, ...]
    gold_tools: tuple[str, ...]


@dataclass(frozen=True)
class MethodPreset:
    """A named retrieval method: the ranking config and whether tools are fused at index time."""

    name: str
    label: str
    config: RetrievalConfig
    index_fsww: bool = False


def method_presets() -> dict[str, MethodPreset]:
    """Every method of the ablation table, by name; ``default`` is the shipped one."""
    plain = RetrievalConfig()
    presets = [
        MethodPreset(
            "bm25-agents", "BM25 agent-only", replace(plain, method="bm25", scope="agents")
        ),
        MethodPreset("bm25-joint", "BM25 joint + T2A", replace(plain, method="bm25")),
        MethodPreset(
            "dense-tools", "dense tool-only", replace(plain, method="dense", scope="tools")
        ),
        MethodPreset(
            "dense-agents", "dense agent-only", replace(plain, method="dense", scope="agents")
        ),
        MethodPreset(
            "hierarchical", "hierarchical (MCP-Zero)", replace(plain, method="hierarchical")
        ),
        MethodPreset("dense-joint", "dense joint + T2A", replace(plain, method="dense")),
        MethodPreset(
            "hybrid-rrf",
            "hybrid joint + T2A (RRF k=60, equal weights)",
            replace(plain, fusion="rrf", dense_weight=0.5),
        ),
        MethodPreset(
            "hybrid-weighted",
            "hybrid joint + T2A (min-max, dense 0.3)",
            replace(plain, fusion="weighted"),
        ),
        MethodPreset("hybrid", "hybrid joint + T2A (z-score, dense 0.3)", plain),
        MethodPreset(
            "hybrid-fsww-query", "hybrid + FSWW query side", replace(plain, query_fsww=FSWWParams())
        ),
        MethodPreset("hybrid-fsww-index", "hybrid + FSWW index side", plain, index_fsww=True),
        MethodPreset(
            "hybrid-fsww-both",
            "hybrid + FSWW both sides",
            replace(plain, query_fsww=FSWWParams()),
            index_fsww=True,
        ),
    ]
    table = {preset.name: preset for preset in presets}
    table["default"] = replace(
        table[DEFAULT_METHOD], name="default", label=f"default (= {DEFAULT_METHOD})"
    )
    return table


DEFAULT_METHOD = "hybrid"


def load_queries(path: Path, mode: Mode) -> list[EvalQuery]:
    """Read queries.jsonl and expand it for the mode.

    Raises:
        BenchmarkFormatError: a line is not JSON or lacks the fields the mode needs.
    """
    queries: list[EvalQuery] = []
    for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            qid = str(row["id"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise BenchmarkFormatError(
                f"{path} line {line_number}: expected a JSON object with an 'id' ({exc})"
            ) from exc
        if mode == "question":
            if "question" not in row:
                raise BenchmarkFormatError(f"{path} line {line_number}: no 'question'")
            queries.append(
                EvalQuery(
                    qid,
                    None,
                    row["question"],
                    tuple(row.get("agents", [])),
                    tuple(row.get("tools", [])),
                )
            )
            continue
        for step_index, step in enumerate(row.get("steps") or []):
            agents, tools = tuple(step.get("agents", [])), tuple(step.get("tools", []))
            if agents or tools:
                queries.append(EvalQuery(qid, step_index, step["text"], agents, tools))
    return queries


def catalog_fingerprint(path: Path) -> str:
    """Hash of a catalog file's bytes, naming its cached index."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def open_eval_index(
    catalog_path: Path,
    embedder: Embedder,
    directory: Path,
    index_fsww: bool,
    progress: Callable[[int, int], None] | None = None,
) -> ToolIndex:
    """Open the cached index of a catalog (built on first use; reused while unchanged)."""
    catalog = Catalog.from_file(catalog_path)
    enrich_catalog(catalog)
    name = f"eval-{catalog_fingerprint(catalog_path)}-{'fsww' if index_fsww else 'plain'}"
    index = ToolIndex(
        directory, embedder, name=name, index_fsww=FSWWParams() if index_fsww else None
    )
    index.sync(catalog, progress=progress)
    return index


def evaluate(
    index: ToolIndex,
    queries: Sequence[EvalQuery],
    config: RetrievalConfig,
    ks: Sequence[int] = (1, 3, 5, 10),
    lexicon: Lexicon | None = None,
    environments: Sequence[str] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Score one method over queries (optionally under an environment allow-list).

    Returns:
        ``(figures, run_rows)``: figures has ``agents`` and ``tools`` metric tables, latency
        percentiles and the query count; run rows follow FORMAT.md's run file.
    """
    lexicon = lexicon or Lexicon.default()
    depth = max(max(ks), RUN_DEPTH)
    agent_rows: list[tuple[list[str], list[str]]] = []
    tool_rows: list[tuple[list[str], list[str]]] = []
    latencies: list[float] = []
    run: list[dict[str, Any]] = []
    for query in queries:
        started = time.perf_counter()
        keywords = extract_keywords(query.text, lexicon)
        result = retrieve(
            index, query.text, keywords, k_tools=depth, k_agents=depth, config=config,
            environments=environments,
        )
        latencies.append((time.perf_counter() - started) * 1000)
        ranked_agents = [a.agent for a in result.agents]
        ranked_tools = [t.tool_id for t in result.tools]
        if query.gold_agents:
            agent_rows.append((ranked_agents, list(query.gold_agents)))
        if query.gold_tools:
            tool_rows.append((ranked_tools, list(query.gold_tools)))
        run.append(
            {
                "qid": query.qid,
                "step": query.step,
                "ranked": ranked_agents,
                "ranked_tools": ranked_tools,
            }
        )
    figures = {
        "queries": len(queries),
        "agents": summarize(agent_rows, ks),
        "tools": summarize(tool_rows, ks),
        "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
    }
    return figures, run
