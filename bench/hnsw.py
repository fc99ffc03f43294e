"""HNSW recall against exact search, and query latency, per ``ef_search`` (and build settings).

``python -m bench hnsw --size 10000`` takes the vectors of the grown catalog's index (built
once and cached like the retrieval benchmark's; see ``bench/scale.py`` for the catalog),
loads them into fresh Chroma collections with each ``ef_construction``/``M`` pair, and for
each ``ef_search`` measures top-50 recall against exact cosine search over the same vectors
for the 765 StableToolBench questions, and the p50 query time. Writes bench/results/hnsw.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import DEV_CATALOG, DEV_QUERIES, machine_line, write_result

TOP = 50


def _index_vectors(size: int, cache: Path) -> tuple[list[str], np.ndarray]:
    from bench.evaluation.retrieval import open_eval_index
    from bench.scale import grow_catalog
    from stores.retrieval.embeddings import default_embedder

    catalog_path = cache / f"catalog-{size}.json"
    if not catalog_path.is_file():
        catalog_path.write_text(json.dumps(grow_catalog(json.loads(DEV_CATALOG.read_text()), size)))
    index = open_eval_index(catalog_path, default_embedder(), cache / "eval", False)
    collection = index._collection
    ids: list[str] = []
    vectors: list[Any] = []
    total = collection.count()
    for offset in range(0, total, 5000):
        batch = collection.get(include=["embeddings"], limit=5000, offset=offset)
        ids.extend(batch["ids"])
        vectors.extend(batch["embeddings"])
    return ids, np.asarray(vectors, dtype=np.float32)


def main(argv: list[str]) -> int:
    """Measure the recall/latency curve and write bench/results/hnsw.md."""
    parser = argparse.ArgumentParser(prog="python -m bench hnsw")
    parser.add_argument("--size", type=int, default=10000, help="tools in the grown catalog")
    parser.add_argument("--cache", default=".zspace/bench-scale", help="where indexes are kept")
    parser.add_argument("--ef-search", type=int, nargs="+", default=[50, 100, 200, 400, 800])
    parser.add_argument(
        "--build", nargs="+", default=["100:16", "200:16", "200:32"],
        help="ef_construction:M pairs (Chroma's default is 100:16)",
    )
    args = parser.parse_args(argv)
    from bench.evaluation.retrieval import load_queries
    from stores.retrieval.embeddings import default_embedder
    from stores.retrieval.index import make_chroma_client

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    ids, vectors = _index_vectors(args.size, cache)
    queries = [q.text for q in load_queries(DEV_QUERIES, "question")]
    query_vectors = default_embedder().embed(queries)
    similarity = query_vectors @ vectors.T
    # Look-alike tools share texts, so several vectors tie: a returned id counts when its exact
    # similarity reaches the 50th best's (ids of tied vectors are interchangeable).
    kth = -np.sort(-similarity, axis=1)[:, TOP - 1]
    position = {entry_id: i for i, entry_id in enumerate(ids)}
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        client = make_chroma_client(Path(scratch))
        for build in args.build:
            construction, neighbors = (int(part) for part in build.split(":"))
            for ef in args.ef_search:
                # A collection per ef_search, set at creation: nothing depends on modify().
                collection = client.create_collection(
                    f"hnsw-{construction}-{neighbors}-{ef}", embedding_function=None,
                    configuration={"hnsw": {"space": "cosine", "ef_construction": construction,
                                            "max_neighbors": neighbors, "ef_search": ef}},
                )
                started = time.perf_counter()
                for start in range(0, len(ids), 5000):
                    collection.add(ids=ids[start:start + 5000],
                                   embeddings=vectors[start:start + 5000])
                build_s = time.perf_counter() - started
                recalls, latencies = [], []
                for number, vector in enumerate(query_vectors):
                    started = time.perf_counter()
                    found = collection.query(query_embeddings=[vector], n_results=TOP,
                                             include=[])["ids"][0]
                    latencies.append((time.perf_counter() - started) * 1000)
                    hits = sum(
                        similarity[number, position[i]] >= kth[number] - 1e-5 for i in found
                    )
                    recalls.append(hits / TOP)
                row = {"ef_construction": construction, "M": neighbors, "ef_search": ef,
                       "recall": statistics.fmean(recalls), "p50_ms": statistics.median(latencies),
                       "build_s": build_s}
                print(json.dumps(row), flush=True)
                rows.append(row)
                client.delete_collection(f"hnsw-{construction}-{neighbors}-{ef}")
    lines = [
        "# HNSW: top-50 recall against exact search, and query time\n",
        f"{machine_line()}. Command: `python -m bench hnsw --size {args.size}`.",
        f"{len(ids):,} vectors (the {args.size:,}-tool grown catalog of `bench/scale.py`, tools "
        f"+ agents), {len(queries)} StableToolBench questions; recall = share of Chroma's top 50 "
        "whose exact cosine reaches the exact 50th best (tied look-alikes are interchangeable); "
        "build = adding every vector. Machine shared (load average 11-15): times are inflated.\n",
        "| ef_construction | M | build s | ef_search | top-50 recall | query p50 ms |",
        "|---:|---:|---:|---:|---:|---:|",
        *[
            f"| {r['ef_construction']} | {r['M']} | {r['build_s']:.1f} | {r['ef_search']} "
            f"| {r['recall']:.4f} | {r['p50_ms']:.2f} |"
            for r in rows
        ],
    ]
    path = write_result("hnsw.md", "\n".join(lines) + "\n")
    print(f"written to {path}")
    return 0
