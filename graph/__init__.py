"""zspace's public API: build the graph, embed it, run it, stream it.

Embed the graph in your own LangGraph application::

    from graph import Context, Deps, build_graph

    zspace = build_graph(Deps(catalog=my_catalog, index=my_index)).compile()
    parent.add_node("tools", zspace)  # or compile it with your checkpointer and invoke it

With MCP servers: ``await index_mcp_servers(deps, "mcp.json")`` once, then run the graph
inside ``async with mcp_sessions(deps, "mcp.json"):`` (the README shows it whole).

The distribution is named ``zspace`` but its import packages are the top-level ``graph``,
``nodes`` and ``stores`` (and ``sandbox``): an application with its own top-level module of
one of those names shadows them (see the README), in which case talk to a running server
through LangGraph's ``RemoteGraph`` instead.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graph.builder import build_graph
    from graph.deps import Deps
    from graph.events import ZspaceEvent, describe_event
    from graph.runtime import index_mcp_servers, mcp_sessions, open_runtime
    from graph.streaming import run_config, run_until_done, stream_run
    from graph.tools import make_retrieve_tools, retrieve_tools_tool, tool_registry
    from nodes.context import Context
    from nodes.state import InputState, OutputState, ZState

# Imported on first use, so a command that needs a little (``zspace search``) does not pay
# for LangGraph and the whole graph at start-up.
_HOMES = {
    "build_graph": "graph.builder",
    "Deps": "graph.deps",
    "ZspaceEvent": "graph.events",
    "describe_event": "graph.events",
    "open_runtime": "graph.runtime",
    "index_mcp_servers": "graph.runtime",
    "mcp_sessions": "graph.runtime",
    "run_config": "graph.streaming",
    "run_until_done": "graph.streaming",
    "stream_run": "graph.streaming",
    "make_retrieve_tools": "graph.tools",
    "retrieve_tools_tool": "graph.tools",
    "tool_registry": "graph.tools",
    "Context": "nodes.context",
    "InputState": "nodes.state",
    "OutputState": "nodes.state",
    "ZState": "nodes.state",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'graph' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)

__all__ = [
    "Context",
    "Deps",
    "InputState",
    "OutputState",
    "ZState",
    "ZspaceEvent",
    "build_graph",
    "describe_event",
    "index_mcp_servers",
    "make_retrieve_tools",
    "mcp_sessions",
    "open_runtime",
    "retrieve_tools_tool",
    "run_config",
    "run_until_done",
    "stream_run",
    "tool_registry",
]
