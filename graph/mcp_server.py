"""``zspace mcp``: zspace itself as an MCP server (stdio), for agents that speak MCP.

Tools:

- ``search_tools(query, k=5)`` — zspace's ranking over the indexed tools: id, owner agent,
  score and description of the best ``k``.
- ``run_request(request, run_id=None, thread_id=None, approve=False, output_format="md")`` —
  the whole pipeline on one request; returns the answer, or the question it waits on.
- ``resume_run(thread_id, answer)`` — answer that question (a value, or yes/no for approvals).

It serves the index and catalog under ``ZSPACE_HOME`` (what ``zspace index`` wrote), calls
tools over the MCP config that was indexed, and checkpoints to SQLite under the home (or
Postgres with ``ZSPACE_POSTGRES_URL``). Register it in an MCP client config as::

    {"mcpServers": {"zspace": {"command": "zspace", "args": ["mcp"],
                               "env": {"ZSPACE_HOME": "/path/to/home"}}}}
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, redirect_stdout
from typing import Any, Literal

from graph.deps import Deps
from graph.runtime import saved_mcp_config
from graph.session import Session, open_session
from graph.streaming import RunOutcome
from graph.tools import describe_tools
from graph.tools import search_tools as rank_tools
from nodes.context import Context
from stores.settings import apply_offline_environment

INSTRUCTIONS = (
    "zspace finds the few right tools among thousands and runs them in dependency order. "
    "Use search_tools to see which tools fit a step; use run_request to have zspace plan and "
    "execute a whole request. When run_request answers status 'waiting for input', call "
    "resume_run with the thread_id and the answer to its question. Status 'partial' or "
    "'failed' means part or all of the request was not done: 'gaps' says what and why."
)


def outcome_payload(outcome: RunOutcome) -> dict[str, Any]:
    """The JSON answer of ``run_request`` / ``resume_run``."""
    values = outcome.values
    calls = [
        {
            "call_id": result.get("call_id"),
            "tool_id": result.get("tool_id"),
            "status": result.get("status"),
            "error": result.get("error"),
            "replayed": result.get("replayed", False),
        }
        for result in (values.get("results") or {}).values()
    ]
    payload: dict[str, Any] = {
        "thread_id": outcome.thread_id,
        "run_id": values.get("run_id"),
        "status": outcome.status,
        "answer": values.get("answer", "") if outcome.interrupt is None else "",
        "calls": calls,
        "gaps": list(values.get("gaps") or []),
    }
    if outcome.interrupt is not None:
        payload["question"] = outcome.interrupt.get("question")
        payload["interrupt"] = outcome.interrupt
    elif not outcome.ran:
        payload["note"] = "nothing to resume: the thread is done"
    return payload


def build_server(deps: Deps | None = None) -> Any:
    """The FastMCP server over one ``Deps`` (index and embedder loaded once, on first use)."""
    from mcp.server.fastmcp import FastMCP

    apply_offline_environment()
    deps = deps or Deps()

    @asynccontextmanager
    async def live_tools(_server: Any) -> AsyncIterator[None]:
        # While zspace serves, the indexed MCP servers stay connected and their tool
        # changes reach the catalog and the index (graph.live).
        config = saved_mcp_config(deps.get_home(), deps.index_name)
        if config is None:
            yield None
            return
        from graph.live import LiveMcpSync

        async with LiveMcpSync(deps, config):
            yield None

    server = FastMCP("zspace", instructions=INSTRUCTIONS, lifespan=live_tools)

    async def invoke(drive: Callable[[Session], Awaitable[RunOutcome]]) -> dict[str, Any]:
        # Progress lines are dropped (stdout is the MCP channel); a second request driving
        # the same thread or run id is refused by the session before anything runs.
        with redirect_stdout(sys.stderr):
            mcp_config = saved_mcp_config(deps.get_home(), deps.index_name)
            async with open_session(deps, mcp_config, entry="mcp") as session:
                outcome = await drive(session)
        return outcome_payload(outcome)

    @server.tool()
    def search_tools(
        query: str, k: int = 5, environment: str | None = None
    ) -> list[dict[str, Any]]:
        """Rank the indexed tools for a query; returns the best k with their descriptions.

        Args:
            query: one step of a task in plain language, e.g. "place an order".
            k: how many tools (1-50).
            environment: only tools of this environment (e.g. "test"); default: any.
        """
        with redirect_stdout(sys.stderr):
            result = rank_tools(
                deps.get_index(),
                query,
                k=max(1, min(int(k), 50)),
                environments=[environment] if environment else None,
            ).result
            described = describe_tools([t.tool_id for t in result.tools], deps.get_catalog())
        for row, ranked in zip(described, result.tools, strict=True):
            row["score"] = round(ranked.score, 6)
        return described

    @server.tool()
    async def run_request(
        request: str,
        run_id: str | None = None,
        thread_id: str | None = None,
        approve: bool = False,
        output_format: Literal["md", "json", "text"] = "md",
    ) -> dict[str, Any]:
        """Run a request through zspace: parse, retrieve, plan, call the tools, answer.

        Args:
            request: what to do, in plain language.
            run_id: idempotency scope; the same run id never repeats a recorded effect.
            thread_id: continue this conversation (follow-ups like "cancel that order").
            approve: pre-approve destructive calls (cancel, delete, refund...).
            output_format: md (a table), json or text.
        """
        context = Context(run_id=run_id or "", pre_approved=approve, output_format=output_format)
        return await invoke(lambda session: session.run(request, context, thread_id))

    @server.tool()
    async def resume_run(thread_id: str, answer: str) -> dict[str, Any]:
        """Answer the question a run is waiting on (a value; yes/no for an approval).

        Args:
            thread_id: the thread_id run_request returned.
            answer: the missing value; yes / no for an approval; done / retry / skip when
                it asks what happened to a call whose outcome is unknown.

        A thread that is not waiting goes on from its last checkpoint (the answer is not
        used); an unknown thread, or one another request is driving, is an error.
        """
        return await invoke(lambda session: session.resume(thread_id, Context(), answer))

    return server


def main() -> int:
    """Serve over stdio until the client disconnects."""
    build_server().run("stdio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
