"""A fast inner loop for the schema binder: bind BFCL cases' functions directly, no graph.

``python -m bench.binder_probe CATEGORY [--limit N] [--show]`` binds the request of each case
to its first expected function (the tool choice is the graph's, not measured here) and scores
the calls with BFCL's checker. Development categories only; the figures to report come from
``zspace eval bfcl``.
"""

from __future__ import annotations

import argparse
import json
import sys

from bench.evaluation.bfcl import case_request, compiled_tools, load_cases, score_case, spread
from nodes.planning.descriptions import without_examples
from nodes.planning.schema_binder import bind_schema, content_words, name_words
from stores.retrieval.embeddings import default_embedder


def main(argv: list[str]) -> int:
    """Bind and score; print the failures with ``--show``."""
    parser = argparse.ArgumentParser(prog="python -m bench.binder_probe")
    parser.add_argument("category")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    embedder = default_embedder()

    def similarity(query: str, phrases: list[str]) -> list[float]:
        vectors = embedder.embed([query, *phrases])
        return [float(vectors[0] @ v) for v in vectors[1:]]

    passed = 0
    cases = spread(load_cases(args.category), args.limit)
    for case in cases:
        tools = {t["name"]: t for t in compiled_tools(case)}
        wanted = [next(iter(call)) for call in case.get("ground_truth") or []]
        request = case_request(case)
        calls = []
        for name in dict.fromkeys(wanted):
            binding = bind_schema(
                request, tools[name]["parameters"], similarity=similarity,  # type: ignore[arg-type]
                exclude=name_words(name),
                described=content_words(without_examples(tools[name].get("description", ""))),
            )
            if not binding.missing:
                calls += [{name: args} for args in binding.sets]
        ok = score_case(args.category, case, calls)
        passed += ok
        if args.show and not ok:
            print(f"--- {case['id']}: {request}")
            print("    got ", json.dumps(calls)[:400])
            print("    want", json.dumps(case.get("ground_truth"))[:400])
    print(f"{args.category}: {passed}/{len(cases)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
