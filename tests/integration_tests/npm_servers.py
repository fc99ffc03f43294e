"""The npm MCP servers the integration tests run, installed pinned into a project-local dir.

``package.json`` and ``package-lock.json`` in ``npm/`` beside this file pin every package;
``npm ci`` installs exactly them into ``<venv>/node`` (never globally), once: a stamp holding
the lock's hash makes it idempotent. ``make install`` runs ``python -m
tests.integration_tests.npm_servers .venv/node``; the tests call :func:`ensure_installed`,
so running pytest directly installs them too. Without node or npm the tests skip and say why.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

SPEC_DIR = Path(__file__).with_name("npm")
STAMP = ".zspace-installed"
SERVERS = {
    "filesystem": "@modelcontextprotocol/server-filesystem/dist/index.js",
    "memory": "@modelcontextprotocol/server-memory/dist/index.js",
}


def default_node_dir() -> Path:
    """``node/`` in the virtual environment running the tests (``.venv/node`` under make)."""
    return Path(sys.prefix) / "node"


def _lock_hash() -> str:
    return hashlib.sha256((SPEC_DIR / "package-lock.json").read_bytes()).hexdigest()


def ensure_installed(node_dir: Path | None = None) -> dict[str, Path]:
    """Install the pinned servers unless the stamp says they are; return each entry script.

    Raises:
        RuntimeError: node or npm is missing, or ``npm ci`` failed (the message says which).
    """
    node_dir = node_dir or default_node_dir()
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise RuntimeError("node and npm are needed for the third-party MCP servers (npm); "
                           "install Node.js 20 or later")
    stamp = node_dir / STAMP
    if not stamp.is_file() or stamp.read_text(encoding="utf-8") != _lock_hash():
        node_dir.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SPEC_DIR / name, node_dir / name)
        done = subprocess.run(
            ["npm", "ci", "--prefix", str(node_dir), "--no-audit", "--no-fund", "--silent"],
            capture_output=True, text=True, check=False, timeout=600,
        )
        if done.returncode != 0:
            raise RuntimeError(f"npm ci into {node_dir} failed: {done.stderr.strip()[-500:]}")
        stamp.write_text(_lock_hash(), encoding="utf-8")
    return {name: node_dir / "node_modules" / entry for name, entry in SERVERS.items()}


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    try:
        scripts = ensure_installed(target)
    except RuntimeError as exc:
        print(f"skipped: {exc}; the tests with npm MCP servers will skip")
    else:
        print("npm MCP servers: " + ", ".join(f"{k} ({v})" for k, v in scripts.items()))
