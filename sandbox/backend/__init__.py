"""The sandbox backend package; `from sandbox.backend import Sandbox` is its public face."""

from sandbox.backend.sandbox import (
    ACTIVE_DELIVERY_STATUSES,
    DEFAULT_CITY,
    DEFAULT_DELIVERY_FEE,
    DELIVERY_TRANSITIONS,
    ORDER_TRANSITIONS,
    TOOL_ATTRIBUTE,
    Sandbox,
    ToolInfo,
    tool,
    tool_argument_docs,
    tool_description,
    tool_methods,
)

__all__ = [
    "ACTIVE_DELIVERY_STATUSES",
    "DEFAULT_CITY",
    "DEFAULT_DELIVERY_FEE",
    "DELIVERY_TRANSITIONS",
    "ORDER_TRANSITIONS",
    "TOOL_ATTRIBUTE",
    "Sandbox",
    "ToolInfo",
    "tool",
    "tool_argument_docs",
    "tool_description",
    "tool_methods",
]
