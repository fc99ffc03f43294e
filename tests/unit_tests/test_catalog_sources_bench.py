"""The kept-home benchmark (bench/scale_server.py) changes one tool in place and formats its row."""

import json
from pathlib import Path

from bench.scale_server import _change_one_tool, format_home_rows


def test_one_tool_is_changed_in_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "catalog.json"
    tools = [{"id": f"a/t{i}", "description": f"tool {i}"} for i in range(6)]
    path.write_text(json.dumps({"agents": [], "tools": tools}))
    changed = _change_one_tool(path, "mark")
    after = json.loads(path.read_text())["tools"]
    assert changed == "a/t2"
    assert after[:2] + after[3:] == tools[:2] + tools[3:]
    assert after[2]["description"] == "tool 2 (mark)"


def test_a_row_is_one_table_line_naming_the_server() -> None:
    keys = ["noop_full_cpu", "noop_full_s", "noop_child_cpu", "noop_child_s", "change_cpu",
            "startup_above_import_cpu", "startup_above_import_s", "whole_p50_ms",
            "whole_p95_ms", "steps_p50_ms", "steps_p95_ms", "whole_agent_r5", "steps_agent_r5",
            "whole_tool_r5", "noop_full_server_cpu", "noop_child_server_cpu",
            "change_server_cpu", "startup_server_cpu"]
    row = {key: 1.0 for key in keys} | {"change_embedded": 1, "chroma_url": "http://h:1"}
    lines = format_home_rows([row])
    assert len(lines) == 3 and lines[2].startswith("| server http://h:1 | 1.00 (1.0) |")
    assert lines[0].count("|") == lines[2].count("|")
