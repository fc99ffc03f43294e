"""Executor backends: Python functions and LangChain tools, and MCP servers."""


from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Callable
from typing import Any, Protocol

from mcp import types

from stores.catalog.model import IDEMPOTENCY_PARAM, Catalog, ToolSpec
from stores.errors import ToolNotImplemented
from stores.mcp.errors import McpToolError
from stores.mcp.pool import McpSessionPool


class McpBackend:
    """Runs catalog tools whose agent is an MCP server, through a :class:`McpSessionPool`.

    Implements :class:`stores.execution.backends.ToolBackend`; ``spec.agent`` is the server name and
    ``spec.name`` the tool's name on that server.
    """

    def __init__(self, pool: McpSessionPool) -> None:
        """Bind the backend to a run's session pool."""
        self.pool = pool

    async def live_definition_hash(self, spec: ToolSpec) -> str:
        """Return the hash of the tool's definition as its server lists it now ("" if gone)."""
        hashes = await self.pool.live_definition_hashes(spec.agent)
        return hashes.get(spec.name, "")

    async def call(
        self, spec: ToolSpec, args: dict[str, Any], idempotency_key: str | None
    ) -> types.CallToolResult:
        """Call the tool and return its ``CallToolResult`` (``normalize_output`` reads it).

        The executor passes the idempotency key separately (never inside ``args``); it is
        added to the arguments when the tool's schema accepts one.

        Raises:
            McpToolError: the tool answered with ``isError: true`` (the server's text).
        """
        arguments = dict(args)
        if idempotency_key is not None and spec.accepts_idempotency_key():
            arguments.setdefault(IDEMPOTENCY_PARAM, idempotency_key)
        result = await self.pool.call_tool(spec.agent, spec.name, arguments)
        if result.isError:
            texts = [getattr(block, "text", "") for block in result.content or []]
            text = " ".join(t for t in texts if t)[:2000] or "(no message)"
            raise McpToolError(spec.agent, spec.name, text)
        return result




class ToolBackend(Protocol):
    """Something that can run a catalog tool (Python, LangChain, MCP...)."""

    async def call(
        self, spec: ToolSpec, args: dict[str, Any], idempotency_key: str | None
    ) -> Any:
        """Run the tool with validated arguments and return its raw output."""
        ...


class PythonBackend:
    """Runs ``catalog.implementations``: plain functions (sync or async) and LangChain tools.

    Sync functions run in a daemon thread so a deadline holds even for blocking code: when the
    deadline passes the call returns while the thread may keep running, and a hung thread
    never blocks interpreter exit or starves the event loop's default thread pool.
    """

    def __init__(self, catalog: Catalog) -> None:
        """Bind the backend to the catalog whose implementations it calls."""
        self.catalog = catalog

    async def call(
        self, spec: ToolSpec, args: dict[str, Any], idempotency_key: str | None
    ) -> Any:
        """Call the tool's implementation with ``args`` (plus the key when it takes one).

        Raises:
            ToolNotImplemented: the catalog has no implementation for the tool.
        """
        implementation = self.catalog.implementations.get(spec.id)
        if implementation is None:
            raise ToolNotImplemented(
                f"tool {spec.id!r} has no Python implementation in the catalog; register it "
                "with Catalog.register_function or give the executor a backend for agent "
                f"{spec.agent!r}"
            )
        kwargs = dict(args)
        if idempotency_key is not None and spec.accepts_idempotency_key():
            kwargs[IDEMPOTENCY_PARAM] = idempotency_key
        if _is_langchain_runnable(implementation):
            runnable: Any = implementation
            return await runnable.ainvoke(kwargs)
        if inspect.iscoroutinefunction(implementation):
            return await implementation(**kwargs)
        result = await run_in_daemon_thread(implementation, kwargs)
        if inspect.isawaitable(result):
            return await result
        return result


def _is_langchain_runnable(implementation: Any) -> bool:
    try:
        from langchain_core.runnables import Runnable
    except ImportError:  # pragma: no cover - langchain-core is a dependency
        return False
    return isinstance(implementation, Runnable)


async def run_in_daemon_thread(function: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Run a blocking function in its own daemon thread and await its result.

    Unlike ``asyncio.to_thread``, a thread that never returns neither holds a worker of the
    loop's default executor nor blocks ``asyncio.run`` from shutting down.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(outcome: Any, failure: BaseException | None) -> None:
        if future.done():  # the awaiting side gave up (deadline or cancellation)
            return
        if failure is not None:
            future.set_exception(failure)
        else:
            future.set_result(outcome)

    def work() -> None:
        try:
            outcome = context.run(function, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed over to the awaiting task
            _post(loop, settle, None, exc)
        else:
            _post(loop, settle, outcome, None)

    name = f"zspace-tool-{getattr(function, '__name__', 'call')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await future


def _post(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:  # the loop closed while the thread ran: nobody is waiting any more
        pass


def mcp_backends(pool: McpSessionPool) -> dict[str, McpBackend]:
    """Return an executor backend per server id of ``pool`` (``ToolExecutor(backends=...)``)."""
    backend = McpBackend(pool)
    return dict.fromkeys(pool.servers, backend)
