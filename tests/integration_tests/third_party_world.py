"""The first-hour world: the sandbox and three third-party MCP servers, indexed, run by the CLI.

``@modelcontextprotocol/server-filesystem`` and ``server-memory`` (npm, pinned by
``npm/package-lock.json``) and ``mcp-server-time`` (PyPI, pinned in constraints.txt) are
configured in one mcp.json with the sandbox and indexed once with ``zspace index``; requests
run through ``zspace run --json`` in a subprocess (the real CLI, offline rules planner). A
snapshot holds everything a write could change (the sandbox tables, the files under the
filesystem server's root, the memory server's file). Used by
``tests/integration_tests/test_third_party_mcp.py`` and ``python -m bench thirdparty``.
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

from tests.integration_tests.npm_servers import ensure_installed

REPO = Path(__file__).resolve().parents[2]
SERVERS = ("sandbox", "filesystem", "memory", "time")


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


def changed_stores(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """Which of ``sandbox``, ``files`` and ``memory`` differ between two snapshots."""
    return {store for store in before if before[store] != after.get(store)}


def build_world(base: Path) -> Servers:
    """Create the data of every server under ``base``, configure them, index them once.

    Raises:
        RuntimeError: node or npm is missing, or the npm servers could not be installed.
    """
    scripts = ensure_installed()
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
    for server in SERVERS:
        assert f"  {server}: " in indexed.stdout, indexed.stdout
    return world


def calls(payload: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, status, args) of every call the run made."""
    return [(r["tool_id"], r["status"], r.get("args") or {})
            for r in (payload.get("results") or {}).values()]
