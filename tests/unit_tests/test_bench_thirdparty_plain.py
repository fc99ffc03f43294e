"""The judge of ``python -m bench thirdparty --plain``: the named tool, ok, every listed argument."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.thirdparty import PLAIN_CALLS, Asked, run_plain_calls, write_plain_table


class _World:
    def __init__(self, root: Path, results: dict[str, list[tuple[str, str, dict[str, Any]]]]):
        self.root = root
        self.memory_file = root.parent / "memory.jsonl"
        self.memory_file.write_text("{}\n", encoding="utf-8")
        self.results = results

    def run(self, request: str) -> tuple[int, dict[str, Any], str]:
        # Each request sees the files as they were: a write before it was put back.
        assert sorted(p.name for p in self.root.iterdir()) == ["a.txt"]
        assert self.memory_file.read_text(encoding="utf-8") == "{}\n"
        (self.root / "a.txt").unlink()
        (self.root / "new.txt").write_text("x", encoding="utf-8")
        self.memory_file.write_text("changed", encoding="utf-8")
        made = self.results.get(request, [])
        payload = {"status": "done" if made else "failed",
                   "results": {str(i): {"tool_id": t, "status": s, "args": a}
                               for i, (t, s, a) in enumerate(made)}}
        return 0, payload, ""


def test_a_call_is_right_only_with_its_tool_its_status_and_every_listed_argument(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "a.txt").write_text("a", encoding="utf-8")
    root = str(tmp_path / "root")
    cases = [
        Asked("read {root}/a.txt", "filesystem/read_file", {"path": "{root}/a.txt"}),
        Asked("read {root}/b.txt", "filesystem/read_file", {"path": "{root}/b.txt"}),
        Asked("read {root}/c.txt", "filesystem/read_file", {"path": "{root}/c.txt"}),
        Asked("nothing", "filesystem/read_file", {}),
    ]
    world = _World(tmp_path / "root", {
        f"read {root}/a.txt": [("filesystem/read_file", "ok", {"path": f"{root}/a.txt"})],
        f"read {root}/b.txt": [("filesystem/read_file", "error", {"path": f"{root}/b.txt"})],
        f"read {root}/c.txt": [("filesystem/read_file", "ok", {"path": f"{root}/x.txt"})],
    })
    judged = run_plain_calls(world, cases)
    assert [ok for _, ok, _ in judged] == [True, False, False, False]
    assert judged[0][2] == "`filesystem/read_file` ok" and judged[3][2] == "none (failed)"
    out = tmp_path / "table.md"
    write_plain_table(judged, out)
    assert "**1 of 4 right.**" in out.read_text(encoding="utf-8")


def test_the_plain_set_names_tools_of_the_world_and_no_key_value_requests() -> None:
    assert len(PLAIN_CALLS) == 62
    assert all(t.split("/")[0] in {"time", "filesystem", "memory"}
               for c in PLAIN_CALLS for t in (c.tool, *c.also))
    # The first 42 name one tool each: their judge is as strict as when they were measured.
    assert not any(c.also for c in PLAIN_CALLS[:42])
    assert not any("=" in c.request for c in PLAIN_CALLS)


def test_a_tool_that_does_the_same_is_right_when_the_case_lists_it(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "a.txt").write_text("a", encoding="utf-8")
    root = str(tmp_path / "root")
    cases = [
        Asked("show {root}/a.txt", "filesystem/read_text_file", {"path": "{root}/a.txt"},
              also=("filesystem/read_file",)),
        Asked("print {root}/a.txt", "filesystem/read_text_file", {"path": "{root}/a.txt"}),
    ]
    made = [("filesystem/read_file", "ok", {"path": f"{root}/a.txt"})]
    world = _World(tmp_path / "root", {f"show {root}/a.txt": made, f"print {root}/a.txt": made})
    assert [ok for _, ok, _ in run_plain_calls(world, cases)] == [True, False]
