"""Errors of MCP servers and their tools, each saying what went wrong and what to do."""


from __future__ import annotations

from typing import Literal

from mcp.shared.exceptions import McpError

from stores.errors import ToolReportedError

McpTransport = Literal["stdio", "streamable_http", "sse"]



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

    A :class:`~stores.errors.ToolReportedError`, so the executor treats it as permanent
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




