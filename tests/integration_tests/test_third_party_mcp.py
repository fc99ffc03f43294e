"""A first hour with your own MCP servers: real third-party servers next to the sandbox.

``@modelcontextprotocol/server-filesystem`` and ``server-memory`` (npm, pinned by
``npm/package-lock.json``) and ``mcp-server-time`` (PyPI, pinned in constraints.txt) are
configured in one mcp.json with the sandbox, indexed once with ``zspace index``, and asked
plain requests with ``zspace run`` (the real CLI in a subprocess, offline rules planner).

Failing requests never write anywhere (the sandbox database, the filesystem root and the
memory file are compared before and after) and never end done; the answer names the failed
call and why, the exit code is 1 and ``--json`` says failed or partial. Requests the current
planner does not understand yet are strict xfails naming the gap, so they announce the day
they start passing.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.npm_servers import ensure_installed

REPO = Path(__file__).resolve().parents[2]
EXIT_NOT_DONE = 1


@dataclass
class Servers:
    """The configured world: where each server keeps its data, and how to run zspace on it."""

    home: Path
    root: Path
    memory_file: Path
    env: dict[str, str]
    ran: dict[str, tuple[int, dict[str, Any], str]]

    def zspace(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "graph.cli", *args], capture_output=True, text=True,
            cwd=self.home, env=self.env, timeout=240, check=False,
        )

    def run(self, request: str) -> tuple[int, dict[str, Any], str]:
        """``zspace run REQUEST --json``: exit code, the JSON line, and everything printed."""
        return self._read(request, self.zspace("run", request, "--json"))

    def run_many(self, requests: list[str], at_once: int = 2) -> None:
        """Run requests that write nothing a few at a time (each mostly starts up)."""
        with ThreadPoolExecutor(max_workers=at_once) as pool:
            done = list(pool.map(lambda r: self.zspace("run", r, "--json"), requests))
        for request, process in zip(requests, done, strict=True):
            self._read(request, process)

    def _read(
        self, request: str, done: subprocess.CompletedProcess[str]
    ) -> tuple[int, dict[str, Any], str]:
        assert "Traceback" not in done.stderr, done.stderr
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        assert lines, f"no JSON line: {done.stdout}\n{done.stderr}"
        self.ran[request] = (done.returncode, json.loads(lines[-1]), done.stdout + done.stderr)
        return self.ran[request]

    def outcome(self, request: str) -> tuple[int, dict[str, Any], str]:
        """The run of an earlier test of this module, or a new one."""
        return self.ran.get(request) or self.run(request)

    def snapshot(self) -> dict[str, Any]:
        """Everything a write could change: sandbox tables, the files under root, the memory."""
        from sandbox.export import export_tables

        files = {
            str(path.relative_to(self.root)): hashlib.sha256(path.read_bytes()).hexdigest()
            if path.is_file() else "dir"
            for path in sorted(self.root.rglob("*"))
        }
        memory = self.memory_file.read_bytes() if self.memory_file.exists() else None
        return {"sandbox": export_tables(self.home / "sandbox.db"), "files": files,
                "memory": memory}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Servers:
    try:
        scripts = ensure_installed()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    base = tmp_path_factory.mktemp("first-hour")
    home, root = base / "home", base / "root"
    (root / "docs").mkdir(parents=True)
    home.mkdir()
    (root / "notes.txt").write_text("buy milk\n", encoding="utf-8")
    (root / "docs" / "readme.md").write_text("# docs\n", encoding="utf-8")
    memory_file = base / "memory.jsonl"
    memory_file.write_text(
        json.dumps({"type": "entity", "name": "Bob", "entityType": "person",
                    "observations": ["likes tea"]}) + "\n",
        encoding="utf-8",
    )
    config = {"mcpServers": {
        "sandbox": {"command": "python", "args": ["-m", "sandbox", "serve"],
                    "env": {"ZSPACE_HOME": str(home)}, "timeout": 30, "environment": "test"},
        "filesystem": {"command": "node", "args": [str(scripts["filesystem"]), str(root)],
                       "timeout": 30, "environment": "test"},
        "memory": {"command": "node", "args": [str(scripts["memory"])],
                   "env": {"MEMORY_FILE_PATH": str(memory_file)}, "timeout": 30,
                   "environment": "test"},
        "time": {"command": "python", "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
                 "timeout": 30},
    }}
    (home / "mcp.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    env = {**os.environ, "ZSPACE_HOME": str(home), "PYTHONPATH": str(REPO)}
    world = Servers(home, root, memory_file, env, {})
    subprocess.run([sys.executable, "-m", "sandbox", "reset"], cwd=home, env=env, check=True,
                   capture_output=True)
    indexed = world.zspace("index", "--mcp", "mcp.json", "--json")
    assert indexed.returncode == 0, indexed.stderr
    for server in ("sandbox", "filesystem", "memory", "time"):
        assert f"  {server}: " in indexed.stdout, indexed.stdout
    return world


def calls(payload: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, status, args) of every call the run made."""
    return [(r["tool_id"], r["status"], r.get("args") or {})
            for r in (payload.get("results") or {}).values()]


# ------------------------------------------------------------------ failing requests
UNDERSTOOD_FAILURES = {
    "list the directory path=/nonexistent-dir": ("filesystem/", "/nonexistent-dir"),
    "read the file path={root}/missing.txt": ("filesystem/read_file", "ENOENT"),
    "get the current time in timezone=Narnia": ("time/get_current_time", "Narnia"),
}
PLAIN_FAILURES = {
    "list the files in /nonexistent-dir": "a bare path is not bound to 'path': it asks for it",
    # Understood since the schema-driven binder: a bare file name binds 'path', a place
    # name binds 'timezone' (and the server's refusal of it is stated).
    "read the file missing.txt": "",
    "what time is it in Narnia": "",
}


def gap(reason: str) -> pytest.MarkDecorator:
    """A strict xfail naming what the planner does not understand yet."""
    return pytest.mark.xfail(strict=True, reason=f"understanding gap: {reason}")


@pytest.mark.parametrize("request_text", [*UNDERSTOOD_FAILURES, *PLAIN_FAILURES])
def test_a_failing_request_writes_nothing_and_never_says_done(
    servers: Servers, request_text: str
) -> None:
    request = request_text.format(root=servers.root)
    before = servers.snapshot()
    code, payload, printed = servers.run(request)
    assert servers.snapshot() == before, f"{request!r} wrote something"
    assert payload["status"] in {"failed", "partial", "waiting for input"}, printed
    assert code != 0, printed
    assert all(status != "ok" for _, status, _ in calls(payload)), payload


@pytest.mark.parametrize("request_text", list(UNDERSTOOD_FAILURES))
def test_a_failed_call_is_named_with_its_reason(servers: Servers, request_text: str) -> None:
    tool, reason = UNDERSTOOD_FAILURES[request_text]
    code, payload, _ = servers.outcome(request_text.format(root=servers.root))
    assert code == EXIT_NOT_DONE and payload["status"] == "failed"
    gaps = " ".join(payload["gaps"])
    assert tool in gaps and reason in gaps, gaps
    assert "Not done" in payload["answer"] and reason in payload["answer"]


@pytest.mark.parametrize(
    "request_text",
    [
        pytest.param(text, marks=[gap(reason)] if reason else [])
        for text, reason in PLAIN_FAILURES.items()
    ],
)
def test_a_plain_failing_request_is_stated(servers: Servers, request_text: str) -> None:
    code, payload, _ = servers.outcome(request_text)
    assert code == EXIT_NOT_DONE and payload["status"] == "failed", payload
    assert "Not done" in payload["answer"]


# ------------------------------------------------------------------ plain successful requests
@dataclass(frozen=True)
class Success:
    request: str
    tool: str
    args: dict[str, Any]
    output: str  # a piece of the result
    gap: str = ""  # why the current planner gets it wrong (a strict xfail while it does)
    writes: bool = False  # run alone, not next to others


SUCCESSES = [
    Success("get the current time in timezone=Asia/Tokyo", "time/get_current_time",
            {"timezone": "Asia/Tokyo"}, "Asia/Tokyo"),
    Success("what time is it in Tokyo", "time/get_current_time", {"timezone": "Asia/Tokyo"},
            "Asia/Tokyo", gap="a city is not mapped to an IANA timezone: it asks for one"),
    Success("list the directory path={root}", "filesystem/list_directory", {"path": "{root}"},
            "notes.txt"),
    Success("list the files in {root}", "filesystem/list_directory", {"path": "{root}"},
            "notes.txt", gap="a bare path is not bound to 'path': it asks for it"),
    Success("read the file path={root}/notes.txt", "filesystem/read_file",
            {"path": "{root}/notes.txt"}, "buy milk"),
    Success("read {root}/notes.txt", "filesystem/read_file", {"path": "{root}/notes.txt"},
            "buy milk"),
    Success("read the knowledge graph", "memory/read_graph", {}, "Bob"),
    Success("search nodes query=Bob", "memory/search_nodes", {"query": "Bob"}, "likes tea"),
    Success("create an entity Alice of type person", "memory/create_entities",
            {"entities": [{"name": "Alice", "entityType": "person", "observations": []}]},
            "Alice", gap="'person' is read as the sandbox's user: it runs sandbox/create_user",
            writes=True),
]


@pytest.fixture(scope="module")
def successes(servers: Servers) -> Servers:
    """The successful requests that only read, run a few at a time, after the failing ones."""
    servers.run_many([c.request.format(root=servers.root) for c in SUCCESSES if not c.writes])
    return servers


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.request, marks=[gap(c.gap)] if c.gap else []) for c in SUCCESSES],
)
def test_a_plain_request_makes_the_right_call(successes: Servers, case: Success) -> None:
    root = str(successes.root)
    code, payload, printed = successes.outcome(case.request.format(root=root))
    expected_args = json.loads(json.dumps(case.args).replace("{root}", root))
    made = calls(payload)
    assert code == 0 and payload["status"] == "done", printed
    assert [(t, s) for t, s, _ in made] == [(case.tool, "ok")], made
    assert made[0][2] == expected_args
    assert case.output in json.dumps(payload["results"]), payload["results"]
