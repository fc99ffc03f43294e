"""The LangGraph Studio / ``langgraph dev`` entry: compiled without a checkpointer, no I/O."""

from __future__ import annotations

from graph.builder import build_graph

graph = build_graph().compile(name="zspace")
