"""Closing an MCP connection is bounded: a session whose teardown hangs cannot hang the pool.

A full-suite run once hung for 300 s in ``LiveMcpSync.__aexit__`` → ``pool.aclose()``
after every assertion had passed: the owner task's shielded teardown never returned and
``_Connection.close()`` awaited it without a bound. These tests stand in for that teardown
with one that ignores cancellation.
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

import stores.mcp.client as client_module
from stores.mcp.client import _Connection
from stores.mcp.config import McpServerConfig

_RELEASE: dict[str, asyncio.Future[None]] = {}


async def _stuck_owner(self: _Connection, ready: asyncio.Future[None]) -> None:
    """An owner task whose clean-up ignores cancellation until the test releases it."""
    self.session = object()  # type: ignore[assignment]  # "serving"
    ready.set_result(None)
    await self._stop.wait()
    release = _RELEASE["stuck"]
    while not release.done():
        try:
            await asyncio.shield(release)
        except asyncio.CancelledError:
            continue


async def _clean_owner(self: _Connection, ready: asyncio.Future[None]) -> None:
    self.session = object()  # type: ignore[assignment]
    ready.set_result(None)
    await self._stop.wait()


def _config() -> McpServerConfig:
    return McpServerConfig(name="stuck", transport="stdio", command="unused", timeout=5.0)


def test_close_returns_when_the_teardown_hangs(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_Connection, "_own", _stuck_owner)
    monkeypatch.setattr(client_module, "CLOSE_BOUND_S", 0.2)

    async def scenario() -> tuple[float, bool]:
        _RELEASE["stuck"] = asyncio.get_running_loop().create_future()
        connection = _Connection(_config(), lambda kind, detail: None)
        await connection.open()
        started = time.monotonic()
        await asyncio.wait_for(connection.close(), timeout=5.0)
        elapsed = time.monotonic() - started
        assert connection._task is not None
        abandoned = not connection._task.done()
        # Let the abandoned owner go so the loop closes cleanly.
        _RELEASE["stuck"].set_result(None)
        await asyncio.wait({connection._task}, timeout=1.0)
        assert connection.lost.is_set()
        return elapsed, abandoned

    with caplog.at_level(logging.WARNING, logger="stores.mcp.client"):
        elapsed, abandoned = asyncio.run(scenario())
    assert abandoned
    assert elapsed < 2.0
    assert any(
        "stuck" in record.getMessage() and "did not close" in record.getMessage()
        for record in caplog.records
    )


def test_a_clean_close_waits_for_the_owner_and_warns_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(_Connection, "_own", _clean_owner)

    async def scenario() -> bool:
        connection = _Connection(_config(), lambda kind, detail: None)
        await connection.open()
        await connection.close()
        assert connection._task is not None
        return connection._task.done()

    with caplog.at_level(logging.WARNING, logger="stores.mcp.client"):
        assert asyncio.run(scenario())
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
