"""Suite-wide guard: no tool call of this test process went outside its run's environments."""

from __future__ import annotations

import pytest


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Report the dispatch audit; fail the run if any call reached another environment."""
    from stores.execution.executor import DISPATCHES

    dispatched, outside = DISPATCHES.snapshot()
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    line = (
        f"zspace dispatch audit: {dispatched} tool calls dispatched in this process, "
        f"{outside} outside their run's environment allow-list"
    )
    if reporter is not None:
        reporter.write("\n")
        reporter.write_line(line)
    if outside:
        if reporter is not None:
            for call in DISPATCHES.outside[:20]:
                reporter.write_line(f"  outside: {call}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
