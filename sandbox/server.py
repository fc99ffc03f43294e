"""The MCP face of the sandbox: every `@tool` method of `Sandbox` as a FastMCP tool.

Input schemas come from the methods' signatures, output schemas (and `structuredContent`) from
their TypedDict return types, descriptions from their docstrings. Each tool carries MCP
annotations and `_meta = {"zspace": {"environment": "test", "side_effect": ...}}`.
"""

from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.tools import Tool
from mcp.types import ToolAnnotations

from sandbox.backend import (
    Sandbox,
    ToolInfo,
    tool_argument_docs,
    tool_description,
    tool_methods,
)

SERVER_NAME = "sandbox"
ENVIRONMENT = "test"
INSTRUCTIONS = (
    "Test-data platform for an e-commerce and local-delivery business: users and accounts, "
    "shops, products and SKUs, inventory, carts, orders, payments, coupons, deliveries and "
    "riders, reviews, refunds and memberships. Writes only to the test environment; every "
    "writing tool accepts an idempotency_key."
)


def tool_meta(info: ToolInfo) -> dict[str, Any]:
    """Return the `_meta` object of a tool.

    Args:
        info: The tool's registration info.

    Returns:
        `{"zspace": {"environment": "test", "side_effect": ...}}`.
    """
    return {"zspace": {"environment": ENVIRONMENT, "side_effect": info.side_effect}}


def tool_annotations(info: ToolInfo) -> ToolAnnotations:
    """Return the MCP behaviour hints of a tool.

    Args:
        info: The tool's registration info.

    Returns:
        Title, read-only, destructive, idempotent and open-world hints.
    """
    return ToolAnnotations(
        title=info.name.replace("_", " ").capitalize(),
        readOnlyHint=not info.side_effect,
        destructiveHint=info.destructive,
        idempotentHint=info.idempotent,
        openWorldHint=False,
    )


def build_tools(sandbox: Sandbox) -> list[Tool]:
    """Return the FastMCP tool of every `@tool` method, bound to one backend.

    Arguments whose type carries no description get the one from the method's docstring.

    Args:
        sandbox: The backend the tools call.

    Returns:
        The tools, in definition order.
    """
    tools = []
    for info, method in tool_methods():
        registered = Tool.from_function(
            getattr(sandbox, info.name),
            name=info.name,
            title=info.name.replace("_", " ").capitalize(),
            description=tool_description(method),
            annotations=tool_annotations(info),
            meta=tool_meta(info),
            structured_output=True,
        )
        properties = registered.parameters.get("properties", {})
        for argument, text in tool_argument_docs(method).items():
            if argument in properties and "description" not in properties[argument]:
                properties[argument]["description"] = text
        tools.append(registered)
    return tools


def build_server(sandbox: Sandbox, *, host: str = "127.0.0.1", port: int = 8000) -> FastMCP[Any]:
    """Build the FastMCP server exposing every sandbox tool; nothing is opened or bound yet.

    Args:
        sandbox: The backend the tools call.
        host: Interface for the streamable HTTP transport.
        port: Port for the streamable HTTP transport.

    Returns:
        The server; run it with `run("stdio")` or `run("streamable-http")`.
    """
    return FastMCP(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        tools=build_tools(sandbox),
        host=host,
        port=port,
        log_level="WARNING",
    )
