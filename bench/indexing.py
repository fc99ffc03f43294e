"""Indexing the development catalog: from nothing, again unchanged, after changing one tool."""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench.common import DEV_CATALOG, machine_line, write_result
from stores.catalog.enrich import enrich_catalog
from stores.catalog.model import Catalog
from stores.retrieval.embeddings import default_embedder
from stores.retrieval.index import ToolIndex


def timed_sync(directory: Path, catalog: Catalog) -> tuple[float, int]:
    started = time.perf_counter()
    index = ToolIndex(directory, default_embedder(), name="bench")
    report = index.sync(catalog)
    return time.perf_counter() - started, report.indexed


def load() -> tuple[Catalog, float]:
    started = time.perf_counter()
    catalog = Catalog.from_file(DEV_CATALOG)
    enrich_catalog(catalog)
    return catalog, time.perf_counter() - started


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="python -m bench indexing").parse_args(argv)
    default_embedder().embed(["warm up"])
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        catalog, load_s = load()
        first_s, first_n = timed_sync(directory, catalog)
        catalog, load2_s = load()
        again_s, again_n = timed_sync(directory, catalog)
        catalog, _ = load()
        tool = next(iter(catalog.tools.values()))
        tool.description += " (changed)"
        changed_s, changed_n = timed_sync(directory, catalog)
    rows = [
        ("from nothing", load_s + first_s, first_n),
        ("again, nothing changed", load2_s + again_s, again_n),
        ("after changing one tool's description", changed_s, changed_n),
    ]
    lines = [
        "# Indexing the development catalog\n",
        f"{machine_line()}. Command: `python -m bench indexing`.",
        "2,490 StableToolBench tools + 814 agents into embedded Chroma + BM25 with "
        "all-MiniLM-L6-v2 (int8 ONNX); load, validation and tag derivation included.\n",
        "| run | seconds | entries embedded |", "|---|---:|---:|",
        *[f"| {name} | {seconds:.1f} | {count} |" for name, seconds, count in rows],
    ]
    text = "\n".join(lines) + "\n"
    write_result("indexing.md", text)
    print(text)
    print(json.dumps({name: {"seconds": round(s, 2), "embedded": n} for name, s, n in rows}))
    return 0
