"""MCP servers as a tool source: config loading, catalog ingestion and a run-time session pool.

A config uses the common ``mcpServers`` shape (Claude Desktop, Cursor, langchain-mcp-adapters)::

    {"mcpServers": {
        "shop": {"command": "python", "args": ["-m", "sandbox", "serve"],
                 "env": {"API_TOKEN": "${SHOP_TOKEN}"}, "timeout": 30, "environment": "test"},
        "crm": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer ${CRM}"}}
    }}

``${VAR}`` and ``${VAR:-default}`` in ``env`` and ``headers`` values come from the process
environment, so secrets stay out of the file. A command that is exactly ``python`` or
``python3`` runs the interpreter running zspace (``sys.executable``), so a server written in
Python sees the same virtual environment.

Ingestion (:func:`load_mcp_catalog`) starts every server concurrently under its own timeout,
lists its tools (following pagination) and adds them to a :class:`~stores.catalog.Catalog` under
ids qualified by server (``<server>/<tool>``), each with a hash of its definition. A server that
cannot start, hangs or dies is reported by name and the others still load.

At run time :class:`McpSessionPool` keeps one long-lived session per server for every call of a
run; :class:`McpBackend` plugs it into :class:`~stores.executor.ToolExecutor`.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import hashlib
import json
import logging
import math
import os
import re
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import anyio
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp import ClientSession, types
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from stores.catalog import ENVIRONMENTS, Catalog, Environment, ToolSpec
from stores.executor import IDEMPOTENCY_PARAM, ToolReportedError
from stores.policy import SECRETS

logger = logging.getLogger(__name__)

McpTransport = Literal["stdio", "streamable_http", "sse"]
DEFAULT_TIMEOUT_S = 30.0
DEFINITION_HASH_KEY = "zspace_definition_hash"
MAX_TOOL_PAGES = 1000
STDERR_TAIL_LINES = 20
# A server that answered the handshake gets this long to exit after its stdin closes.
STDIO_SHUTDOWN_GRACE_S = 2.0
PYTHON_COMMANDS = frozenset({"python", "python3"})
_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TRANSPORT_ALIASES: dict[str, McpTransport] = {
    "stdio": "stdio",
    "streamable_http": "streamable_http",
    "streamable-http": "streamable_http",
    "streamablehttp": "streamable_http",
    "http": "streamable_http",
    "sse": "sse",
}
_KNOWN_FIELDS = frozenset(
    {"command", "args", "env", "cwd", "url", "headers", "transport", "type", "timeout",
     "environment", "disabled", "description"}
)
_T = TypeVar("_T")


# ============================================================================ errors
class McpConfigError(ValueError):
    """An MCP config that cannot be used; the message names the file, the server and the field."""


class UnknownMcpServer(LookupError):
    """A call names a server that is not in the pool's config (permanent: retrying won't help)."""


class McpServerUnavailable(ConnectionRefusedError):
    """The server could not be started or reached, so the request was **not** sent.

    A ``ConnectionRefusedError``: the executor classifies it as transient and knows the call
    surely did not act, so even a side-effecting call may be retried.
    """

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f"MCP server {server!r} is unavailable: {reason}")
        self.server = server
        self.reason = reason


class McpServerDied(ConnectionError):
    """The server stopped while a request was in flight: the request's outcome is unknown.

    A ``ConnectionError`` (transient) that is not a refusal: the executor retries it only when
    the call is read-only or carries an idempotency key, and otherwise records the call as
    ``unknown_outcome`` instead of repeating it blindly.
    """

    outcome_unknown = True

    def __init__(self, server: str, request: str, reason: str) -> None:
        super().__init__(
            f"MCP server {server!r} stopped while {request} was in flight ({reason}); the "
            "outcome of that request is unknown: check the target system before repeating "
            "it. The pool restarts the server on the next call while its restart budget lasts"
        )
        self.server = server
        self.request = request
        self.reason = reason


class McpCallTimeout(TimeoutError):
    """A request got no answer within the server's timeout (its outcome is unknown)."""

    def __init__(self, server: str, request: str, timeout_s: float) -> None:
        super().__init__(
            f"MCP server {server!r} did not answer {request} within {timeout_s:g} s; raise "
            "the server's 'timeout' in the MCP config if it is just slow"
        )
        self.server = server
        self.request = request


class McpToolError(ToolReportedError):
    """A tool answered with ``isError: true``; carries the server's error text.

    A :class:`~stores.executor.ToolReportedError`, so the executor treats it as permanent
    (a rejected status transition is not retried) unless the text says it is temporary.
    """

    def __init__(self, server: str, tool: str, text: str) -> None:
        super().__init__(f"{server}/{tool} reported an error: {text}")
        self.server = server
        self.tool = tool
        self.text = text


class McpProtocolError(ToolReportedError):
    """The server answered a request with a JSON-RPC error (unknown tool, invalid params...)."""

    def __init__(self, server: str, request: str, error: McpError) -> None:
        super().__init__(
            f"MCP server {server!r} rejected {request}: {error.error.message} "
            f"(JSON-RPC code {error.error.code})"
        )
        self.server = server
        self.code = error.error.code


# ============================================================================ config
@dataclass(frozen=True)
class McpServerConfig:
    """One server of an MCP config, validated, with variables expanded.

    ``env`` and ``headers`` may hold secrets: they are left out of ``repr`` and of reports.
    """

    name: str
    transport: McpTransport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float = DEFAULT_TIMEOUT_S
    environment: Environment | None = None
    description: str = ""


@dataclass
class McpConfig:
    """The servers of one MCP config file."""

    servers: dict[str, McpServerConfig]
    source: str = "<config>"
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def load_mcp_config(
    path: str | Path, *, environ: Mapping[str, str] | None = None
) -> McpConfig:
    """Read and validate an MCP config file.

    Relative ``cwd`` values are resolved against the file's directory.

    Args:
        path: The JSON file with an ``mcpServers`` object.
        environ: Where ``${VAR}`` values come from (default: ``os.environ``).

    Raises:
        McpConfigError: the file is unreadable, not JSON, or a server is misconfigured.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"cannot read MCP config {path}: {exc}") from exc
    try:
        document = json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except _DuplicateKey as exc:
        raise McpConfigError(
            f"{path}: key {exc.key!r} appears twice in one object; the later entry would "
            "silently replace the earlier one, so give each server a unique name"
        ) from exc
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{path} is not valid JSON: {exc}") from exc
    return parse_mcp_config(
        document, source=str(path), base_dir=path.resolve().parent, environ=environ
    )


def parse_mcp_config(
    document: Any,
    *,
    source: str = "<config>",
    base_dir: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> McpConfig:
    """Validate an already parsed ``{"mcpServers": {...}}`` document.

    Args:
        document: The parsed JSON.
        source: Names the config in error messages (usually its path).
        base_dir: Directory that relative ``cwd`` values are relative to.
        environ: Where ``${VAR}`` values come from (default: ``os.environ``).

    Raises:
        McpConfigError: naming the source, the server and the field at fault.
    """
    if not isinstance(document, Mapping) or not isinstance(document.get("mcpServers"), Mapping):
        raise McpConfigError(
            f"{source}: an MCP config is an object with an 'mcpServers' object mapping each "
            'server name to its settings, e.g. {"mcpServers": {"shop": {"command": "python", '
            '"args": ["-m", "shop"]}}}'
        )
    config = McpConfig(servers={}, source=source)
    for name, raw in document["mcpServers"].items():
        if isinstance(raw, Mapping) and raw.get("disabled") is True:
            config.disabled.append(str(name))
            continue
        server = parse_server_config(
            name, raw, source=source, base_dir=base_dir, environ=environ
        )
        config.servers[server.name] = server
        config.warnings.extend(
            f"{source}: server {name!r}: field {key!r} is not used by zspace"
            for key in raw
            if key not in _KNOWN_FIELDS
        )
    return config


def parse_server_config(
    name: Any,
    raw: Any,
    *,
    source: str = "<config>",
    base_dir: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> McpServerConfig:
    """Validate one server entry of an ``mcpServers`` object.

    Raises:
        McpConfigError: naming the source, the server and the field at fault.
    """
    environ = os.environ if environ is None else environ

    def fail(field_name: str, problem: str) -> McpConfigError:
        return McpConfigError(f"{source}: server {name!r}, field {field_name!r}: {problem}")

    if not isinstance(name, str) or not _SERVER_NAME.match(name):
        raise McpConfigError(
            f"{source}: server name {name!r} must be 1-64 letters, digits, '_', '.' or '-' "
            "(it prefixes every tool id as '<server>/<tool>', so no '/' or spaces)"
        )
    if not isinstance(raw, Mapping):
        raise fail("(server)", f"settings must be an object, got {type(raw).__name__}")
    command, url = raw.get("command"), raw.get("url")
    if command is not None and url is not None:
        raise fail("command", "give either 'command' (stdio) or 'url' (HTTP), not both")
    if command is None and url is None:
        raise fail("command", "missing: give 'command' (a stdio server) or 'url' (HTTP or SSE)")

    declared = raw.get("transport", raw.get("type"))
    transport_field = "transport" if "transport" in raw else "type"
    if declared is None:
        transport: McpTransport = "stdio" if command is not None else "streamable_http"
    elif isinstance(declared, str) and declared.lower() in _TRANSPORT_ALIASES:
        transport = _TRANSPORT_ALIASES[declared.lower()]
    else:
        raise fail(transport_field, f"{declared!r} is not one of stdio, streamable_http, sse")
    if transport == "stdio" and command is None:
        raise fail("command", "a stdio server needs a 'command'")
    if transport != "stdio" and url is None:
        raise fail("url", f"a {transport} server needs a 'url'")

    timeout = raw.get("timeout", DEFAULT_TIMEOUT_S)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise fail("timeout", f"must be a positive number of seconds, got {timeout!r}")
    environment = raw.get("environment")
    if environment is not None and environment not in ENVIRONMENTS:
        raise fail("environment", f"{environment!r} is not one of {', '.join(ENVIRONMENTS)}")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise fail("description", "must be a string")

    common: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "timeout": float(timeout),
        "environment": environment,
        "description": description,
    }
    if transport == "stdio":
        if not isinstance(command, str) or not command.strip():
            raise fail("command", "must be a non-empty string (the executable)")
        args = raw.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            raise fail("args", "must be a list of strings")
        cwd = raw.get("cwd")
        if cwd is not None:
            if not isinstance(cwd, str) or not cwd:
                raise fail("cwd", "must be a directory path")
            if base_dir is not None and not Path(cwd).is_absolute():
                cwd = str(Path(base_dir) / cwd)
        for wrong in ("headers",):
            if wrong in raw:
                raise fail(wrong, "only HTTP and SSE servers take headers; use 'env'")
        server_env = _expand_mapping(raw.get("env"), "env", fail, environ)
        SECRETS.add_mapping(server_env)  # values under secret-looking names never leave
        return McpServerConfig(
            command=resolve_command(command),
            args=tuple(args),
            env=server_env,
            cwd=cwd,
            **common,
        )
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise fail("url", f"must be an http:// or https:// URL, got {url!r}")
    for wrong in ("args", "env", "cwd"):
        if wrong in raw:
            raise fail(wrong, f"only stdio servers take {wrong!r}; this one has a 'url'")
    headers = _expand_mapping(raw.get("headers"), "headers", fail, environ)
    SECRETS.add_mapping(headers)
    return McpServerConfig(url=url, headers=headers, **common)


def resolve_command(command: str) -> str:
    """Return the executable to start: ``python``/``python3`` mean the running interpreter.

    So a config that says ``"command": "python"`` uses zspace's own virtual environment
    whatever ``PATH`` says.
    """
    return sys.executable if command in PYTHON_COMMANDS else command


def expand_variables(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace ``${VAR}`` and ``${VAR:-default}`` by values from the environment.

    Raises:
        KeyError: a variable without a default is not set (its name is the key).
    """
    environ = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        variable, default = match.group(1), match.group(2)
        found = environ.get(variable)
        if found is not None and (found or default is None):
            return found
        if default is not None:
            return default
        raise KeyError(variable)

    return _VARIABLE.sub(substitute, value)


def _expand_mapping(
    raw: Any,
    field_name: str,
    fail: Callable[[str, str], McpConfigError],
    environ: Mapping[str, str],
) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise fail(field_name, "must be an object of string values")
    expanded: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(value, str):
            raise fail(f"{field_name}.{key}", f"must be a string, got {type(value).__name__}")
        try:
            expanded[str(key)] = expand_variables(value, environ)
        except KeyError as exc:
            variable = exc.args[0]
            raise fail(
                f"{field_name}.{key}",
                f"environment variable {variable!r} is not set; export it, or write "
                f"${{{variable}:-default}} for a fallback",
            ) from None
    return expanded


# ============================================================================ tool mapping
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
        "annotations": _annotations_of(tool),
        "zspace": (tool.meta or {}).get("zspace"),
    }
    canonical = json.dumps(
        definition, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def tool_to_raw(
    server: str, tool: types.Tool, environment: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Map one MCP tool to a raw catalog record (validated later by ``Catalog.add_raw_tool``).

    ``environment`` and ``side_effect`` come from ``_meta.zspace``; a tool that does not tag
    its environment gets the server's configured one, and without a side-effect tag a
    ``readOnlyHint: true`` annotation means it does not write (anything else: unknown).
    The definition hash is kept under ``annotations["zspace_definition_hash"]``.

    Returns:
        The raw record and problems worth reporting (untrusted tags that were ignored).
    """
    problems: list[str] = []
    tags = (tool.meta or {}).get("zspace")
    if tags is not None and not isinstance(tags, Mapping):
        problems.append(f"tool {tool.name!r}: _meta.zspace is not an object; ignored")
        tags = None
    tags = tags or {}
    tagged_environment = tags.get("environment")
    # An unknown environment tag is passed on so the catalog quarantines the tool.
    resolved_environment = tagged_environment if tagged_environment is not None else environment
    side_effect = tags.get("side_effect")
    if side_effect is not None and not isinstance(side_effect, bool):
        problems.append(
            f"tool {tool.name!r}: _meta.zspace.side_effect {side_effect!r} is not a boolean; "
            "ignored"
        )
        side_effect = None
    annotations = _annotations_of(tool)
    if side_effect is None and annotations.get("readOnlyHint") is True:
        side_effect = False
    raw: dict[str, Any] = {
        "id": f"{server}/{tool.name}",
        "name": tool.name,
        "agent": server,
        "description": tool.description or "",
        # Copies: the record must not alias the tool it is hashed from.
        "input_schema": copy.deepcopy(tool.inputSchema),
        "environment": resolved_environment,
        "side_effect": side_effect,
        "annotations": {**annotations, DEFINITION_HASH_KEY: tool_definition_hash(tool)},
    }
    if tool.outputSchema is not None:
        raw["output_schema"] = copy.deepcopy(tool.outputSchema)
    return raw, problems


def _annotations_of(tool: types.Tool) -> dict[str, Any]:
    if tool.annotations is None:
        return {}
    return tool.annotations.model_dump(mode="json", exclude_none=True, by_alias=True)


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
        await asyncio.wait({task})

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

    def backends(self) -> dict[str, McpBackend]:
        """Return an executor backend per server id (``ToolExecutor(backends=...)``)."""
        backend = McpBackend(self)
        return dict.fromkeys(self.servers, backend)

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
        if kind in ("tools_changed", "restart", "started"):
            self._live_hashes.pop(server, None)
        if kind in ("died", "outcome_unknown", "restart", "restart_refused", "start_failed"):
            logger.warning("MCP server %r: %s: %s", server, kind, detail)


class McpBackend:
    """Runs catalog tools whose agent is an MCP server, through a :class:`McpSessionPool`.

    Implements :class:`stores.executor.ToolBackend`; ``spec.agent`` is the server name and
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


# ============================================================================ ingestion
@dataclass
class ServerLoadResult:
    """How one server's ingestion went."""

    server: str
    ok: bool
    tools: int = 0
    quarantined: int = 0
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    duration_s: float = 0.0


@dataclass
class McpLoadReport:
    """Per-server outcome of :func:`load_mcp_catalog`; failed servers are named with a reason."""

    source: str
    servers: dict[str, ServerLoadResult] = field(default_factory=dict)
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> dict[str, str]:
        """Return ``{server: reason}`` for every server that did not load."""
        return {
            name: result.error or "failed"
            for name, result in self.servers.items()
            if not result.ok
        }

    @property
    def loaded(self) -> list[str]:
        """Return the servers whose tools were listed."""
        return [name for name, result in self.servers.items() if result.ok]

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain data."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        lines = [f"MCP servers from {self.source}:"]
        for name, result in self.servers.items():
            if result.ok:
                extra = f", {result.quarantined} quarantined" if result.quarantined else ""
                lines.append(f"  {name}: {result.tools} tools{extra} ({result.duration_s:.1f} s)")
            else:
                lines.append(f"  {name}: FAILED: {result.error}")
            lines.extend(f"    - {problem}" for problem in result.problems)
        lines.extend(f"  {name}: disabled" for name in self.disabled)
        return "\n".join(lines)


async def _list_server(
    name: str, server_config: McpServerConfig
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """Connect, list every tool within the server's timeout, and close."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with McpSessionPool({name: server_config}, max_restarts=0) as pool:
        await pool.session(name)
        remaining = server_config.timeout - (loop.time() - started)
        if remaining <= 0:
            raise McpCallTimeout(name, "tools/list", server_config.timeout)
        tools, problems = await pool._list_all_tools(name, timeout=remaining)
        handshake = pool.initialize_result(name)
    agent: dict[str, Any] = {"id": name, "name": name, "category": "mcp",
                             "url": server_config.url or ""}
    description = server_config.description
    if handshake is not None:
        info = handshake.serverInfo
        title = getattr(info, "title", None) or info.name
        description = description or handshake.instructions or f"MCP server {title}"
        if info.version:
            description = f"{description} ({title} {info.version})"
    agent["description"] = description
    raws = []
    for tool in tools:
        raw, tool_problems = tool_to_raw(name, tool, server_config.environment)
        raws.append(raw)
        problems.extend(tool_problems)
    return agent, raws, problems


async def list_server_tools(
    name: str, server_config: McpServerConfig | Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """List one server's tools as raw catalog records.

    Args:
        name: The server's name; it qualifies every tool id as ``<name>/<tool>``.
        server_config: Its settings (an :class:`McpServerConfig` or a raw config entry).

    Returns:
        The raw tool records (for ``Catalog.add_raw_tool``) and non-fatal problems.

    Raises:
        McpServerUnavailable: the server did not start or died during the handshake.
        McpServerDied: it died while listing.
        McpCallTimeout: the listing did not finish within the server's timeout.
    """
    if isinstance(server_config, McpServerConfig):
        config = dataclasses.replace(server_config, name=name)
    else:
        config = parse_server_config(name, server_config)
    _agent, raws, problems = await _list_server(name, config)
    return raws, problems


async def load_mcp_catalog(
    config_path: str | Path | McpConfig, *, catalog: Catalog | None = None
) -> tuple[Catalog, McpLoadReport]:
    """Ingest every server of an MCP config into a catalog, concurrently.

    Each server gets one agent (id = server name, described by its handshake instructions)
    and its tools, added through ``Catalog.add_raw_tool`` with source ``mcp:<server>`` so a
    malformed tool is quarantined and the rest loads. A server that fails to start, times out
    or dies is named in the report with the reason; the other servers still load.

    Args:
        config_path: The config file (or an already loaded :class:`McpConfig`).
        catalog: A catalog to add to (default: a new one).

    Raises:
        McpConfigError: the config itself is invalid (nothing is started then).
    """
    config = config_path if isinstance(config_path, McpConfig) else load_mcp_config(config_path)
    catalog = catalog if catalog is not None else Catalog()
    report = McpLoadReport(
        source=config.source, disabled=list(config.disabled), warnings=list(config.warnings)
    )

    async def load_one(
        name: str, server_config: McpServerConfig
    ) -> tuple[ServerLoadResult, tuple[dict[str, Any], list[dict[str, Any]]] | None]:
        started = time.monotonic()
        try:
            agent, raws, problems = await _list_server(name, server_config)
        except Exception as exc:  # noqa: BLE001 - one server's failure must not stop the rest
            reason = exc.reason if isinstance(exc, McpServerUnavailable) else str(exc)
            if not isinstance(exc, McpServerUnavailable | McpServerDied | McpCallTimeout):
                reason = _describe_failure(exc)
            return ServerLoadResult(
                name, ok=False, error=reason, duration_s=time.monotonic() - started
            ), None
        result = ServerLoadResult(
            name, ok=True, problems=problems, duration_s=time.monotonic() - started
        )
        return result, (agent, raws)

    outcomes = await asyncio.gather(
        *(load_one(name, server_config) for name, server_config in config.servers.items())
    )
    # Added in config order after every server answered, so ids and call names do not
    # depend on which server happened to answer first.
    for result, loaded in outcomes:
        report.servers[result.server] = result
        if loaded is None:
            continue
        agent, raws = loaded
        source = f"mcp:{result.server}"
        catalog.load_document({"agents": [agent]}, source=source)
        for raw in raws:
            if catalog.add_raw_tool(raw, source=source) is None:
                result.quarantined += 1
            else:
                result.tools += 1
    return catalog, report


def definition_hashes(catalog: Catalog) -> dict[str, str]:
    """Return ``{tool id: definition hash}`` for MCP tools (to detect changed definitions)."""
    return {
        tool_id: str(spec.annotations[DEFINITION_HASH_KEY])
        for tool_id, spec in catalog.tools.items()
        if DEFINITION_HASH_KEY in spec.annotations
    }


__all__ = [
    "DEFINITION_HASH_KEY",
    "McpBackend",
    "McpCallTimeout",
    "McpConfig",
    "McpConfigError",
    "McpLoadReport",
    "McpProtocolError",
    "McpServerConfig",
    "McpServerDied",
    "McpServerEvent",
    "McpServerUnavailable",
    "McpSessionPool",
    "McpToolError",
    "ServerLoadResult",
    "UnknownMcpServer",
    "definition_hashes",
    "expand_variables",
    "list_server_tools",
    "load_mcp_catalog",
    "load_mcp_config",
    "parse_mcp_config",
    "parse_server_config",
    "resolve_command",
    "tool_definition_hash",
    "tool_to_raw",
]
