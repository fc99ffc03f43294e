"""One long-lived session to one MCP server, owned by a background task."""


from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp import ClientSession, types
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from stores.mcp.config import McpServerConfig
from stores.mcp.errors import McpServerUnavailable

logger = logging.getLogger(__name__)


class _ExitedProcessFilter(logging.Filter):
    """Drop the MCP SDK's warning that a server which already exited could not be signalled.

    When a stdio server dies before or during the handshake, the SDK's clean-up tries to kill
    its process group, finds it gone (``ESRCH``) and warns "Process group termination failed
    for PID …: [Errno 3] No such process" — after zspace has already said why the server
    stopped. Nothing failed: there was nothing left to terminate. Other warnings pass.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not ("termination failed" in message and "No such process" in message)


logging.getLogger("mcp.os.posix.utilities").addFilter(_ExitedProcessFilter())

STDERR_TAIL_LINES = 20
# A server that answered the handshake gets this long to exit after its stdin closes.
STDIO_SHUTDOWN_GRACE_S = 2.0
# How long close() waits for a session's teardown (the grace above, then the process group's
# termination) before cancelling it, and again after cancelling, before abandoning it.
CLOSE_BOUND_S = STDIO_SHUTDOWN_GRACE_S + 3.0



# ============================================================================ connections
@dataclass(frozen=True)
class McpServerEvent:
    """Something that happened to a server during a run (for the run's report)."""

    server: str
    kind: Literal[
        "started", "start_failed", "died", "restart", "restart_refused", "outcome_unknown",
        "timeout", "tools_changed",
    ]
    detail: str
    at: float = field(default_factory=time.time)


class _Connection:
    """One open session to one server, owned by a dedicated background task.

    The MCP SDK's transports and ``ClientSession`` are anyio context managers that must be
    entered and exited in the same task; the owner task does both and stays parked until
    the pool closes or the server goes away. Requests are sent from the callers' own tasks
    (a session multiplexes concurrent requests by id), so a caller's cancellation or
    deadline only ever cancels its own request.
    """

    def __init__(
        self, config: McpServerConfig, on_event: Callable[[str, str], None]
    ) -> None:
        self.config = config
        self.session: ClientSession | None = None
        self.initialize_result: types.InitializeResult | None = None
        self.pid: int | None = None
        self.returncode: int | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self.lost = asyncio.Event()
        self.lost_reason = ""
        self._on_event = on_event
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.session is not None and not self.lost.is_set()

    def mark_lost(self, reason: str) -> None:
        if not self.lost.is_set():
            self.lost_reason = reason
            self.lost.set()

    def describe_loss(self) -> str:
        parts = [self.lost_reason or "connection closed"]
        if self.returncode is not None:
            if self.returncode < 0:
                parts.append(f"killed by signal {-self.returncode}")
            else:
                parts.append(f"exit code {self.returncode}")
        if self.stderr_tail:
            parts.append("last stderr: " + " | ".join(self.stderr_tail)[-600:])
        return "; ".join(parts)

    async def open(self) -> None:
        """Start the owner task and wait until the handshake is done.

        Raises:
            McpServerUnavailable: the server did not start, died or timed out in the handshake.
        """
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._own(ready), name=f"mcp-{self.config.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout=self.config.timeout)
        except TimeoutError:
            ready.cancel()
            self.mark_lost(f"no answer to the MCP handshake within {self.config.timeout:g} s")
            await self.close()
            raise McpServerUnavailable(self.config.name, self.describe_loss()) from None
        except BaseException:
            ready.cancel()
            await self.close()
            raise

    async def close(self) -> None:
        """Stop the session and its process; never raises."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self.session is None:
            # Still in the handshake: nothing to wind down gracefully.
            task.cancel()
        # asyncio.wait, unlike gather, does not cancel the owner if our caller is cancelled.
        done, _ = await asyncio.wait({task}, timeout=CLOSE_BOUND_S)
        if done:
            return
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=CLOSE_BOUND_S)
        if done:
            return
        # A teardown that ignores cancellation (a wait for the process that never returns)
        # must not hang the pool: kill what is left of the server and leave the task behind.
        self.mark_lost("the session did not close")
        self._kill_process_group()
        logger.warning(
            "mcp %s: the session did not close within %g s; its process was killed and "
            "its clean-up abandoned", self.config.name, 2 * CLOSE_BOUND_S,
        )

    def _kill_process_group(self) -> None:
        """SIGKILL the server's process group (its own session, so pgid == pid), if alive."""
        if self.pid is None or self.returncode is not None or sys.platform == "win32":
            return
        import os
        import signal

        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass

    async def _own(self, ready: asyncio.Future[None]) -> None:
        failure: BaseException | None = None
        serving = stopped_by_us = False
        try:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        read,
                        write,
                        message_handler=self._on_message,
                        client_info=types.Implementation(name="zspace", version="0.1.0"),
                    )
                )
                self.initialize_result = await session.initialize()
                self.session = session
                serving = True
                if not ready.done():
                    ready.set_result(None)
                await _first_of(self._stop.wait(), self.lost.wait())
                # Decided before teardown, which itself closes the output.
                stopped_by_us = not self.lost.is_set()
        except Exception as exc:  # noqa: BLE001 - the reason is reported, not raised here
            failure = exc
        finally:
            if failure is not None:
                self.mark_lost(_describe_failure(failure))
            self.mark_lost("session closed")
            if not ready.done():
                detail = self.describe_loss()
                if failure is not None and not isinstance(failure, McpServerUnavailable):
                    detail = f"it stopped before finishing the MCP handshake: {detail}"
                ready.set_exception(McpServerUnavailable(self.config.name, detail))
            if serving and not stopped_by_us:
                self._on_event("died", self.describe_loss())

    @asynccontextmanager
    async def _transport(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
              MemoryObjectSendStream[SessionMessage]]
    ]:
        config = self.config
        if config.transport == "stdio":
            if sys.platform == "win32":  # pragma: no cover - the SDK handles Windows jobs
                params = StdioServerParameters(
                    command=config.command or "", args=list(config.args),
                    env={**get_default_environment(), **config.env}, cwd=config.cwd,
                )
                async with stdio_client(params) as streams:
                    yield streams
            else:
                async with self._stdio() as streams:
                    yield streams
        elif config.transport == "sse":
            async with sse_client(
                config.url or "", headers=dict(config.headers), timeout=config.timeout,
                sse_read_timeout=max(300.0, config.timeout),
            ) as streams:
                yield streams
        else:
            client = httpx.AsyncClient(
                headers=dict(config.headers),
                timeout=httpx.Timeout(config.timeout, read=max(300.0, config.timeout)),
            )
            async with client, streamable_http_client(config.url or "", http_client=client) as (
                read, write, _session_id,
            ):
                yield read, write

    @asynccontextmanager
    async def _stdio(
        self,
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception],
              MemoryObjectSendStream[SessionMessage]]
    ]:
        """Spawn the server in its own process group, like the SDK does, keeping its pid.

        Differences from ``mcp.client.stdio.stdio_client``: the pid and exit code are known
        (a dead server is noticed and named), stderr is kept as a short tail for reports, and
        a line of non-JSON on stdout is skipped rather than surfaced as a session error.
        """
        from mcp.os.posix.utilities import terminate_posix_process_tree

        config = self.config
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
        try:
            process = await anyio.open_process(
                [config.command or "", *config.args],
                env={**get_default_environment(), **config.env},
                cwd=config.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            for stream in (read_stream, write_stream, read_writer, write_reader):
                await stream.aclose()
            raise McpServerUnavailable(
                config.name, f"cannot run {config.command!r}: {exc.strerror or exc}"
            ) from exc
        self.pid = process.pid
        assert process.stdout is not None and process.stdin is not None

        async def read_stdout() -> None:
            assert process.stdout is not None
            try:
                async with read_writer:
                    buffer = ""
                    async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                        lines = (buffer + chunk).split("\n")
                        buffer = lines.pop()
                        for line in lines:
                            if not line.strip():
                                continue
                            try:
                                message = types.JSONRPCMessage.model_validate_json(line)
                            except ValidationError:
                                self.stderr_tail.append(f"(non-JSON on stdout) {line[:200]}")
                                continue
                            await read_writer.send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            finally:
                self.mark_lost("the server closed its output")

        async def write_stdin() -> None:
            assert process.stdin is not None
            try:
                async with write_reader:
                    async for session_message in write_reader:
                        data = session_message.message.model_dump_json(
                            by_alias=True, exclude_none=True
                        )
                        await process.stdin.send((data + "\n").encode("utf-8"))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                self.mark_lost("the server stopped reading its input")

        async def read_stderr() -> None:
            if process.stderr is None:
                return
            buffer = ""
            try:
                async for chunk in TextReceiveStream(process.stderr, errors="replace"):
                    lines = (buffer + chunk).split("\n")
                    buffer = lines.pop()[-2000:]
                    for line in lines:
                        if line.strip():
                            self.stderr_tail.append(line.rstrip()[:300])
                            logger.debug("mcp %s stderr: %s", config.name, line.rstrip())
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                pass

        async def watch_exit() -> None:
            self.returncode = await process.wait()
            self.mark_lost("the server process exited")

        try:
            async with anyio.create_task_group() as group:
                for job in (read_stdout, write_stdin, read_stderr, watch_exit):
                    group.start_soon(job)
                try:
                    yield read_stream, write_stream
                finally:
                    with anyio.CancelScope(shield=True):
                        # MCP's stdio shutdown: close stdin, give the server a moment to
                        # exit, then terminate its whole process group.
                        try:
                            await process.stdin.aclose()
                        except (OSError, anyio.BrokenResourceError):
                            pass
                        grace = STDIO_SHUTDOWN_GRACE_S if self.session is not None else 0.0
                        with anyio.move_on_after(grace):
                            await process.wait()
                        if process.returncode is None:
                            await terminate_posix_process_tree(process, 1.0)
                        self.returncode = process.returncode
                    group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
                # Bounded: waiting for an exit the child watcher never reports must not
                # hold the shielded clean-up (and with it the pool's close) forever.
                with anyio.move_on_after(CLOSE_BOUND_S):
                    await process.aclose()
                self.returncode = process.returncode

    async def _on_message(
        self,
        message: Any,
    ) -> None:
        if isinstance(message, Exception):
            if self.config.transport == "stdio":
                logger.debug("mcp %s: ignored transport message %r", self.config.name, message)
            else:
                # An HTTP request failed: the response will never come, so the session is
                # treated as lost and in-flight requests fail as outcome-unknown.
                self.mark_lost(f"transport error: {_describe_failure(message)}")
        elif isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            self._on_event(
                "tools_changed",
                "the server says its tool list changed; re-ingest and re-approve before "
                "trusting changed definitions",
            )


async def _first_of(*waits: Awaitable[Any]) -> None:
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _describe_failure(exc: BaseException) -> str:
    leaves = list(_leaf_exceptions(exc))
    if isinstance(exc, McpServerUnavailable):
        return exc.reason
    texts = []
    for leaf in leaves[:3]:
        if isinstance(leaf, McpServerUnavailable):
            texts.append(leaf.reason)
        else:
            texts.append(f"{type(leaf).__name__}: {str(leaf)[:300] or '(no message)'}")
    return "; ".join(texts)


def _leaf_exceptions(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        leaves: list[BaseException] = []
        for inner in exc.exceptions:
            leaves.extend(_leaf_exceptions(inner))
        return leaves
    return [exc]


async def _list_page(
    session: ClientSession, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return await session.list_tools(params=params)


def _consume_outcome(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


def tool_definition_hash(tool: types.Tool) -> str:
    """Return the sha256 of a tool's canonical definition (detects changed tools).

    Covers what a model or zspace's policy relies on: name, description, input and output
    schemas, annotations and the ``_meta.zspace`` tags (environment, side effect).
    """
    definition = {
        "name": tool.name,
        "description": tool.description or "",
        "inputSchema": tool.inputSchema,
        "outputSchema": tool.outputSchema,
        "annotations": tool_annotations(tool),
        "zspace": (tool.meta or {}).get("zspace"),
    }
    canonical = json.dumps(
        definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def tool_annotations(tool: types.Tool) -> dict[str, Any]:
    """Return the tool's MCP annotations as plain data (empty when it declares none)."""
    if tool.annotations is None:
        return {}
    return tool.annotations.model_dump(mode="json", exclude_none=True, by_alias=True)
