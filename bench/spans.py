"""Typed-span speed: median milliseconds of ``extract_spans`` per request after warm-up.

Also times what the libraries cost once per process (dateparser's first parse, jieba's
dictionary) and per call, so a regression shows which part grew.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import datetime

from bench.common import machine_line, write_result

# About twenty words each, in the shape of function-calling requests (not copied from one).
ENGLISH = [
    "Please book 2 tickets for the jazz concert in New York City on March 3rd at 7pm for me",
    "Calculate the area of a rectangle whose width is 12 units and whose height is 7.5 units",
    "Send an email to alice@example.com with the subject 'Quarterly report' and attach /tmp/q3.pdf",
    "What is the weather going to be like in Paris, London and Tokyo next Monday afternoon",
    "Transfer $1,250.50 from account 00123456 to account 00987654 and add the note rent",
    "Set the stock of product SKU-2024-17 to 250 units and apply a discount of 15% today",
    "Find Italian restaurants in San Francisco, CA that are open for dinner tomorrow at 8pm",
    "Convert twenty five miles to kilometers and tell me how long driving takes at 60 mph",
    "Schedule a 2-hour meeting with Taylor Swift and Ed Sheeran in 3 days about the tour",
    "Call the search api with limit=10, verbose=true and the query 'machine learning' please",
]
CHINESE = [
    "帮我创建一个订单，数量是3，收货地址是北京，明天下午3点前送到",
    "把商品 SKU-2024-17 的库存设为 250，并且打八五折，价格改成两百元",
]


def _median_ms(call: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench spans")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args(argv)
    now = datetime(2026, 11, 24, 12, 0)

    started = time.perf_counter()
    from stores.language.spans import context_words, extract_spans
    from stores.language.spans_dates import _parse_words

    import_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    extract_spans(ENGLISH[0], now=now)
    first_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    spans = extract_spans(CHINESE[0], now=now)
    context_words(CHINESE[0], spans[-1])
    first_chinese_ms = (time.perf_counter() - started) * 1000

    def english() -> None:
        for text in ENGLISH:
            extract_spans(text, now=now)

    def chinese() -> None:
        for text in CHINESE:
            extract_spans(text, now=now)

    def contexts() -> None:
        for text in ENGLISH:
            for span in extract_spans(text, now=now):
                context_words(text, span)

    def english_uncached() -> None:
        for text in ENGLISH:
            _parse_words.cache_clear()
            extract_spans(text, now=now)

    english_ms = _median_ms(english, args.rounds) / len(ENGLISH)
    uncached_ms = _median_ms(english_uncached, args.rounds) / len(ENGLISH)
    chinese_ms = _median_ms(chinese, args.rounds) / len(CHINESE)
    context_ms = _median_ms(contexts, args.rounds) / len(ENGLISH)
    table = (
        "# Typed spans: time per request\n\n"
        f"{machine_line()}. Command: `python -m bench spans --rounds {args.rounds}`.\n"
        f"{len(ENGLISH)} English requests of about 20 words, {len(CHINESE)} Chinese ones;"
        " medians of the per-request time after warm-up.\n\n"
        "| what | ms |\n|---|---:|\n"
        f"| import stores.language.spans | {import_ms:.1f} |\n"
        f"| first English request (loads dateparser's data) | {first_ms:.1f} |\n"
        f"| first Chinese request + context (loads jieba's dictionary) | {first_chinese_ms:.1f} |\n"
        f"| extract_spans, English request, median | {english_ms:.3f} |\n"
        f"| the same, dates parsed afresh (cache cleared), median | {uncached_ms:.3f} |\n"
        f"| extract_spans, Chinese request, median | {chinese_ms:.3f} |\n"
        f"| extract_spans + context_words of every span, English, median | {context_ms:.3f} |\n"
    )
    path = write_result("spans.md", table)
    print(table)
    print(f"written to {path}")
    return 0
