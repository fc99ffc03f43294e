"""The run-time MCP session pool: one long-lived session per server for every call of a run.

Servers start on first use, a dead server is restarted (once per call, never while a
side-effecting call's outcome is unknown), and what happened to each server is reported as
:class:`~stores.mcp.client.McpServerEvent` records. ``stores.execution.backends.mcp_backends``
plugs a pool into the executor; ``stores.catalog.mcp`` uses one to list tools at ingestion.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import anyio
from mcp import ClientSession, types
from mcp.shared.exceptions import McpError

from stores.mcp.client import (
    McpServerEvent,
    _Connection,
    _consume_outcome,
    _list_page,
    tool_definition_hash,
)
from stores.mcp.config import DEFAULT_TIMEOUT_S, McpConfig, McpServerConfig, load_mcp_config
from stores.mcp.errors import (
    McpCallTimeout,
    McpProtocolError,
    McpServerDied,
    McpServerUnavailable,
    UnknownMcpServer,
)

logger = logging.getLogger(__name__)
MAX_TOOL_PAGES = 1000
_T = TypeVar("_T")


# ============================================================================ the pool
class McpSessionPool:
    """One long-lived MCP session per server for the whole run, opened lazily.

    ``async with McpSessionPool(config) as pool:`` — the first request to a server starts it
    (a per-server lock keeps concurrent first calls from spawning it twice); later requests
    reuse the session. Every request runs under the server's ``timeout``. When a server dies,
    the requests in flight fail with :class:`McpServerDied` (outcome unknown) and the next
    request restarts it, at most ``max_restarts`` times per run; after that requests fail
    fast with :class:`McpServerUnavailable`. ``spawns``, ``restarts`` and ``events`` say what
    happened, per server.
    """

    def __init__(
        self,
        config: McpConfig | Mapping[str, McpServerConfig] | str | Path,
        *,
        max_restarts: int = 1,
        call_timeout: float | None = None,
    ) -> None:
        """Configure the pool; nothing starts until the first request.

        Args:
            config: An :class:`McpConfig`, a mapping of server configs, or a config file.
            max_restarts: How many times one server may be restarted in this run.
            call_timeout: Seconds per request for every server (default: each server's
                ``timeout``).
        """
        if isinstance(config, str | Path):
            config = load_mcp_config(config)
        servers = config.servers if isinstance(config, McpConfig) else dict(config)
        self.servers: dict[str, McpServerConfig] = servers
        self.max_restarts = max(0, max_restarts)
        self.call_timeout = call_timeout
        self.spawns: dict[str, int] = dict.fromkeys(servers, 0)
        self.restarts: dict[str, int] = dict.fromkeys(servers, 0)
        self.events: list[McpServerEvent] = []
        # Called with every event as it happens (a long-lived server re-syncs tools on
        # "tools_changed"); a listener must not block: it schedules its work.
        self.listeners: list[Callable[[McpServerEvent], None]] = []
        self._connections: dict[str, _Connection] = {}
        self._locks = {name: asyncio.Lock() for name in servers}
        self._closed = False
        # Live definition hashes per server, listed once per session; dropped when the server
        # says its tools changed or is restarted, so a changed definition is seen on next use.
        self._live_hashes: dict[str, dict[str, str]] = {}

    async def __aenter__(self) -> McpSessionPool:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every session and stop every server process."""
        self._closed = True
        connections = list(self._connections.values())
        await asyncio.gather(*(connection.close() for connection in connections))

    # ------------------------------------------------------------------ inspection
    def pid(self, server: str) -> int | None:
        """Return the process id of a stdio server's current process (None if not started)."""
        connection = self._connections.get(server)
        return connection.pid if connection is not None else None

    def is_alive(self, server: str) -> bool:
        """Return whether the server has an open, working session."""
        connection = self._connections.get(server)
        return connection is not None and connection.alive

    def initialize_result(self, server: str) -> types.InitializeResult | None:
        """Return what the server said in the handshake (name, version, instructions)."""
        connection = self._connections.get(server)
        return connection.initialize_result if connection is not None else None

    def report(self) -> dict[str, dict[str, Any]]:
        """Return, per server, its spawns, restarts, state and events (plain data, no secrets)."""
        return {
            name: {
                "spawns": self.spawns[name],
                "restarts": self.restarts[name],
                "alive": self.is_alive(name),
                "pid": self.pid(name),
                "events": [
                    {"kind": event.kind, "detail": event.detail, "at": event.at}
                    for event in self.events
                    if event.server == name
                ],
            }
            for name in self.servers
        }

    # ------------------------------------------------------------------ requests
    async def session(self, server: str) -> ClientSession:
        """Return the server's live session, starting or restarting the server if needed.

        Raises:
            UnknownMcpServer: the server is not in the config.
            McpServerUnavailable: it could not be started, or its restarts are used up.
        """
        connection = await self._connection(server)
        assert connection.session is not None
        return connection.session

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> types.CallToolResult:
        """Call a tool on its server's long-lived session.

        Returns:
            The ``CallToolResult`` as the server sent it (``isError`` results included).

        Raises:
            McpServerUnavailable: the request was not sent (server down, restarts used up).
            McpServerDied: the server stopped with the call in flight (outcome unknown).
            McpCallTimeout: no answer within the timeout (outcome unknown).
            McpProtocolError: the server rejected the request (e.g. unknown tool).
        """
        return await self._request(
            server,
            f"the call to tool {tool!r}",
            lambda session: session.call_tool(tool, arguments or {}),
            timeout,
        )

    async def list_tools(self, server: str, *, timeout: float | None = None) -> list[types.Tool]:
        """Return every tool of a server, following ``nextCursor`` pagination to the end."""
        tools, _problems = await self._list_all_tools(server, timeout=timeout)
        return tools

    async def _list_all_tools(
        self, server: str, *, timeout: float | None = None
    ) -> tuple[list[types.Tool], list[str]]:
        loop = asyncio.get_running_loop()
        limit = timeout if timeout is not None else self._timeout_for(server)
        deadline = loop.time() + limit
        tools: list[types.Tool] = []
        problems: list[str] = []
        seen_cursors: set[str] = set()
        cursor: str | None = None
        for _page in range(MAX_TOOL_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise McpCallTimeout(server, "tools/list (all pages)", limit)
            page = await self._request(
                server, "tools/list", functools.partial(_list_page, params=params), remaining
            )
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                return tools, problems
            if cursor in seen_cursors:
                problems.append(
                    f"server {server!r} repeated the tools/list cursor {cursor[:40]!r}; "
                    f"stopped after {len(tools)} tools"
                )
                return tools, problems
            seen_cursors.add(cursor)
        problems.append(
            f"server {server!r} returned more than {MAX_TOOL_PAGES} pages of tools; "
            f"stopped after {len(tools)} tools"
        )
        return tools, problems

    async def live_definition_hashes(self, server: str) -> dict[str, str]:
        """Return ``{tool name: definition hash}`` as the server lists them now (cached).

        Compared by the executor with the hashes pinned at index time: a tool whose definition
        changed under a running server is disabled until it is re-indexed.
        """
        cached = self._live_hashes.get(server)
        if cached is not None:
            return cached
        tools = await self.list_tools(server)
        hashes = {tool.name: tool_definition_hash(tool) for tool in tools}
        self._live_hashes[server] = hashes
        return hashes

    def _timeout_for(self, server: str) -> float:
        if self.call_timeout is not None:
            return self.call_timeout
        config = self.servers.get(server)
        return config.timeout if config is not None else DEFAULT_TIMEOUT_S

    async def _request(
        self,
        server: str,
        label: str,
        send: Callable[[ClientSession], Awaitable[_T]],
        timeout: float | None,
    ) -> _T:
        connection = await self._connection(server)
        session = connection.session
        assert session is not None
        limit = timeout if timeout is not None else self._timeout_for(server)
        request = asyncio.ensure_future(send(session))
        lost = asyncio.ensure_future(connection.lost.wait())
        try:
            done, _pending = await asyncio.wait(
                {request, lost}, timeout=limit, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            lost.cancel()
            if not request.done():
                request.cancel()
                request.add_done_callback(_consume_outcome)
        if request in done:
            try:
                return request.result()
            except McpError as exc:
                if exc.error.code != types.CONNECTION_CLOSED:
                    raise McpProtocolError(server, label, exc) from exc
                connection.mark_lost("the connection closed")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
                connection.mark_lost("the connection closed")
                raise McpServerUnavailable(
                    server, f"its session closed before {label} could be sent"
                ) from exc
        if connection.lost.is_set():
            reason = connection.describe_loss()
            self._event(server, "outcome_unknown", f"{label}: {reason}")
            raise McpServerDied(server, label, reason)
        self._event(server, "timeout", f"{label}: no answer within {limit:g} s")
        raise McpCallTimeout(server, label, limit)

    async def _connection(self, server: str) -> _Connection:
        if server not in self.servers:
            raise UnknownMcpServer(
                f"no MCP server {server!r} in the config (known: {', '.join(self.servers)})"
            )
        connection = self._connections.get(server)
        if connection is not None and connection.alive:
            return connection
        async with self._locks[server]:
            connection = self._connections.get(server)
            if connection is not None and connection.alive:
                return connection
            if self._closed:
                raise McpServerUnavailable(server, "the session pool is closed")
            if connection is not None:
                await connection.close()  # first, so the exit status is known
                reason = connection.describe_loss()
                if self.spawns[server] > self.max_restarts:
                    self._event(server, "restart_refused", reason)
                    raise McpServerUnavailable(
                        server,
                        f"it stopped ({reason}) and was started {self.spawns[server]} time(s) "
                        f"in this run, the most allowed (max_restarts={self.max_restarts}); "
                        "fix the server and start a new run",
                    )
                self.restarts[server] += 1
                self._event(server, "restart", f"restarting after: {reason}")
            self.spawns[server] += 1
            connection = _Connection(
                self.servers[server],
                on_event=lambda kind, detail: self._event(server, kind, detail),
            )
            self._connections[server] = connection
            try:
                await connection.open()
            except McpServerUnavailable as exc:
                self._event(server, "start_failed", exc.reason)
                raise
            self._event(server, "started", f"pid {connection.pid}" if connection.pid else "")
            return connection

    def _event(self, server: str, kind: str, detail: str) -> None:
        event = McpServerEvent(server, cast(Any, kind), detail)
        self.events.append(event)
        for listener in list(self.listeners):
            listener(event)
        if kind in ("tools_changed", "restart", "started"):
            self._live_hashes.pop(server, None)
        if kind in ("died", "outcome_unknown", "restart", "restart_refused", "start_failed"):
            logger.warning("MCP server %r: %s: %s", server, kind, detail)


