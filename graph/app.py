"""The LangGraph Studio / ``langgraph dev`` entry: compiled without a checkpointer, no I/O.

The server brings its own checkpointer. Tools are called over the MCP config that
``zspace index --mcp`` last used under ``ZSPACE_HOME`` (sessions open at the first call).
"""

from __future__ import annotations

from graph.builder import build_graph
from graph.runtime import server_deps

graph = build_graph(server_deps()).compile(name="zspace")
