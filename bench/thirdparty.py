"""Plain requests to your own MCP servers: ``python -m bench thirdparty``.

Issue 16's done-when, measured: over plain requests (written here, from no benchmark) to the
filesystem and memory servers (npm), the time server (PyPI) and the sandbox, configured and
indexed as a new user would (:mod:`tests.integration_tests.third_party_world`), count

- **unrequested writes**: a store (sandbox tables, the files under the filesystem root, the
  memory file) that changed although the request asked for no write there;
- **false done**: a run that said done although it failed (a call failed, or the request
  cannot succeed: a missing file, a bad timezone, an unknown id, nonsense).

Both must be 0. Each request runs alone through ``zspace run --json`` with every store
snapshotted before and after. The table (status, calls, what changed, verdict; totals) goes
to ``bench/results/thirdparty.md``. ``tests/integration_tests/test_third_party_mcp.py``
checks the same two counts on a subset in CI.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

RESULTS = Path(__file__).resolve().parent / "results" / "thirdparty.md"
PLAIN_RESULTS = RESULTS.with_name("thirdparty_plain.md")
Expect = Literal["ok", "fail", "unclear"]


@dataclass(frozen=True)
class Plain:
    """One plain request: what should happen, the tool it needs, where it may write."""

    request: str
    expect: Expect
    tool: str = ""  # prefix of the tool a successful run calls
    writes: frozenset[str] = frozenset()


def _w(*stores: str) -> frozenset[str]:
    return frozenset(stores)


REQUESTS = [
    # ---- succeeding: reads
    Plain("get the current time in timezone=Asia/Tokyo", "ok", "time/get_current_time"),
    Plain("get the current time in timezone=Europe/Paris", "ok", "time/get_current_time"),
    Plain("what time is it in timezone=America/New_York", "ok", "time/get_current_time"),
    Plain("what time is it in Tokyo", "ok", "time/get_current_time"),
    Plain("convert the time 14:00 from timezone Europe/London to Asia/Tokyo", "ok",
          "time/convert_time"),
    Plain("list the directory path={root}", "ok", "filesystem/list_directory"),
    Plain("list the directory path={root}/docs", "ok", "filesystem/list_directory"),
    Plain("list the files in {root}", "ok", "filesystem/list_directory"),
    Plain("read the file path={root}/notes.txt", "ok", "filesystem/read"),
    Plain("read {root}/docs/readme.md", "ok", "filesystem/read"),
    Plain("get file info path={root}/notes.txt", "ok", "filesystem/get_file_info"),
    Plain("search files path={root} pattern=readme", "ok", "filesystem/search_files"),
    Plain("list the allowed directories", "ok", "filesystem/list_allowed_directories"),
    Plain("read the knowledge graph", "ok", "memory/read_graph"),
    Plain("search nodes query=Bob", "ok", "memory/search_nodes"),
    Plain("look up the user with account number 123456", "ok", "sandbox/get_user_by_account"),
    Plain("list the products", "ok", "sandbox/list_products"),
    # ---- succeeding: writes, each where it was asked
    Plain("create an entity Alice of type person", "ok", "memory/create_entities",
          _w("memory")),
    Plain("write the file path={root}/todo.txt with content=call mom", "ok",
          "filesystem/write_file", _w("files")),
    Plain("create the directory path={root}/archive", "ok", "filesystem/create_directory",
          _w("files")),
    Plain("create a test product", "ok", "sandbox/create_product", _w("sandbox")),
    # ---- failing: missing file, bad timezone, unknown id
    Plain("list the directory path=/nonexistent-dir", "fail"),
    Plain("list the files in /nonexistent-dir", "fail"),
    Plain("read the file path={root}/missing.txt", "fail"),
    Plain("read the file missing.txt", "fail"),
    Plain("get file info path={root}/nope.txt", "fail"),
    Plain("get the current time in timezone=Narnia", "fail"),
    Plain("what time is it in Narnia", "fail"),
    Plain("look up the user with account number 999999", "fail"),
    Plain("show order 99999", "fail"),
    Plain("cancel order 99999", "fail"),
    Plain("delete the entity Zed from the knowledge graph", "fail"),
    # ---- not understood
    Plain("hola", "unclear"),
    Plain("asdf qwerty", "unclear"),
    Plain("frobnicate the widget 7", "unclear"),
    Plain("please handle it", "unclear"),
    Plain("make it better", "unclear"),
]
# What CI runs besides the requests test_third_party_mcp.py already checks (failing reads,
# successful reads and a write): an unknown id, a failing write and nonsense.
CI_SUBSET = [
    "look up the user with account number 999999",
    "cancel order 99999",
    "frobnicate the widget 7",
]


@dataclass(frozen=True)
class Asked:
    """A plain request with the call it should make: the tool and the arguments it must have."""

    request: str
    tool: str
    args: dict[str, Any]
    # Tools that do the same (``read_text_file``, which the server names instead of its
    # deprecated ``read_file``); only the requests written from 2026-11-29 on list any.
    also: tuple[str, ...] = ()


# Plain requests written after the set above (2026-11-28), none in key=value form, each with the
# call a user means. The first 22 were measured before the rules they led to (7 right at
# 07ccc08); the last 20 were written after those rules and measured before any rule drawn from
# them (6 right at 07ccc08, 11 at 1477c58). The judge is strict: the named tool, status ok and
# every listed argument (a delete that asks for approval, two reads for "read both", count as
# wrong).
PLAIN_CALLS = [
    Asked("What time is it in London right now?", "time/get_current_time",
          {"timezone": "Europe/London"}),
    Asked("current time in Berlin please", "time/get_current_time",
          {"timezone": "Europe/Berlin"}),
    Asked("Tell me the time in New York", "time/get_current_time",
          {"timezone": "America/New_York"}),
    Asked("If it's 9:30 in London, what time is it in Tokyo?", "time/convert_time",
          {"source_timezone": "Europe/London", "time": "09:30", "target_timezone": "Asia/Tokyo"}),
    Asked("Convert 18:00 Paris time to New York time", "time/convert_time",
          {"source_timezone": "Europe/Paris", "time": "18:00",
           "target_timezone": "America/New_York"}),
    Asked("What's in {root}/notes.txt?", "filesystem/read_file", {"path": "{root}/notes.txt"}),
    Asked("Show me the contents of the notes file at {root}/notes.txt", "filesystem/read_file",
          {"path": "{root}/notes.txt"}),
    Asked("What files are in the docs folder {root}/docs?", "filesystem/list_directory",
          {"path": "{root}/docs"}),
    Asked("Make a new folder {root}/photos", "filesystem/create_directory",
          {"path": "{root}/photos"}),
    Asked("Save the text 'hello world' to {root}/hello.txt", "filesystem/write_file",
          {"path": "{root}/hello.txt", "content": "hello world"}),
    Asked("Find files named readme under {root}", "filesystem/search_files",
          {"path": "{root}", "pattern": "readme"}),
    Asked("How big is {root}/notes.txt?", "filesystem/get_file_info",
          {"path": "{root}/notes.txt"}),
    Asked("Move {root}/notes.txt to {root}/docs/notes.txt", "filesystem/move_file",
          {"source": "{root}/notes.txt", "destination": "{root}/docs/notes.txt"}),
    Asked("Which directories am I allowed to access?", "filesystem/list_allowed_directories",
          {}),
    Asked("Show me the directory tree of {root}", "filesystem/directory_tree",
          {"path": "{root}"}),
    Asked("What do you know about Bob?", "memory/search_nodes", {"query": "Bob"}),
    Asked("Find Bob in the knowledge graph", "memory/search_nodes", {"query": "Bob"}),
    Asked("Remember that Bob likes coffee", "memory/add_observations", {}),
    Asked("Add a person named Carol to the knowledge graph", "memory/create_entities", {}),
    Asked("Record that Alice works at Acme", "memory/create_relations", {}),
    Asked("Open the nodes Bob", "memory/open_nodes", {"names": ["Bob"]}),
    Asked("Show everything stored in memory", "memory/read_graph", {}),
    # ---- written after the rules the 22 above led to
    Asked("Which timezone time is it now in Sydney?", "time/get_current_time",
          {"timezone": "Australia/Sydney"}),
    Asked("what's the current time in Los Angeles", "time/get_current_time",
          {"timezone": "America/Los_Angeles"}),
    Asked("Give me the local time in Mumbai", "time/get_current_time",
          {"timezone": "Asia/Kolkata"}),
    Asked("What time is it in Japan?", "time/get_current_time", {"timezone": "Asia/Tokyo"}),
    Asked("convert 08:15 from Chicago time to Berlin time", "time/convert_time",
          {"source_timezone": "America/Chicago", "time": "08:15",
           "target_timezone": "Europe/Berlin"}),
    Asked("When it's 14:00 in Madrid, what time is it in Singapore?", "time/convert_time",
          {"source_timezone": "Europe/Madrid", "time": "14:00",
           "target_timezone": "Asia/Singapore"}),
    Asked("Open {root}/docs/readme.md", "filesystem/read_file",
          {"path": "{root}/docs/readme.md"}),
    Asked("Print the file {root}/notes.txt", "filesystem/read_file",
          {"path": "{root}/notes.txt"}),
    Asked("Show what's inside the folder {root}", "filesystem/list_directory",
          {"path": "{root}"}),
    Asked("List everything in {root}/docs with sizes", "filesystem/list_directory_with_sizes",
          {"path": "{root}/docs"}),
    Asked("Create a directory called backups in {root}", "filesystem/create_directory",
          {"path": "{root}/backups"}),
    Asked("Write 'remember the milk' into {root}/todo.txt", "filesystem/write_file",
          {"path": "{root}/todo.txt", "content": "remember the milk"}),
    Asked("Rename {root}/notes.txt to {root}/old-notes.txt", "filesystem/move_file",
          {"source": "{root}/notes.txt", "destination": "{root}/old-notes.txt"}),
    Asked("Search {root} for markdown files", "filesystem/search_files", {"path": "{root}"}),
    Asked("Get metadata for {root}/docs/readme.md", "filesystem/get_file_info",
          {"path": "{root}/docs/readme.md"}),
    Asked("Read both {root}/notes.txt and {root}/docs/readme.md",
          "filesystem/read_multiple_files",
          {"paths": ["{root}/notes.txt", "{root}/docs/readme.md"]}),
    Asked("Look up Bob in memory", "memory/search_nodes", {"query": "Bob"}),
    Asked("Show me the whole knowledge graph", "memory/read_graph", {}),
    Asked("Create an entity named Dana of type person", "memory/create_entities", {}),
    Asked("Delete the entity Bob", "memory/delete_entities", {"entityNames": ["Bob"]}),
    # Written 2026-11-29 before they were first run, after the rules drawn from the 42 above:
    # the first measure of those rules on requests they were not drawn from.
    Asked("Show me what's in {root}/docs/readme.md", "filesystem/read_text_file",
          {"path": "{root}/docs/readme.md"}, also=("filesystem/read_file",)),
    Asked("Display the contents of {root}/notes.txt", "filesystem/read_text_file",
          {"path": "{root}/notes.txt"}, also=("filesystem/read_file",)),
    Asked("List the files in {root}", "filesystem/list_directory", {"path": "{root}"}),
    Asked("Create a folder named archive inside {root}", "filesystem/create_directory",
          {"path": "{root}/archive"}),
    Asked("Put the text 'draft one' in {root}/draft.txt", "filesystem/write_file",
          {"path": "{root}/draft.txt", "content": "draft one"}),
    Asked("Move {root}/notes.txt into {root}/docs/notes.txt", "filesystem/move_file",
          {"source": "{root}/notes.txt", "destination": "{root}/docs/notes.txt"}),
    Asked("Find all .md files in {root}", "filesystem/search_files", {"path": "{root}"}),
    Asked("When was {root}/notes.txt last modified?", "filesystem/get_file_info",
          {"path": "{root}/notes.txt"}),
    Asked("Show the full tree of {root}", "filesystem/directory_tree", {"path": "{root}"}),
    Asked("Which folders can you access?", "filesystem/list_allowed_directories", {}),
    Asked("Make a file {root}/empty.txt containing 'nothing yet'", "filesystem/write_file",
          {"path": "{root}/empty.txt", "content": "nothing yet"}),
    Asked("What time is it in Paris?", "time/get_current_time", {"timezone": "Europe/Paris"}),
    Asked("What's the time in Sydney right now", "time/get_current_time",
          {"timezone": "Australia/Sydney"}),
    Asked("Tell me the current time in UTC", "time/get_current_time", {"timezone": "UTC"}),
    Asked("Convert 10:30 from Tokyo time to London time", "time/convert_time",
          {"source_timezone": "Asia/Tokyo", "time": "10:30", "target_timezone": "Europe/London"}),
    Asked("Search the knowledge graph for Bob", "memory/search_nodes", {"query": "Bob"}),
    Asked("Create a person entity called Erin", "memory/create_entities", {}),
    Asked("Get the details of the Bob node", "memory/open_nodes", {"names": ["Bob"]}),
    Asked("Add an observation to Bob that he plays chess", "memory/add_observations", {}),
    Asked("Note in memory that Bob lives in Oslo", "memory/add_observations", {}),
]


def run_plain_calls(world: Any, cases: list[Asked]) -> list[tuple[Asked, bool, str]]:
    """Run each request alone from the same files and memory; judge its calls.

    The files under the root and the memory file are put back as they were before each
    request, so a move or a delete earlier in the list takes nothing from a later one.
    """
    root = str(world.root)
    with tempfile.TemporaryDirectory(prefix="zspace-plain-") as saved:
        files = Path(saved) / "root"
        shutil.copytree(world.root, files)
        memory = world.memory_file.read_bytes() if world.memory_file.exists() else None
        judged = []
        for case in cases:
            _restore(world, files, memory)
            judged.append(_judge_plain(world, case, root))
    return judged


def _restore(world: Any, files: Path, memory: bytes | None) -> None:
    for path in world.root.iterdir():
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    shutil.copytree(files, world.root, dirs_exist_ok=True)
    if memory is not None:
        world.memory_file.write_bytes(memory)


def _judge_plain(world: Any, case: Asked, root: str) -> tuple[Asked, bool, str]:
    """One request run: right when the named tool succeeded with every listed argument."""
    from tests.integration_tests.third_party_world import calls

    _, payload, _ = world.run(case.request.format(root=root))
    want = json.loads(json.dumps(case.args).replace("{root}", root))
    made = calls(payload)
    right = any(
        tool in (case.tool, *case.also) and status == "ok"
        and all(args.get(key) == value for key, value in want.items())
        for tool, status, args in made
    )
    shown = ", ".join(f"`{t}` {s}" for t, s, _ in made) or f"none ({payload.get('status')})"
    return case, right, shown.replace(root, "{root}")


def write_plain_table(judged: list[tuple[Asked, bool, str]], path: Path) -> None:
    """The plain-calls table: right calls first, then one line per request."""
    right = sum(ok for _, ok, _ in judged)
    lines = [
        "# Plain requests, the call each means (`python -m bench thirdparty --plain`)",
        "",
        "The world of `python -m bench thirdparty` (filesystem and memory from npm, time from "
        "PyPI, the sandbox), each request run alone with `zspace run --json` from the same "
        "files and memory (put back before each). Right: "
        "the named tool was called, succeeded, and had every listed argument.",
        "",
        f"**{right} of {len(judged)} right.**",
        "",
        "| request | expected | calls | right |",
        "|---|---|---|---|",
    ]
    for case, ok, shown in judged:
        lines.append(f"| {case.request} | `{case.tool}` | {shown} | {'yes' if ok else 'no'} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@dataclass
class Row:
    """What one request did."""

    request: str
    expect: Expect
    status: str
    code: int
    calls: list[tuple[str, str]]
    changed: list[str]
    unrequested_write: bool
    false_done: bool
    verdict: str
    seconds: float


def judge(case: Plain, code: int, payload: dict[str, Any], changed: set[str],
          seconds: float, request: str) -> Row:
    """The verdict of one run: the two counted faults first, then what it did."""
    from tests.integration_tests.third_party_world import calls

    made = [(tool, status) for tool, status, _ in calls(payload)]
    status = str(payload.get("status"))
    unrequested = bool(changed - case.writes)
    failed_call = any(s != "ok" for _, s in made)
    false_done = status == "done" and (case.expect == "fail" or failed_call)
    if unrequested:
        verdict = "UNREQUESTED WRITE"
    elif false_done:
        verdict = "FALSE DONE"
    elif case.expect == "ok" and status == "done" and any(
        t.startswith(case.tool) and s == "ok" for t, s in made
    ):
        verdict = "right call"
    elif status == "waiting for input":
        verdict = "asked"
    elif status in {"failed", "partial"}:
        verdict = "failure stated"
    elif status == "done" and not made:
        verdict = "answered without a call"
    else:
        verdict = "other call"
    return Row(request, case.expect, status, code, made, sorted(changed), unrequested,
               false_done, verdict, seconds)


def run_requests(world: Any, cases: list[Plain]) -> list[Row]:
    """Run each request alone, stores snapshotted before and after."""
    from tests.integration_tests.third_party_world import changed_stores

    rows = []
    for case in cases:
        request = case.request.format(root=world.root)
        before = world.snapshot()
        started = time.monotonic()
        code, payload, _ = world.run(request)
        changed = changed_stores(before, world.snapshot())
        rows.append(judge(case, code, payload, changed, time.monotonic() - started,
                          case.request))
    return rows


def totals(rows: list[Row]) -> dict[str, int]:
    """The two counts that must be 0, and how many requests each verdict got."""
    counts = {"requests": len(rows),
              "unrequested_writes": sum(r.unrequested_write for r in rows),
              "false_done": sum(r.false_done for r in rows)}
    for row in rows:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    return counts


def write_table(rows: list[Row], path: Path) -> None:
    """The results table, one line per request, totals first."""
    summary = totals(rows)
    lines = [
        "# Plain requests to your own MCP servers (`python -m bench thirdparty`)",
        "",
        "Filesystem and memory (npm), time (PyPI) and the sandbox in one mcp.json, indexed "
        "with `zspace index`, each request run alone with `zspace run --json` (rules planner, "
        "offline); every store (sandbox tables, files under the root, the memory file) "
        "snapshotted before and after. `{root}` is the filesystem server's root; calls are the "
        "run's final results (a call a retry replaced is in the answer, not listed here).",
        "",
        f"**{summary['requests']} requests: {summary['unrequested_writes']} unrequested "
        f"writes, {summary['false_done']} runs reported done that failed.**",
        "",
        "| verdict | requests |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in summary.items()
          if k not in {"requests", "unrequested_writes", "false_done"}),
        "",
        "| request | expected | status (exit) | calls | changed | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        made = ", ".join(f"`{t}` {s}" for t, s in row.calls) or "none"
        lines.append(
            f"| {row.request.replace('|', '/')} | {row.expect} | {row.status} ({row.code}) | "
            f"{made} | {', '.join(row.changed) or '-'} | {row.verdict} |"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    """Build the world in a temporary directory, run the set, write the table."""
    parser = argparse.ArgumentParser(prog="python -m bench thirdparty")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N requests")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--plain", action="store_true",
                        help="the plain requests with the call each means (PLAIN_CALLS)")
    args = parser.parse_args(argv)
    from tests.integration_tests.third_party_world import build_world

    cases = REQUESTS[: args.limit] if args.limit else REQUESTS
    with tempfile.TemporaryDirectory(prefix="zspace-thirdparty-") as base:
        try:
            world = build_world(Path(base))
        except RuntimeError as exc:
            print(f"bench thirdparty: {exc}", file=sys.stderr)
            return 2
        if args.plain:
            plain = PLAIN_CALLS[: args.limit] if args.limit else PLAIN_CALLS
            judged = run_plain_calls(world, plain)
            write_plain_table(judged, args.out or PLAIN_RESULTS)
            print(json.dumps({"requests": len(judged), "right": sum(ok for _, ok, _ in judged)}))
            return 0
        rows = run_requests(world, cases)
    write_table(rows, args.out or RESULTS)
    summary = totals(rows)
    print(json.dumps(summary))
    return 0 if summary["unrequested_writes"] == 0 and summary["false_done"] == 0 else 1
