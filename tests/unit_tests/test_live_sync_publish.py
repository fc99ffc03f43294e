"""A live MCP sync publishes the new catalog together with its report, on the event loop.

Before, the catalog was swapped inside the worker thread that synced the index, while the
report was appended later on the loop: a watcher that saw the new tool could find no sync
that added it (the live-sync integration test failed that way, intermittently, with
StopIteration on ``next(s for s in live.syncs if s["added"])``).
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import types

from graph.deps import Deps
from graph.live import LiveMcpSync
from stores.catalog.model import Catalog
from stores.mcp.config import McpConfig, McpServerConfig
from tests.fakes import HashingEmbedder


@dataclass
class _WatchedDeps(Deps):
    """Deps that record, for every catalog swap, the thread and what ``syncs`` held."""

    swaps: list[tuple[str, int]] = field(default_factory=list)
    live: Any = None

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "catalog" and getattr(self, "live", None) is not None:
            self.swaps.append((threading.current_thread().name, len(self.live.syncs)))
        super().__setattr__(name, value)


class _ListingPool:
    def __init__(self, tools: list[types.Tool]) -> None:
        self.tools = tools

    async def _list_all_tools(
        self, server: str, *, timeout: float | None = None
    ) -> tuple[list[types.Tool], list[str]]:
        return list(self.tools), []


def test_the_new_catalog_and_its_report_appear_together(tmp_path: Path) -> None:
    deps = _WatchedDeps(embedder=HashingEmbedder(), home=tmp_path / "home", catalog=Catalog())
    config = McpConfig(servers={"conv": McpServerConfig(
        name="conv", transport="stdio", command="unused", environment="test")})
    live = LiveMcpSync(deps, config, register_backends=False)
    tool = types.Tool(name="get_fahrenheit", description="Convert celsius to fahrenheit",
                      inputSchema={"type": "object", "properties": {"celsius": {
                          "type": "number"}}, "required": ["celsius"]})
    live.pool = _ListingPool([tool])  # type: ignore[assignment]
    deps.live = live

    async def sync() -> str:
        await live._sync_once("conv", "listed", 0.0)
        return threading.current_thread().name

    loop_thread = asyncio.run(sync())
    assert "conv/get_fahrenheit" in deps.get_catalog().tools
    assert live.syncs and live.syncs[-1]["added"] == ["conv/get_fahrenheit"]
    # The swap happened on the loop, and the report was appended in the same step.
    assert deps.swaps, "the catalog was never replaced"
    thread, syncs_before = deps.swaps[-1]
    assert thread == loop_thread
    assert syncs_before == 0
