"""Benchmark runners: ``python -m bench NAME``. Each writes a table under bench/results/."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from stores.settings import apply_offline_environment


def main(argv: list[str] | None = None) -> int:
    apply_offline_environment()
    from bench import (
        bfcl,
        bfcl_ablation,
        chinese,
        crash,
        e2e,
        embed,
        faults,
        gate_dev,
        hnsw,
        indexing,
        model_ceiling,
        others,
        pipeline,
        retrieval,
        scale,
        spans,
        thirdparty,
    )

    runners: dict[str, Callable[[list[str]], int]] = {
        "embed": embed.main,
        "indexing": indexing.main,
        "retrieval": retrieval.main,
        "ablation": retrieval.ablation_main,
        "pipeline": pipeline.main,
        "crash": crash.main,
        "faults": faults.main,
        "e2e": e2e.main,
        "bfcl": bfcl.main,
        "chinese": chinese.main,
        "bfcl_ablation": bfcl_ablation.main,
        "model_ceiling": model_ceiling.main,
        "scale": scale.main,
        "hnsw": hnsw.main,
        "spans": spans.main,
        "thirdparty": thirdparty.main,
        "gate_dev": gate_dev.main,
        "others": others.main,
    }
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("name", choices=[*runners, "all"])
    args, rest = parser.parse_known_args(argv)
    if args.name == "all":
        status = 0
        for name, runner in runners.items():
            print(f"== bench {name}", flush=True)
            status |= runner([])
        return status
    return runners[args.name](rest)


if __name__ == "__main__":
    sys.exit(main())
