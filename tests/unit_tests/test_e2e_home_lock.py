"""Two e2e evaluations never share one home: the second is refused with one line.

Before, two evaluations in ``ZSPACE_HOME/e2e`` reset each other's sandbox and feedback
database mid-run (157 of 178 requests crashed in ``plan``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.evaluation.e2e import E2EHomeInUse, hold_e2e_home
from graph.cli import main


def test_a_second_evaluation_in_a_held_home_is_refused(tmp_path: Path) -> None:
    with hold_e2e_home(tmp_path):
        with pytest.raises(E2EHomeInUse, match="own --home"):
            with hold_e2e_home(tmp_path):
                pass
    with hold_e2e_home(tmp_path):  # released when the first one ends
        pass


def test_the_cli_says_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with hold_e2e_home(tmp_path):
        code = main(["eval", "e2e", "--split", "dev", "--id", "dev-001", "--home", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == [err[0]] and err[0].startswith("error: ") and "in use" in err[0]
