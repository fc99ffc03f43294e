"""A stdio MCP server that already exited is not reported a second time by the SDK's clean-up."""

from __future__ import annotations

import logging
import subprocess
import sys

import anyio
import pytest
from mcp.os.posix.utilities import terminate_posix_process_tree

import stores.mcp.client  # noqa: F401  (installs the filter)


class _Exited:
    """Enough of an anyio process for the SDK's clean-up: one that has already exited."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def terminate(self) -> None:
        return None

    def kill(self) -> None:
        return None

    async def wait(self) -> int:
        return 3


def _reaped_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    child.wait()
    return child.pid


def test_the_sdk_warning_about_an_exited_server_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    anyio.run(terminate_posix_process_tree, _Exited(_reaped_pid()), 0.1)  # type: ignore[arg-type]
    assert not [r for r in caplog.records if "termination failed" in r.getMessage()]


def test_other_sdk_warnings_still_pass(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    logging.getLogger("mcp.os.posix.utilities").warning("Failed to kill process 7")
    assert [r.getMessage() for r in caplog.records] == ["Failed to kill process 7"]
