"""Sync, start-up and quality of a kept home: ``python -m bench scale --home DIR --catalog FILE``.

Measures an index that is already built (a home kept by ``python -m bench scale --keep``)
without embedding it again: a no-op ``zspace index`` (in a fresh process and in-process), one
changed tool, ``zspace search`` start-up above ``import chromadb, numpy``, query latency and
agent / tool Recall@5 on the 765 gold questions, whole query and step-wise. With
``--chroma-url`` the home's collections are served by a Chroma server (``chroma run --path
<the home's index/chroma>``: the server reads an embedded Chroma's files as they are) and
zspace reaches them over HTTP, as a user's ``ZSPACE_CHROMA_URL`` would. ``--server-pid`` adds
the server process's own CPU seconds for each step. Rows go to bench/results/scale_server.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from bench.common import DEV_QUERIES, REPO
from bench.scale import _child_seconds as _scale_child_seconds
from bench.scale import _index_quietly, write_section
from graph.deps import configured_index_name
from stores.catalog.store import CatalogStore

SEARCH = ["-m", "graph.cli", "search", "weather forecast for a city", "--json"]
_LAST_OUTPUT: list[str] = []  # what each child printed, for its counts


def _child_seconds(
    command: list[str], env: dict[str, str], runs: int = 3
) -> tuple[float, float]:
    """``bench.scale``'s child timing, keeping what each child printed in ``_LAST_OUTPUT``."""
    return _scale_child_seconds(command, env, runs, outputs=_LAST_OUTPUT)


def _server_cpu(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 when no pid is given)."""
    if not pid:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _change_one_tool(catalog_path: Path, mark: str) -> str:
    """Rewrite ``catalog_path`` in place with one tool's description changed; its id.

    In place, the file written as it was (``json.dumps``): only that record's text changes,
    so ``zspace index`` takes its O(changed) path (``stores.catalog.changes``).
    """
    document = json.loads(catalog_path.read_text())
    tool = document["tools"][len(document["tools"]) // 3]
    tool["description"] = f"{tool.get('description', '')} ({mark})"
    catalog_path.write_text(json.dumps(document))
    return str(tool["id"])


def _last_counts() -> dict[str, Any]:
    """The JSON counts the last ``zspace index`` child printed."""
    counts: dict[str, Any] = json.loads(_LAST_OUTPUT[-1].strip().splitlines()[-1])
    return counts


def measure_home(home: Path, catalog_path: Path, server_pid: int | None = None) -> dict[str, Any]:
    """Every figure of one row for the kept ``home`` indexed from ``catalog_path``."""
    from bench.evaluation.retrieval import evaluate, load_queries
    from graph.deps import Deps
    from stores.retrieval.ranking import RetrievalConfig

    os.environ["ZSPACE_HOME"] = str(home)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    row: dict[str, Any] = {"home": str(home), "chroma_url": os.environ.get("ZSPACE_CHROMA_URL")}

    index_child = [sys.executable, "-m", "graph.cli", "index", str(catalog_path), "--json"]
    import_s, import_cpu = _child_seconds([sys.executable, "-c", "import chromadb, numpy"], env)
    # Settle the home first: a home kept by an older version (whose records' keys included
    # the file's path) validates every record once; this one also records the file's keys.
    _child_seconds(index_child, env, runs=1)
    store = CatalogStore(home / "catalog.sqlite")
    store.record_sync(configured_index_name(None), None)  # the next one compares every record
    store.close()
    server = _server_cpu(server_pid)
    row["noop_full_s"], row["noop_full_cpu"] = _child_seconds(index_child, env, runs=1)
    row["noop_full_server_cpu"] = _server_cpu(server_pid) - server
    server = _server_cpu(server_pid)
    row["noop_child_s"], row["noop_child_cpu"] = _child_seconds(index_child, env, runs=2)
    row["noop_child_server_cpu"] = (_server_cpu(server_pid) - server) / 2
    row["noop_child_above_import_cpu"] = row["noop_child_cpu"] - import_cpu
    noop = _index_quietly(catalog_path)
    row["noop_cpu"], row["noop_s"] = noop["cpu"], noop["wall"]
    row["noop_embedded"] = noop["indexed"]

    original = catalog_path.read_bytes()
    try:
        row["changed_tool"] = _change_one_tool(catalog_path, f"changed {time.time():.0f}")
        server = _server_cpu(server_pid)
        row["change_s"], row["change_cpu"] = _child_seconds(index_child, env, runs=1)
        row["change_server_cpu"] = _server_cpu(server_pid) - server
        row["change_embedded"] = _last_counts()["indexed"]
    finally:
        catalog_path.write_bytes(original)
    row["restore_s"], row["restore_cpu"] = _child_seconds(index_child, env, runs=1)
    row["restore_embedded"] = _last_counts()["indexed"]

    server = _server_cpu(server_pid)
    start_s, start_cpu = _child_seconds([sys.executable, *SEARCH], env)
    row["startup_above_import_s"] = start_s - import_s
    row["startup_above_import_cpu"] = start_cpu - import_cpu
    row["startup_server_cpu"] = (_server_cpu(server_pid) - server) / 3

    index = Deps(home=home).get_index()
    queries = load_queries(DEV_QUERIES, "question")
    evaluate(index, queries[:20], RetrievalConfig())
    for label, config in (
        ("whole", RetrievalConfig(stepwise=False)),
        ("steps", RetrievalConfig()),
    ):
        started = time.perf_counter()
        figures, _ = evaluate(index, queries, config)
        row[f"{label}_wall_s"] = time.perf_counter() - started
        row[f"{label}_p50_ms"] = figures["latency_ms"]["p50"]
        row[f"{label}_p95_ms"] = figures["latency_ms"]["p95"]
        row[f"{label}_agent_r5"] = figures["agents"]["recall"][5]
        row[f"{label}_tool_r5"] = figures["tools"]["recall"][5]
    row["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return row


def format_home_rows(rows: list[dict[str, Any]]) -> list[str]:
    """Table lines: CPU seconds of fresh processes (the machine is shared), wall in brackets."""
    lines = [
        "| index | no-op `zspace index`, every record compared: CPU s (wall) | no-op, file "
        "digests match: CPU s (wall) | one changed tool: CPU s (embedded) | `zspace search` "
        "start-up above import: CPU s (wall) | query p50 / p95 ms, whole query | p50 / p95 ms, "
        "step-wise | agent R@5 whole / step-wise | tool R@5 | server CPU s: no-op compared, "
        "no-op digests, change, start-up |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        where = f"server {row['chroma_url']}" if row.get("chroma_url") else "embedded"
        lines.append(
            f"| {where} | {row['noop_full_cpu']:.2f} ({row['noop_full_s']:.1f}) "
            f"| {row['noop_child_cpu']:.2f} ({row['noop_child_s']:.1f}) "
            f"| {row['change_cpu']:.2f} ({row['change_embedded']}) "
            f"| {row['startup_above_import_cpu']:.2f} ({row['startup_above_import_s']:.1f}) "
            f"| {row['whole_p50_ms']:.0f} / {row['whole_p95_ms']:.0f} "
            f"| {row['steps_p50_ms']:.0f} / {row['steps_p95_ms']:.0f} "
            f"| {row['whole_agent_r5']:.3f} / {row['steps_agent_r5']:.3f} "
            f"| {row['whole_tool_r5']:.3f} "
            f"| {row['noop_full_server_cpu']:.2f}, {row['noop_child_server_cpu']:.2f}, "
            f"{row['change_server_cpu']:.2f}, {row['startup_server_cpu']:.2f} |"
        )
    return lines


def main(args: argparse.Namespace) -> int:
    """Measure the kept home ``args.home`` and write a section of scale_server.md."""
    home, catalog_path = Path(args.home), Path(args.catalog)
    if not (home / "catalog.sqlite").is_file() or not catalog_path.is_file():
        print(f"--home {home} needs a catalog.sqlite and --catalog {catalog_path} must exist",
              file=sys.stderr)
        return 2
    if args.chroma_url:
        os.environ["ZSPACE_CHROMA_URL"] = args.chroma_url
    rows = [json.loads(line) for line in Path(args.rows).read_text().splitlines()
            if line.startswith("{")] if args.rows else []
    if not rows:
        row = measure_home(home, catalog_path, args.server_pid)
        print(json.dumps(row), flush=True)
        rows = [row]
    command = f"python -m bench scale --home {home} --catalog {catalog_path}"
    command += f" --chroma-url {args.chroma_url}" if args.chroma_url else ""
    command += " --server-pid PID" if args.server_pid else ""
    header = (
        "# A kept index on a Chroma server\n\n"
        "Figures of an index built once and kept (`python -m bench scale --keep`), measured "
        "in place by `bench/scale_server.py`; nothing is embedded again but the one changed "
        "tool.\n\n"
    )
    section, _text = write_section(
        "scale_server.md", header, args.label, command, format_home_rows(rows)
    )
    print(section)
    return 0
