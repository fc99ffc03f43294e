"""zspace's retrieval for other agents: a ``retrieve_tools`` LangChain tool and bigtool hooks.

langgraph-bigtool's convention: the agent gets one tool, ``retrieve_tools(query) ->
list[ToolId]``, and binds the tools whose ids come back from a ``tool_registry`` mapping id →
tool. zspace's hybrid ranking (dense + BM25 over tools *and* their owner agents, environment
allow-list) drops in::

    from langgraph_bigtool import create_agent
    from graph.tools import make_retrieve_tools, tool_registry

    retrieve, aretrieve = make_retrieve_tools(deps.get_index(), k=5)
    agent = create_agent(llm, tool_registry(catalog), retrieve_tools_function=retrieve,
                         retrieve_tools_coroutine=aretrieve).compile()

Or give any tool-calling agent :func:`retrieve_tools_tool` (a ``StructuredTool`` named
``retrieve_tools``). :func:`search_tools` is the one tool search behind all of them, and
behind ``zspace search`` and the MCP server's ``search_tools``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stores.catalog.model import Catalog
from stores.language.keywords import extract_keywords
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, RetrievalResult, retrieve

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool

ToolId = str
DEFAULT_K = 5


@dataclass
class ToolSearch:
    """One search: the query, the keywords read from it, and the ranked tools and agents."""

    query: str
    keywords: list[str]
    result: RetrievalResult


def search_tools(
    index: ToolIndex,
    query: str,
    *,
    k: int = DEFAULT_K,
    environments: Sequence[str] | None = None,
    config: RetrievalConfig | None = None,
) -> ToolSearch:
    """Rank the ``k`` best tools and agents for ``query`` with zspace's ranking.

    Args:
        index: the joint tool + agent index.
        query: one step of a task in plain language.
        k: how many tools and how many agents.
        environments: allow-list; tools tagged with another environment never come back.
        config: the ranking method (default: the measured best).
    """
    keywords = extract_keywords(query)
    result = retrieve(
        index,
        query,
        keywords,
        k_tools=k,
        k_agents=k,
        config=config or RetrievalConfig(),
        environments=environments,
    )
    return ToolSearch(query=query, keywords=keywords, result=result)


def search_tool_ids(
    index: ToolIndex,
    query: str,
    *,
    k: int = DEFAULT_K,
    environments: Sequence[str] | None = None,
    config: RetrievalConfig | None = None,
) -> list[ToolId]:
    """The ids of the ``k`` best tools for ``query`` (zspace's ranking), best first."""
    found = search_tools(index, query, k=k, environments=environments, config=config)
    return [tool.tool_id for tool in found.result.tools]


def describe_tools(tool_ids: Sequence[ToolId], catalog: Catalog | None) -> list[dict[str, Any]]:
    """``{"tool_id", "name", "agent", "description"}`` per id (description empty if unknown)."""
    described = []
    for tool_id in tool_ids:
        spec = catalog.tools.get(tool_id) if catalog is not None else None
        described.append(
            {
                "tool_id": tool_id,
                "name": spec.call_name if spec else tool_id,
                "agent": spec.agent if spec else tool_id.split("/", 1)[0],
                "description": (spec.summary or spec.description)[:300] if spec else "",
            }
        )
    return described


def make_retrieve_tools(
    index: ToolIndex | Callable[[], ToolIndex],
    *,
    k: int = DEFAULT_K,
    environments: Sequence[str] | None = None,
    config: RetrievalConfig | None = None,
) -> tuple[Callable[[str], list[ToolId]], Callable[[str], Awaitable[list[ToolId]]]]:
    """The ``retrieve_tools_function`` and ``retrieve_tools_coroutine`` of langgraph-bigtool.

    Args:
        index: the tool index, or a factory (e.g. ``deps.get_index``) called on first use.
        k: how many tool ids to return.
        environments: allow-list; tools tagged with another environment never come back.
        config: the ranking method (default: the measured best).
    """

    def resolve() -> ToolIndex:
        return index if isinstance(index, ToolIndex) else index()

    def retrieve_tools(query: str) -> list[ToolId]:
        """Retrieve tools to use, given a search query: their ids, best first."""
        return search_tool_ids(resolve(), query, k=k, environments=environments, config=config)

    async def aretrieve_tools(query: str) -> list[ToolId]:
        """Retrieve tools to use, given a search query: their ids, best first."""
        return await asyncio.to_thread(retrieve_tools, query)

    return retrieve_tools, aretrieve_tools


def retrieve_tools_tool(
    index: ToolIndex | Callable[[], ToolIndex],
    catalog: Catalog | Callable[[], Catalog] | None = None,
    *,
    k: int = DEFAULT_K,
    environments: Sequence[str] | None = None,
    config: RetrievalConfig | None = None,
) -> BaseTool:
    """A LangChain tool ``retrieve_tools(query)``: the ids of the best tools for a query.

    The tool's content is the list of ids (bigtool's convention); its artifact lists each
    tool's name, owner agent and description when a catalog is given.
    """
    from langchain_core.tools import StructuredTool

    sync_fn, async_fn = make_retrieve_tools(
        index, k=k, environments=environments, config=config
    )

    def the_catalog() -> Catalog | None:
        return catalog() if callable(catalog) else catalog

    def run(query: str) -> tuple[list[ToolId], list[dict[str, Any]]]:
        ids = sync_fn(query)
        return ids, describe_tools(ids, the_catalog())

    async def arun(query: str) -> tuple[list[ToolId], list[dict[str, Any]]]:
        ids = await async_fn(query)
        return ids, describe_tools(ids, the_catalog())

    return StructuredTool.from_function(
        func=run,
        coroutine=arun,
        name="retrieve_tools",
        description=(
            "Retrieve tools to use, given a search query describing one step of the task. "
            f"Returns the ids of the {k} most relevant tools, best first."
        ),
        response_format="content_and_artifact",
    )


def tool_registry(catalog: Catalog) -> dict[ToolId, BaseTool]:
    """The ``tool_registry`` of langgraph-bigtool: tool id → LangChain tool, in-process ones.

    Covers tools with a Python implementation (``Catalog.register_function`` or LangChain
    tools); MCP tools are reached through ``langchain-mcp-adapters`` instead.
    """
    from langchain_core.tools import BaseTool, StructuredTool

    registry: dict[ToolId, BaseTool] = {}
    for tool_id, implementation in catalog.implementations.items():
        spec = catalog.tools.get(tool_id)
        if spec is None:
            continue
        if isinstance(implementation, BaseTool):
            registry[tool_id] = implementation
            continue
        kwargs: dict[str, Any] = {
            "name": spec.call_name,
            "description": spec.description or spec.summary or spec.name,
            "args_schema": spec.input_schema,
        }
        if asyncio.iscoroutinefunction(implementation):
            kwargs["coroutine"] = implementation
        else:
            kwargs["func"] = implementation
        registry[tool_id] = StructuredTool.from_function(**kwargs)
    return registry
