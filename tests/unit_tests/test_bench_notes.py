"""A benchmark re-run rewrites its table and keeps the analysis written by hand under it."""

from __future__ import annotations

from pathlib import Path

import pytest

import bench.common as common


def test_a_rerun_keeps_the_hand_written_sections(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "RESULTS", tmp_path)
    (tmp_path / "t.md").write_text(
        "# T\n\n**1 of 2**\n\n## Before\n\n**0 of 2**.\n\n## What each part adds\n\n- jieba\n"
    )
    common.write_result("t.md", "# T\n\n**2 of 2**\n\n## What each part adds\n\n- new\n",
                        keep_notes=True)
    text = (tmp_path / "t.md").read_text()
    assert text.startswith("# T\n\n**2 of 2**")
    assert "**1 of 2**" not in text  # the old table is replaced
    assert "## Before\n\n**0 of 2**." in text  # the hand-written section is kept
    assert text.count("## What each part adds") == 1 and "- new" in text and "- jieba" not in text


def test_without_keep_notes_the_file_is_the_new_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "RESULTS", tmp_path)
    (tmp_path / "t.md").write_text("# T\n\n## Before\n\nold\n")
    common.write_result("t.md", "# T\n\nnew\n")
    assert (tmp_path / "t.md").read_text() == "# T\n\nnew\n"
