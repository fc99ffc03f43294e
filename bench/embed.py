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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench embed")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    batched = MiniLMOnnxEmbedder(batch_size=32)
    single = MiniLMOnnxEmbedder(batch_size=1)
    texts = SENTENCES * 2
    rate_32 = measure(batched, texts, 32, args.rounds)
    rate_1 = measure(single, texts, 1, max(1, args.rounds // 2))
    table = (
        "# Embedding throughput (all-MiniLM-L6-v2, int8 ONNX, onnxruntime, CPU)\n\n"
        f"{machine_line()}. Command: `python -m bench embed --rounds {args.rounds}`.\n"
        f'Short sentences ("create the order for account 7"), {len(texts)} per round.\n\n'
        "| setting | sentences/s |\n|---|---:|\n"
        f"| batch 32 | {rate_32:.0f} |\n| batch 1 (baseline) | {rate_1:.0f} |\n"
    )
    path = write_result("embed.md", table)
    print(table)
    print(f"written to {path}")
    return 0
