"""The sandbox backend: one method per tool over a SQLite database, usable without MCP.

Every public method marked with `@tool` is a tool. The decorator runs the method in one
transaction (`BEGIN IMMEDIATE` for writers, a read snapshot for readers) and, for writers,
implements idempotency keys: the same key with the same arguments replays the stored result,
the same key with other arguments is an `IdempotencyConflictError`. The MCP layer
(`sandbox.server`) exposes these methods unchanged, so their signatures, docstrings and return
types are the tools' contracts.

Layout: `core` (the `tool` decorator, connection, transactions, clock, idempotency), `records`
(row helpers), `lifecycle` (the status machines: orders, deliveries, refunds, payments), `rules`
(the steps several tools share), one module per domain
(`users` ... `memberships`) holding that domain's tools, and `sandbox`, which composes them
into `Sandbox`. Import from `sandbox.backend`, not from the modules.
"""

from sandbox.backend.core import (
    TOOL_ATTRIBUTE,
    ToolInfo,
    tool,
    tool_argument_docs,
    tool_description,
)
from sandbox.backend.lifecycle import (
    ACTIVE_DELIVERY_STATUSES,
    DELIVERY_TRANSITIONS,
    ORDER_TRANSITIONS,
    REFUND_TRANSITIONS,
)
from sandbox.backend.rules import DEFAULT_CITY, DEFAULT_DELIVERY_FEE
from sandbox.backend.sandbox import Sandbox, tool_methods

__all__ = [
    "ACTIVE_DELIVERY_STATUSES",
    "DEFAULT_CITY",
    "DEFAULT_DELIVERY_FEE",
    "DELIVERY_TRANSITIONS",
    "ORDER_TRANSITIONS",
    "REFUND_TRANSITIONS",
    "TOOL_ATTRIBUTE",
    "Sandbox",
    "ToolInfo",
    "tool",
    "tool_argument_docs",
    "tool_description",
    "tool_methods",
]
