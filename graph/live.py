"""Live MCP sync for long-lived processes: sessions stay open, changed tools are re-indexed.

``async with LiveMcpSync(deps, config):`` — while the block runs (``zspace mcp`` wraps its
whole life in one; an embedding application may do the same around its runtime):

- one session per configured MCP server stays open, and every run of ``deps`` calls tools
  through it (its backend is put in ``deps.backends``, so ``open_runtime`` reuses it);
- when a server sends ``notifications/tools/list_changed`` its tools are listed again and
  synced into the catalog and the index within seconds: the index sync is the usual
  hash-incremental one (only changed entries are embedded), removed tools leave the index and
  so stop being candidates, and the active catalog file is rewritten; the catalog object is
  replaced, not edited, so code holding the previous one keeps a consistent view;
- a server that dies is reconnected with exponential backoff, reported on the log (and in
  :attr:`LiveMcpSync.status`), and its tools are synced again once it is back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

from graph.deps import Deps
from stores.catalog.enrich import enrich_catalog
from stores.catalog.mcp import tool_to_raw
from stores.catalog.model import Catalog
from stores.execution.backends import McpBackend
from stores.mcp.client import McpServerEvent
from stores.mcp.config import McpConfig, load_mcp_config
from stores.mcp.pool import McpSessionPool

logger = logging.getLogger("zspace.live")


class LiveMcpSync:
    """Keeps the indexed MCP servers' sessions open and their tools in sync (see module)."""

    def __init__(
        self,
        deps: Deps,
        config: Path | McpConfig,
        *,
        check_every_s: float = 1.0,
        max_backoff_s: float = 30.0,
        register_backends: bool = True,
    ) -> None:
        """Configure the sync; nothing starts before ``async with``.

        Args:
            deps: The collaborators whose catalog, index and backends are kept current.
            config: The MCP config (``zspace index --mcp`` saves which one was indexed).
            check_every_s: How often dead sessions are looked for.
            max_backoff_s: The longest wait between two reconnection attempts.
            register_backends: Put this pool's backend in ``deps.backends`` for every server
                (off when the caller routes calls itself, e.g. one pool per event loop).
        """
        self.deps = deps
        self.config = config if isinstance(config, McpConfig) else load_mcp_config(config)
        self.check_every_s = check_every_s
        self.max_backoff_s = max_backoff_s
        # Restarts are this object's job (with backoff), so the pool never refuses one.
        self.pool = McpSessionPool(self.config, max_restarts=1_000_000)
        self.syncs: list[dict[str, Any]] = []
        self.status: dict[str, str] = dict.fromkeys(self.config.servers, "starting")
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()
        self._added_backends: list[str] = []
        self._register_backends = register_backends
        self._again: set[str] = set()

    async def __aenter__(self) -> LiveMcpSync:
        backend = McpBackend(self.pool)
        for server in self.config.servers if self._register_backends else ():
            if server not in self.deps.backends:
                self.deps.backends[server] = backend
                self._added_backends.append(server)
        self.pool.listeners.append(self._on_event)
        for server in self.config.servers:
            try:
                await self.pool.session(server)
                self.status[server] = "connected"
            except Exception as exc:  # noqa: BLE001 - reported; the watchdog retries
                self.status[server] = f"down: {exc}"
                logger.warning("MCP server %r did not start: %s", server, exc)
                continue
            # Its tools may have changed since `zspace index`: one sync on start (cheap when
            # nothing changed: nothing is embedded).
            self.request_sync(server, reason="connected")
        self._spawn(self._watch())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.pool.listeners.remove(self._on_event)
        await self.pool.aclose()
        for server in self._added_backends:
            self.deps.backends.pop(server, None)

    # ------------------------------------------------------------------ events
    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _on_event(self, event: McpServerEvent) -> None:
        if event.kind == "tools_changed":
            self.request_sync(event.server, reason="the server said its tools changed")

    def request_sync(self, server: str, reason: str) -> None:
        """Re-list one server's tools soon.

        Requests while a sync of the server runs are merged into one more sync after it, so a
        change announced after the listing was taken is never lost.
        """
        pending = self._pending.get(server)
        if pending is not None and not pending.done():
            self._again.add(server)
            return
        self._pending[server] = self._spawn(self._sync(server, reason, time.monotonic()))

    async def _watch(self) -> None:
        """Reconnect dead servers with exponential backoff and re-sync them."""
        backoff = dict.fromkeys(self.config.servers, self.check_every_s)
        while True:
            await asyncio.sleep(self.check_every_s)
            for server in self.config.servers:
                if self.pool.is_alive(server):
                    backoff[server] = self.check_every_s
                    continue
                wait = backoff[server]
                self.status[server] = f"down; reconnecting (next wait {wait:g} s)"
                logger.warning("MCP server %r is down; reconnecting after %g s", server, wait)
                await asyncio.sleep(wait)
                try:
                    await self.pool.session(server)
                except Exception as exc:  # noqa: BLE001 - retried with a longer wait
                    backoff[server] = min(wait * 2, self.max_backoff_s)
                    self.status[server] = f"down: {exc}"
                    continue
                self.status[server] = "connected"
                logger.warning("MCP server %r reconnected", server)
                self.request_sync(server, reason="reconnected")

    # ------------------------------------------------------------------ sync
    async def _sync(self, server: str, reason: str, asked: float) -> None:
        try:
            await self._sync_once(server, reason, asked)
        finally:
            if server in self._again:
                self._again.discard(server)
                self._pending[server] = self._spawn(
                    self._sync(server, "changed again during a sync", time.monotonic()))

    async def _sync_once(self, server: str, reason: str, asked: float) -> None:
        config = self.config.servers[server]
        try:
            tools, problems = await self.pool._list_all_tools(server, timeout=config.timeout)
        except Exception as exc:  # noqa: BLE001 - the watchdog handles a dead server
            logger.warning("MCP server %r: re-listing its tools failed: %s", server, exc)
            return
        raws = []
        for tool in tools:
            raw, tool_problems = tool_to_raw(server, tool, config.environment)
            raws.append(raw)
            problems.extend(tool_problems)
        async with self._lock:
            try:
                report, fresh = await asyncio.to_thread(self._apply, server, raws)
            except Exception as exc:  # noqa: BLE001 - a failed sync must not stop serving
                logger.warning("MCP server %r: syncing its tools failed: %s", server, exc)
                return
            report.update(server=server, reason=reason, problems=problems,
                          seconds=round(time.monotonic() - asked, 3))
            # Published on the loop together with its report: whoever sees the new catalog
            # also finds the sync that made it in ``syncs``.
            with self.deps._lock:
                # Replaced, not edited: runs in flight keep theirs (Deps.pin_catalog), and
                # the dependency graph is rebuilt for the new catalog on next use.
                self.deps.catalog = fresh
            self.syncs.append(report)
        logger.warning(
            "MCP server %r tools synced (%s): %d added, %d removed, %d changed, %d embedded "
            "in %.2f s", server, reason, len(report["added"]), len(report["removed"]),
            len(report["changed"]), report["indexed"], report["seconds"],
        )

    def _apply(
        self, server: str, raws: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], Catalog]:
        """Build the new catalog, sync the index (hash-incremental) and save the catalog.

        Returns the sync's report and the new catalog, which the caller publishes.
        """
        old = self.deps.get_catalog()
        fresh = Catalog()
        listed = Catalog()
        for raw in raws:
            listed.add_raw_tool(raw, source=f"mcp:{server}")
        enrich_catalog(listed, self.deps.get_lexicon())
        for agent in old.agents.values():
            fresh.agents.setdefault(agent.id, agent)
        for tool_id, spec in old.tools.items():
            if spec.agent != server:
                fresh.add_tool(spec.model_copy())
                if tool_id in old.implementations:
                    fresh.implementations[tool_id] = old.implementations[tool_id]
        for spec in listed.tools.values():
            fresh.add_tool(spec)
        before = {i: s.content_hash() for i, s in old.tools.items() if s.agent == server}
        after = {i: s.content_hash() for i, s in fresh.tools.items() if s.agent == server}
        report = self.deps.get_index().sync(fresh)
        store = self.deps.catalog_store()
        try:
            store.save(self.deps.index_name, fresh)
        finally:
            store.close()
        return {
            "added": sorted(set(after) - set(before)),
            "removed": sorted(set(before) - set(after)),
            "changed": sorted(i for i in set(after) & set(before) if after[i] != before[i]),
            "indexed": report.indexed,
        }, fresh
