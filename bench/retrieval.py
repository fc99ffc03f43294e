"""Retrieval quality (the ablation table) and latency on the development catalog."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.common import DEV_CATALOG, DEV_QUERIES, display_path, machine_line, write_result
from bench.evaluation.retrieval import evaluate, load_queries, method_presets, open_eval_index
from graph.deps import Deps

ABLATION_ORDER = [
    "bm25-agents",
    "bm25-joint",
    "dense-tools",
    "dense-agents",
    "hierarchical",
    "dense-joint",
    "hybrid-rrf",
    "hybrid-weighted",
    "hybrid",
    "hybrid-fsww-query",
    "hybrid-fsww-index",
    "hybrid-fsww-both",
]


def ablation_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench ablation")
    parser.add_argument("--catalog", default=str(DEV_CATALOG))
    parser.add_argument("--queries", default=str(DEV_QUERIES))
    parser.add_argument("--mode", choices=["step", "question"], default="question")
    parser.add_argument("--methods", default=",".join(ABLATION_ORDER))
    parser.add_argument("--out", default="retrieval.md")
    args = parser.parse_args(argv)
    presets = method_presets()
    deps = Deps()
    queries = load_queries(Path(args.queries), args.mode)
    rows = []
    indexes = {}
    for name in [*args.methods.split(","), "default"]:
        preset = presets[name]
        if preset.index_fsww not in indexes:
            indexes[preset.index_fsww] = open_eval_index(
                Path(args.catalog), deps.get_embedder(), deps.get_home() / "eval", preset.index_fsww
            )
        figures, _ = evaluate(indexes[preset.index_fsww], queries, preset.config)
        rows.append((preset, figures))
        a, t = figures["agents"], figures["tools"]
        print(
            f"{preset.name:20} agentR@5 {a['recall'][5]:.4f} nDCG@5 {a['ndcg'][5]:.4f} "
            f"toolR@5 {t['recall'][5]:.4f} p50 {figures['latency_ms']['p50']:.1f} ms",
            flush=True,
        )
    lines = [
        "# Retrieval ablation\n",
        f"{machine_line()}.",
        f"Data: `{display_path(args.catalog)}` with {len(queries)} {args.mode}-mode queries; "
        "embeddings all-MiniLM-L6-v2 (int8 ONNX).",
        f"Command: `python -m bench ablation --mode {args.mode}`.\n",
        "| method | agent R@1 | agent R@5 | agent nDCG@5 | agent R@10 | tool R@5 | tool nDCG@5 "
        "| p50 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for preset, figures in rows:
        a, t = figures["agents"], figures["tools"]
        lines.append(
            f"| {preset.label} | {a['recall'][1]:.3f} | {a['recall'][5]:.3f} "
            f"| {a['ndcg'][5]:.3f} | "
            f"{a['recall'][10]:.3f} | {t['recall'][5]:.3f} | {t['ndcg'][5]:.3f} | "
            f"{figures['latency_ms']['p50']:.1f} |"
        )
    path = write_result(args.out, "\n".join(lines) + "\n")
    print(f"written to {path}")
    return 0


def main(argv: list[str]) -> int:
    """Latency of the default method per query, embedding of query and keywords included."""
    parser = argparse.ArgumentParser(prog="python -m bench retrieval")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args(argv)
    presets = method_presets()
    deps = Deps()
    queries = load_queries(DEV_QUERIES, "question")[: args.queries]
    results = {}
    for name in ("default", "bm25-joint", "dense-joint"):
        preset = presets[name]
        index = open_eval_index(
            DEV_CATALOG, deps.get_embedder(), deps.get_home() / "eval", preset.index_fsww
        )
        evaluate(index, queries[:20], preset.config)  # warm up caches and the model
        figures, _ = evaluate(index, queries, preset.config)
        results[name] = figures["latency_ms"]
    table = [
        "# Retrieval latency per query\n",
        f"{machine_line()}. Command: `python -m bench retrieval --queries {args.queries}`.",
        f"{len(queries)} StableToolBench questions over 2,490 tools + 814 agents; keyword "
        "extraction, query (+ keyword) embedding, Chroma and BM25 search and fusion included.\n",
        "| method | p50 ms | p95 ms |",
        "|---|---:|---:|",
    ]
    for name, latency in results.items():
        table.append(f"| {presets[name].label} | {latency['p50']:.1f} | {latency['p95']:.1f} |")
    path = write_result("latency.md", "\n".join(table) + "\n")
    print("\n".join(table))
    print(json.dumps({k: v for k, v in results.items()}))
    print(f"written to {path}")
    return 0
