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

from graph.builder import build_graph
from graph.deps import Deps
from graph.events import ZspaceEvent, describe_event
from graph.runtime import index_mcp_servers, mcp_sessions, open_runtime
from graph.streaming import run_config, run_until_done, stream_run
from graph.tools import make_retrieve_tools, retrieve_tools_tool, tool_registry
from nodes.context import Context
from nodes.state import InputState, OutputState, ZState

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
