"""The only place that wires the zspace StateGraph.

```
START → parse_intent → normalize → retrieve → plan ─┬─ clarify (interrupt) → plan
                                      ↑             ├─ retrieve again (bounded)
                                      │             ├─ execute ⟲ call_tool (Send fan-out, one
                                      │             │  wave per pass) ⇄ approve (interrupt)
                                      │             │  ⇄ reconcile (interrupt: unknown outcome)
                                      │             └─ check_alignment (nothing to run)
                                      └── compensatory retry ── check_alignment → synthesize → END
```

The alignment check runs before synthesis so the answer can state the gaps it finds.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.graph import END, START, StateGraph

from graph.deps import Deps, LazyLexicon
from graph.routes import route_after_alignment, route_after_parse, route_after_plan, route_wave
from nodes.align import check_alignment
from nodes.approve import approve
from nodes.clarify import clarify
from nodes.context import Context
from nodes.execute import call_tool, execute
from nodes.intent import parse_intent
from nodes.normalize import normalize
from nodes.plan import plan
from nodes.planning.rules import RulePlanner
from nodes.reconcile import reconcile
from nodes.retrieve import retrieve
from nodes.state import InputState, OutputState, ZState
from nodes.synthesize import synthesize


def build_graph(deps: Deps | None = None) -> StateGraph[ZState, Context, InputState, OutputState]:
    """Return the uncompiled zspace graph; compile it with your own checkpointer.

    Args:
        deps: collaborators (chat model, index, catalog, executor backends); lazy defaults.
    """
    deps = deps or Deps()

    # The lexicon file is read on first use, not when the graph is built (Studio imports the
    # entry module, which must do no I/O).
    lexicon: Any = LazyLexicon(deps)

    def planner_factory(context: Context) -> RulePlanner:
        return RulePlanner(
            deps.get_catalog(),
            deps.get_dependency_graph(),
            deps.get_lexicon(),
            context,
            embedder=deps.get_embedder(),
        )

    builder = StateGraph(
        ZState, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node(
        "parse_intent",
        partial(  # type: ignore[call-overload]
            parse_intent, chat_model_factory=deps.chat_model_for, lexicon=lexicon
        ),
    )
    builder.add_node("normalize", partial(normalize, lexicon=lexicon))  # type: ignore[call-overload]
    builder.add_node(
        "retrieve",
        partial(  # type: ignore[call-overload]
            retrieve,
            index_factory=deps.get_index,
            catalog_factory=deps.get_catalog,
            lexicon=lexicon,
        ),
    )
    builder.add_node(
        "plan",
        partial(  # type: ignore[call-overload]
            plan,
            planner_factory=planner_factory,
            chat_model_factory=deps.chat_model_for,
            catalog_factory=deps.get_catalog,
            index_factory=deps.get_index,
        ),
    )
    builder.add_node("clarify", clarify)
    builder.add_node(
        "execute",
        partial(execute, catalog_factory=deps.get_catalog),  # type: ignore[call-overload]
    )
    builder.add_node(
        "approve",
        partial(approve, catalog_factory=deps.get_catalog),  # type: ignore[call-overload]
    )
    builder.add_node(
        "reconcile",
        partial(reconcile, executor_factory=deps.make_executor),  # type: ignore[call-overload]
    )
    builder.add_node(
        "call_tool",
        partial(  # type: ignore[call-overload]
            call_tool, executor_factory=deps.make_executor, graph_factory=deps.get_dependency_graph
        ),
    )
    builder.add_node("check_alignment", check_alignment)
    builder.add_node(
        "synthesize",
        partial(  # type: ignore[call-overload]
            synthesize, chat_model_factory=deps.chat_model_for
        ),
    )

    builder.add_edge(START, "parse_intent")
    builder.add_conditional_edges("parse_intent", route_after_parse)
    builder.add_edge("normalize", "retrieve")
    builder.add_edge("retrieve", "plan")
    builder.add_conditional_edges("plan", route_after_plan)
    builder.add_edge("clarify", "plan")
    builder.add_conditional_edges(
        "execute", route_wave,
        ["call_tool", "approve", "reconcile", "plan", "clarify", "check_alignment"],
    )
    builder.add_edge("call_tool", "execute")
    builder.add_edge("approve", "execute")
    builder.add_edge("reconcile", "execute")
    builder.add_conditional_edges("check_alignment", route_after_alignment)
    builder.add_edge("synthesize", END)
    return builder
