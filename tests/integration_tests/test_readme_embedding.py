"""The README's embedding snippet with MCP servers runs as written (a real MCP server)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def readme_block(marker: str) -> str:
    """The python block that follows ``<!-- marker -->`` in the README."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker} -->\s*```python\n(.*?)```", text, re.S)
    assert found, f"no python block after <!-- {marker} --> in README.md"
    return found.group(1)


def test_embedding_with_mcp_servers_runs_as_the_readme_says(tmp_path: Path) -> None:
    script = tmp_path / "embed.py"
    script.write_text(readme_block("embedding-with-mcp"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "ZSPACE_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "time: 2 tools" in done.stdout, done.stdout  # the load report
    assert "time/get_current_time" in done.stdout and "Asia/Tokyo" in done.stdout, done.stdout
    assert "| ok |" in done.stdout, done.stdout
    assert (tmp_path / "my-zspace" / "index").is_dir()
