"""Embedding throughput: sentences per second at batch 32, with a one-at-a-time baseline."""

from __future__ import annotations

import argparse
import time

from bench.common import machine_line, write_result
from stores.retrieval.embeddings import MiniLMOnnxEmbedder

SENTENCES = [
    f"{verb} the {obj} for account {n}"
    for n, (verb, obj) in enumerate(
        (v, o)
        for v in ("create", "look up", "cancel", "advance", "refund", "list", "issue", "pay")
        for o in ("order", "coupon", "product", "user", "delivery", "review", "membership", "cart")
    )
]


def measure(embedder: MiniLMOnnxEmbedder, texts: list[str], batch: int, rounds: int) -> float:
    embedder.embed(texts[:batch])  # warm up
    started = time.perf_counter()
    count = 0
    for _ in range(rounds):
        for start in range(0, len(texts), batch):
            embedder.embed(texts[start : start + batch])
            count += len(texts[start : start + batch])
    return count / (time.perf_counter() - started)


def tool_texts(limit: int) -> list[str]:
    """Entry texts of the development catalog's tools, as the index embeds them."""
    from bench.common import DEV_CATALOG
    from stores.catalog.model import Catalog
    from stores.retrieval.index import tool_entry_text

    catalog = Catalog.from_file(DEV_CATALOG)
    return [tool_entry_text(spec, spec.agent) for spec in catalog.tools.values()][:limit]


def settings_table(texts: list[str]) -> list[str]:
    """Tool texts per CPU second for batch sizes and thread counts, and chunked vs one call.

    CPU seconds, not wall: on a shared machine the wall time follows the load.
    """
    import time as clock

    from stores.retrieval.index import EMBED_CHUNK

    lines = ["| threads | batch | tool texts per CPU s | per wall s |", "|---:|---:|---:|---:|"]
    for threads in (1, 2):
        for batch in (16, 32, 64, 128):
            embedder = MiniLMOnnxEmbedder(batch_size=batch, threads=threads)
            embedder.embed(texts[:batch])
            wall, cpu = clock.perf_counter(), clock.process_time()
            embedder.embed(texts)
            wall, cpu = clock.perf_counter() - wall, clock.process_time() - cpu
            rates = f"{len(texts) / cpu:.0f} | {len(texts) / wall:.0f}"
            lines.append(f"| {threads} | {batch} | {rates} |")
    embedder = MiniLMOnnxEmbedder()
    cpu = clock.process_time()
    embedder.embed(texts)
    one_call = clock.process_time() - cpu
    ordered = sorted(texts, key=len)
    cpu = clock.process_time()
    for start in range(0, len(ordered), EMBED_CHUNK):
        embedder.embed(ordered[start : start + EMBED_CHUNK])
    chunked = clock.process_time() - cpu
    cpu = clock.process_time()
    for start in range(0, len(texts), EMBED_CHUNK):
        embedder.embed(texts[start : start + EMBED_CHUNK])
    unsorted = clock.process_time() - cpu
    lines += [
        "",
        f"Chunks of {EMBED_CHUNK} against one call (CPU): sorted by length first (as the index "
        f"does now) {chunked / one_call:.2f}x; in input order (before) {unsorted / one_call:.2f}x.",
    ]
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench embed")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tool-texts", type=int, default=1000,
                        help="tool texts for the batch/thread table (0: skip it)")
    args = parser.parse_args(argv)
    batched = MiniLMOnnxEmbedder(batch_size=32)
    single = MiniLMOnnxEmbedder(batch_size=1)
    texts = SENTENCES * 2
    rate_32 = measure(batched, texts, 32, args.rounds)
    rate_1 = measure(single, texts, 1, max(1, args.rounds // 2))
    table = (
        "# Embedding throughput (all-MiniLM-L6-v2, int8 ONNX, onnxruntime, CPU)\n\n"
        f"{machine_line()}. Command: `python -m bench embed --rounds {args.rounds} "
        f"--tool-texts {args.tool_texts}`.\n"
        f'Short sentences ("create the order for account 7"), {len(texts)} per round.\n\n'
        "| setting | sentences/s |\n|---|---:|\n"
        f"| batch 32 | {rate_32:.0f} |\n| batch 1 (baseline) | {rate_1:.0f} |\n"
    )
    if args.tool_texts:
        table += (
            f"\n## Batch size and threads on {args.tool_texts} StableToolBench tool texts\n\n"
            + "\n".join(settings_table(tool_texts(args.tool_texts)))
            + "\n"
        )
    path = write_result("embed.md", table)
    print(table)
    print(f"written to {path}")
    return 0
