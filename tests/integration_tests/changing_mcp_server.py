"""An MCP server (stdio, FastMCP) whose tools change while a client is connected.

It starts with ``lookup_word``; calling ``add_converter(name)`` adds a tool ``name`` (which converts a
temperature in Celsius to Fahrenheit) and sends ``notifications/tools/list_changed``;
``remove_converter(name)`` removes it again and says so too. Run it with
``python -m tests.integration_tests.changing_mcp_server``.
"""

from __future__ import annotations

from mcp.server.fastmcp import Context, FastMCP

server = FastMCP("changing")


@server.tool()
def lookup_word(word: str) -> str:
    """Look up the meaning of an English word in the dictionary."""
    return f"{word}: a word"


def _celsius_to_fahrenheit(celsius: float) -> dict[str, float]:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit."""
    return {"fahrenheit": celsius * 9 / 5 + 32}


@server.tool()
async def add_converter(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Add a temperature converter tool with this name."""
    server.add_tool(_celsius_to_fahrenheit, name=name,
                    description="Get the Fahrenheit temperature for a temperature in degrees Celsius.")
    await ctx.session.send_tool_list_changed()
    return f"added {name}"


@server.tool()
async def remove_converter(name: str, ctx: Context) -> str:  # type: ignore[type-arg]
    """Remove a temperature converter tool with this name."""
    server.remove_tool(name)
    await ctx.session.send_tool_list_changed()
    return f"removed {name}"


if __name__ == "__main__":
    server.run("stdio")
