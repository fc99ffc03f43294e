"""Typed errors of the sandbox backend; each message says what went wrong and what to do.

The MCP layer turns any of them into a tool result with `isError: true` and the message.
"""


class SandboxError(Exception):
    """Base class of every error a sandbox tool reports to its caller."""


class NotFoundError(SandboxError):
    """An id or account number names no row."""


class InvalidArgumentError(SandboxError):
    """An argument is well-typed but unusable (no stock, coupon below minimum spend, ...)."""


class InvalidTransitionError(SandboxError):
    """A status change that the entity's status machine does not allow."""


class IdempotencyConflictError(SandboxError):
    """An idempotency key was reused with other arguments or by another tool."""
