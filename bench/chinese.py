"""Chinese and mixed Chinese-English requests against real tool schemas: right tool and args.

``python -m bench chinese`` runs the requests of ``bench/data/chinese/requests.jsonl`` (written
for this benchmark, from no benchmark's data) through zspace's whole graph, offline, with the
rule planner. Each request's world is a set of real tool schemas: ``third_party`` the tools of
the MCP servers time (``mcp-server-time``), memory and filesystem
(``@modelcontextprotocol/server-*``) as their ``list_tools`` answered
(``bench/data/chinese/third_party_tools.json``), ``sandbox`` the sandbox's own catalog
(``sandbox/data/catalog.json``). Tools record the arguments they receive (as BFCL runs do). A
request passes when the calls made are exactly its gold calls: one of the gold tool names,
and every gold argument equal (numbers by value, text without surrounding spaces).
Writes ``bench/results/chinese.md``; ``--json`` prints a one-line summary last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.common import REPO, machine_line, write_result

DATA = REPO / "bench" / "data" / "chinese"
COMMAND = "python -m bench chinese"


def load_requests(path: Path = DATA / "requests.jsonl") -> list[dict[str, Any]]:
    """The requests, each with ``id``, ``world``, ``request`` and ``gold`` calls."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def world_tools(world: str) -> list[dict[str, Any]]:
    """The tools of a world, as name, description and JSON Schema parameters."""
    if world == "third_party":
        servers = json.loads((DATA / "third_party_tools.json").read_text(encoding="utf-8"))
        raw = [tool for tools in servers.values() for tool in tools]
    elif world == "sandbox":
        catalog = json.loads((REPO / "sandbox" / "data" / "catalog.json").read_text())
        raw = catalog["tools"]
    else:
        raise ValueError(f"unknown world {world!r}: use third_party or sandbox")
    return [
        {
            "name": tool["name"],
            "description": tool.get("description") or "",
            "parameters": tool.get("input_schema") or {"type": "object", "properties": {}},
        }
        for tool in raw
    ]


def _same(gold: Any, made: Any) -> bool:
    if isinstance(gold, bool) or isinstance(made, bool):
        return gold is made
    if isinstance(gold, int | float) and isinstance(made, int | float | str):
        try:
            return abs(float(made) - float(gold)) < 1e-9
        except ValueError:
            return False
    if isinstance(gold, str):
        return isinstance(made, str | int | float) and str(made).strip() == gold.strip()
    if isinstance(gold, list):
        return (
            isinstance(made, list)
            and len(made) == len(gold)
            and all(_same(g, m) for g, m in zip(gold, made, strict=True))
        )
    return bool(gold == made)


def score(gold: list[dict[str, Any]], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    """Whether the calls are the gold calls, and what went wrong if not."""
    made = [(name, args) for call in calls for name, args in call.items()]
    if not made:
        return False, "no call"
    if len(made) != len(gold):
        return False, f"{len(made)} calls for {len(gold)}"
    for want, (name, args) in zip(gold, made, strict=True):
        if name not in want["tool"]:
            return False, f"wrong tool {name}"
        for key, value in want["args"].items():
            if key not in args:
                return False, f"{key} missing"
            if not _same(value, args[key]):
                return False, f"{key}={args[key]!r}, expected {value!r}"
    return True, "ok"


async def _run(requests: list[dict[str, Any]], home: Path) -> list[dict[str, Any]]:
    from bench.evaluation.bfcl import BfclRunner

    runner = BfclRunner(home)
    rows = []
    for row in sorted(requests, key=lambda r: r["world"]):
        case = {
            "id": row["id"],
            "question": [[{"role": "user", "content": row["request"]}]],
            "tools": world_tools(row["world"]),
        }
        run = await runner.run_case(case)
        ok, why = score(row["gold"], run.calls)
        rows.append({**row, "calls": run.calls, "question": run.question, "ok": ok, "why": why})
        print(f"{row['id']}: {'pass' if ok else 'fail'} ({why}) {run.calls}", flush=True)
    order = {row["id"]: index for index, row in enumerate(requests)}
    return sorted(rows, key=lambda r: order[r["id"]])


def _table(rows: list[dict[str, Any]]) -> str:
    passed = sum(r["ok"] for r in rows)
    lines = [
        "# Chinese and mixed Chinese-English requests (right tool and right arguments)",
        "",
        f"`{COMMAND}` — {machine_line()}",
        "",
        f"**{passed} of {len(rows)}** ({passed / len(rows):.0%}) offline, rule planner.",
        "",
        "| id | world | request | result | calls |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        shown = [
            {name: {k: v for k, v in args.items() if k != "idempotency_key"}}
            for call in r["calls"]
            for name, args in call.items()
        ]  # the idempotency key is zspace's own, not the user's
        calls = json.dumps(shown, ensure_ascii=False).replace("|", "\\|")
        result = "pass" if r["ok"] else f"fail: {r['why']}"
        lines.append(f"| {r['id']} | {r['world']} | {r['request']} | {result} | {calls} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Run the requests, write the table, print the summary."""
    parser = argparse.ArgumentParser(prog=COMMAND)
    parser.add_argument("--out", default="chinese.md", help="table name under bench/results/")
    parser.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="zspace-chinese-") as home:
        rows = asyncio.run(_run(load_requests(), Path(home)))
    path = write_result(args.out, _table(rows), keep_notes=True)
    passed = sum(r["ok"] for r in rows)
    print(f"wrote {path}")
    if args.json:
        print(json.dumps({"chinese": {"accuracy": round(passed / len(rows), 4),
                                      "cases": len(rows)}}))  # fmt: skip
    return 0
