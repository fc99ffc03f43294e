"""Studio and LangGraph Server read the graph's input, output and context schemas on 3.11."""

from __future__ import annotations

from graph.builder import build_graph
from graph.deps import Deps


def test_input_output_and_context_schemas_generate() -> None:
    graph = build_graph(Deps()).compile()
    assert {"request", "messages"} <= set(graph.get_input_jsonschema()["properties"])
    output = graph.get_output_jsonschema()["properties"]
    assert {"answer", "plan", "results", "token_ledger", "gaps"} <= set(output)
    context = graph.get_context_jsonschema()["properties"]
    assert {"top_k", "planner", "max_model_turns", "environments"} <= set(context)
