"""The runtime of a run outside Studio: durable checkpointer, call ledger, MCP sessions.

- :func:`open_runtime` compiles the graph with a durable checkpointer (SQLite under the home,
  or Postgres when ``ZSPACE_POSTGRES_URL`` / a URL is given, with the call ledger in the same
  database) and the MCP sessions of the servers that were indexed.
- :func:`open_checkpointer` opens that checkpointer alone (``zspace threads``).
- :func:`index_mcp_servers` and :func:`mcp_sessions` give an embedded graph MCP servers:
  index their tools, then serve its calls on them.
- :func:`server_deps` and :class:`SavedMcpBackend` serve long-lived servers (``langgraph
  dev``, ``zspace mcp``) over the MCP config ``zspace index --mcp`` last used.
- :func:`require_chat_model` checks that an asked-for chat model can be used, before a run
  that must not fall back to the rules.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from graph.builder import build_graph
from graph.deps import Deps, configured_index_name
from nodes.context import Context
from stores.checkpoint import postgres_checkpointer, sqlite_checkpointer

MCP_CONFIG_POINTER = "mcp_config.json"
POSTGRES_URL_VARIABLE = "ZSPACE_POSTGRES_URL"


def saved_mcp_config(home: Path, index_name: str | None = None) -> Path | None:
    """The MCP config ``zspace index --mcp`` last used for index ``index_name``, if any.

    Each index of a home (``--name``) remembers its own config, so indexing a second index
    with other servers does not cut the first one's runs off from theirs. A pointer written
    before names were kept (``{"path": …}``) serves every index.
    """
    pointer = home / MCP_CONFIG_POINTER
    if not pointer.is_file():
        return None
    saved = json.loads(pointer.read_text())
    by_index = saved.get("indexes") or {}
    name = index_name or configured_index_name(None)
    found = by_index.get(name) if by_index else saved.get("path")
    return Path(found) if found and Path(found).is_file() else None


def remember_mcp_config(home: Path, config: Path, index_name: str | None = None) -> None:
    """Remember which MCP config serves the tools of index ``index_name``, for later runs."""
    pointer = home / MCP_CONFIG_POINTER
    saved = json.loads(pointer.read_text()) if pointer.is_file() else {}
    by_index = dict(saved.get("indexes") or {})
    if not by_index and saved.get("path"):
        # A pointer from before names were kept served the default index.
        by_index[configured_index_name(None)] = saved["path"]
    by_index[index_name or configured_index_name(None)] = str(config.resolve())
    pointer.write_text(json.dumps({"indexes": by_index}))


def configured_postgres_url(explicit: str | None = None) -> str | None:
    """The Postgres URL to use: the explicit one, else ``ZSPACE_POSTGRES_URL``, else None."""
    return explicit or os.environ.get(POSTGRES_URL_VARIABLE) or None


class SavedMcpBackend:
    """An executor backend for long-lived servers (``langgraph dev``, ``zspace mcp``).

    It calls tools over the MCP config ``zspace index --mcp`` last used, opening one session
    pool per event loop on first use (nothing happens at import); the sessions live as long as
    the process and, given the server's ``Deps``, its tool changes are synced live
    (:class:`graph.live.LiveMcpSync`). Use :func:`open_runtime` when a run has a clear end.
    """

    def __init__(self, home: Callable[[], Path], deps: Deps | None = None) -> None:
        """Find the saved MCP config under ``home()`` when the first call comes.

        With ``deps``, the sessions are a :class:`graph.live.LiveMcpSync` that keeps the
        catalog and index of ``deps`` in sync with the servers' tool changes.
        """
        self._home = home
        self._deps = deps
        self._live: dict[int, Any] = {}
        self._pools: dict[int, Any] = {}
        self._servers: set[str] | None = None

    async def call(self, spec: Any, args: dict[str, Any], idempotency_key: str | None) -> Any:
        """Call the tool on its MCP server (``spec.agent``)."""
        from stores.execution.backends import McpBackend
        from stores.mcp.config import load_mcp_config
        from stores.mcp.pool import McpSessionPool

        loop = id(asyncio.get_running_loop())
        if loop not in self._pools:
            # Reading the saved config touches files: off the event loop (Studio's server
            # refuses blocking calls inside async nodes).
            home = await asyncio.to_thread(self._home)
            path = await asyncio.to_thread(
                saved_mcp_config, home, self._deps.index_name if self._deps else None
            )
            if path is None:
                raise RuntimeError(
                    f"tool {spec.id!r} has no backend: no MCP config was indexed under "
                    f"{home} (run `zspace index --mcp CONFIG` with the same ZSPACE_HOME)"
                )
            config = await asyncio.to_thread(load_mcp_config, path)
            self._servers = set(config.servers)
            if self._deps is not None:
                from graph.live import LiveMcpSync

                # Lives as long as the process (a server has no end to wait for); its pool is
                # this loop's, so calls are routed here rather than through deps.backends.
                live = LiveMcpSync(self._deps, config, register_backends=False)
                self._live[loop] = await live.__aenter__()
                self._pools[loop] = live.pool
            else:
                self._pools[loop] = McpSessionPool(config)
        if spec.agent not in (self._servers or set()):
            raise RuntimeError(
                f"tool {spec.id!r}: agent {spec.agent!r} is not a server of the indexed MCP "
                "config, and this process has no Python implementation for it"
            )
        return await McpBackend(self._pools[loop]).call(spec, args, idempotency_key)

    async def aclose(self) -> None:
        """Close this event loop's sessions (and stop its live sync)."""
        loop = id(asyncio.get_running_loop())
        live = self._live.pop(loop, None)
        pool = self._pools.pop(loop, None)
        if live is not None:
            await live.__aexit__(None, None, None)
        elif pool is not None:
            await pool.aclose()


def server_deps(home: Path | None = None) -> Deps:
    """Deps for a long-lived server: lazy defaults plus the saved MCP config as backend."""
    deps = Deps(home=home)
    deps.backends.setdefault("*", SavedMcpBackend(deps.get_home, deps))
    return deps


@asynccontextmanager
async def open_checkpointer(deps: Deps, postgres_url: str | None = None) -> AsyncIterator[Any]:
    """The durable checkpointer: Postgres when a URL is configured, else SQLite in the home."""
    url = configured_postgres_url(postgres_url)
    if url:
        async with postgres_checkpointer(url) as saver:
            yield saver
    else:
        async with sqlite_checkpointer(deps.get_home() / "checkpoints.sqlite") as saver:
            yield saver


@asynccontextmanager
async def open_runtime(
    deps: Deps, mcp_config: Path | None, postgres_url: str | None = None
) -> AsyncIterator[Any]:
    """A compiled graph with a durable checkpointer and, when configured, MCP sessions.

    One session per MCP server serves every call of the run; all close on exit. With a
    Postgres URL (argument or ``ZSPACE_POSTGRES_URL``) the checkpoints and the call ledger
    both live in that database.
    """
    url = configured_postgres_url(postgres_url)
    async with AsyncExitStack() as stack:
        if mcp_config is not None:
            await stack.enter_async_context(mcp_sessions(deps, mcp_config))
        if url and deps.ledger is None:
            from stores.execution.ledger.calls import CallLedger

            ledger = CallLedger(url)
            deps.ledger = ledger

            def close_ledger() -> None:
                ledger.close()
                deps.ledger = None

            stack.callback(close_ledger)
        saver = await stack.enter_async_context(open_checkpointer(deps, url))
        yield build_graph(deps).compile(checkpointer=saver, name="zspace")


McpConfigSource = str | Path | Mapping[str, Any]
"""An MCP config: a path to an ``mcp.json``, or the ``{"mcpServers": {...}}`` object itself."""


def _mcp_config(config: McpConfigSource) -> Any:
    from stores.mcp.config import load_mcp_config, parse_mcp_config

    if isinstance(config, Mapping):
        return parse_mcp_config(dict(config), base_dir=Path.cwd())
    return load_mcp_config(config)


async def index_mcp_servers(deps: Deps, config: McpConfigSource) -> Any:
    """List every server's tools into ``deps``' catalog and index them, as ``zspace index``.

    The tools join ``deps.catalog`` (a new catalog when it has none) with derived tags, and
    ``deps.get_index()`` is synced to it. Returns the load report (per server: tools, time, or
    why it failed; print it).

    Raises:
        McpConfigError: the config is invalid (nothing started).
    """
    from stores.catalog.enrich import enrich_catalog
    from stores.catalog.mcp import load_mcp_catalog
    from stores.catalog.model import Catalog

    loaded = await asyncio.to_thread(_mcp_config, config)
    catalog = deps.catalog if deps.catalog is not None else Catalog()
    _, report = await load_mcp_catalog(loaded, catalog=catalog)
    await asyncio.to_thread(enrich_catalog, catalog)
    deps.catalog = catalog
    index = await asyncio.to_thread(deps.get_index)
    await asyncio.to_thread(index.sync, catalog)
    return report


@asynccontextmanager
async def mcp_sessions(deps: Deps, config: McpConfigSource) -> AsyncIterator[None]:
    """Serve the tool calls of ``deps``' graphs on the config's servers for the block.

    One session per server, started on first use, restarted once if it dies, closed on exit;
    servers that already have a backend in ``deps.backends`` keep it.
    """
    from stores.execution.backends import mcp_backends
    from stores.mcp.pool import McpSessionPool

    loaded = await asyncio.to_thread(_mcp_config, config)
    async with McpSessionPool(loaded) as pool:
        added = {k: v for k, v in mcp_backends(pool).items() if k not in deps.backends}
        deps.backends.update(added)
        try:
            yield
        finally:
            # The pool closes with this block: a Deps reused later must not keep it.
            for server in added:
                deps.backends.pop(server, None)


class ChatModelUnavailable(RuntimeError):
    """A chat model was asked for and cannot be used; the message says why."""


async def require_chat_model(deps: Deps, context: Context, timeout_s: float = 60.0) -> Any:
    """The chat model a run with ``context`` uses, checked with one short request.

    The model is selected as ``zspace run`` selects it (``Deps.chat_model_for``: the context's
    model and base URL, or ``OPENAI_BASE_URL``; the key from ``OPENAI_API_KEY``, any value
    for a local server). Where ``zspace run`` falls back to the rules, this is an error.

    Raises:
        ChatModelUnavailable: no key and no endpoint, or the endpoint failed the request.
    """
    name = context.model or os.environ.get("ZSPACE_MODEL", "")
    model = deps.chat_model_for(context)
    if model is None:
        raise ChatModelUnavailable(
            f"chat model {name!r} cannot be used: no OPENAI_API_KEY and no endpoint; set "
            "OPENAI_API_KEY (any value for a local server) or give --base-url"
        )
    where = context.base_url or os.environ.get("OPENAI_BASE_URL") or "the OpenAI API"
    try:
        await asyncio.wait_for(model.ainvoke("Reply with OK."), timeout=timeout_s)
    except Exception as exc:  # noqa: BLE001 - every failure is a reason not to run
        raise ChatModelUnavailable(
            f"chat model {name!r} at {where} cannot be used: {type(exc).__name__}: {exc}"
        ) from exc
    return model
