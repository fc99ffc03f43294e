"""A user's setup mistake is one line on stderr naming the thing and the fix, with an exit code.

Each case runs the real ``zspace`` command in a subprocess: a malformed or mistyped config
file, a Chroma server, a Postgres database or a model endpoint that does not answer (a closed
port on loopback), and ``--model`` without an API key. No traceback unless ``--debug``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.integration_tests.conftest import free_port

REPO = Path(__file__).resolve().parents[2]
EXIT_SETUP = 2


def start(home: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    """Start the real CLI with its own home; ``env`` adds or (with "") removes variables."""
    environ = {**os.environ, "ZSPACE_HOME": str(home), "PYTHONPATH": str(REPO)}
    for key, value in env.items():
        if value:
            environ[key] = value
        else:
            environ.pop(key, None)
    return subprocess.Popen(
        [sys.executable, "-m", "graph.cli", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=home, env=environ,
    )


def finish(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    """Wait for a started CLI and return what it printed."""
    stdout, stderr = process.communicate(timeout=180)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    """The error line; fails when there is a traceback or more than one error line."""
    assert "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.stderr
    return errors[0]


def closed_port_url(scheme: str) -> str:
    """A URL on loopback where nothing listens."""
    return f"{scheme}://127.0.0.1:{free_port()}"


def make_home(path: Path) -> Path:
    """A home holding the broken files the cases point at."""
    path.mkdir(exist_ok=True)
    (path / "bad.json").write_text('{"mcpServers": {\n', encoding="utf-8")
    (path / "mistyped.json").write_text('{"mcpServers": {"fs": {"command": 5}}}', encoding="utf-8")
    (path / "bad.yaml").write_text("tools:\n  - name: x\n   bad: [\n", encoding="utf-8")
    (path / "list.json").write_text("[1, 2]", encoding="utf-8")
    return path


CASES = {
    "malformed MCP JSON": (["index", "--mcp", "bad.json"], {}, ["bad.json", "not valid JSON",
                                                               "line 2"]),
    "mistyped MCP field": (["run", "list users", "--mcp", "mistyped.json"], {},
                           ["mistyped.json", "server 'fs'", "'command'", "non-empty string"]),
    "malformed YAML catalog": (["index", "bad.yaml"], {}, ["bad.yaml", "not valid YAML"]),
    "catalog of the wrong shape": (["index", "list.json"], {}, ["list.json", "'tools' list"]),
    "Chroma down": (["search", "list users"], {"ZSPACE_CHROMA_URL": "@http"},
                    ["Chroma server", "ZSPACE_CHROMA_URL", "chroma run"]),
    "Postgres down (checkpoints)": (["threads", "--postgres", "@postgresql"], {},
                                    ["Postgres checkpoint database", "--postgres"]),
    "Postgres down (ledger)": (["run", "list users", "--postgres", "@postgresql"], {},
                               ["Postgres", "ZSPACE_POSTGRES_URL or --postgres"]),
    "model endpoint down": (["run", "list users", "--model", "m", "--base-url", "@http"],
                            {"OPENAI_API_KEY": "x"}, ["chat model 'm'", "--fallback-rules"]),
    "model without a key": (["run", "list users", "--model", "gpt-4o-mini"],
                            {"OPENAI_API_KEY": ""}, ["OPENAI_API_KEY", "--base-url"]),
}


def fill(value: str) -> str:
    """A case's argument, with ``@scheme`` made a URL where nothing listens."""
    return closed_port_url(value[1:]) if value.startswith("@") else value


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every case (and ``--debug``), run at once: each subprocess mostly waits on a port."""
    home = make_home(tmp_path_factory.mktemp("home"))
    started = {
        case: start(home, *[fill(a) for a in args], **{k: fill(v) for k, v in env.items()})
        for case, (args, env, _) in CASES.items()
    }
    started["--debug"] = start(home, "index", "--mcp", "bad.json", "--debug")
    return {case: finish(process) for case, process in started.items()}


@pytest.mark.parametrize("case", list(CASES))
def test_setup_errors_are_one_line_with_exit_code_2(outcomes: dict[str, Any], case: str) -> None:
    _, _, expected = CASES[case]
    done = outcomes[case]
    line = one_line_error(done)
    assert done.returncode == EXIT_SETUP, done.stderr
    for needle in expected:
        assert needle in line, line


def test_debug_shows_the_traceback(outcomes: dict[str, Any]) -> None:
    done = outcomes["--debug"]
    assert done.returncode == EXIT_SETUP
    assert "Traceback" in done.stderr and "McpConfigError" in done.stderr
    assert done.stderr.rstrip().splitlines()[-1].startswith("error: bad.json is not valid JSON")
