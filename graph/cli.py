"""The ``zspace`` command: index, search, run, resume, threads, mcp, demo, eval."""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graph.deps import Deps, configured_index_name
from graph.indexing import (  # noqa: F401 - EXIT_INDEX_PARTIAL is part of the CLI's codes
    EXIT_INDEX_PARTIAL,
    command_index,
    progress_bar,
    saved_mcp_config,
)
from stores.catalog.model import CatalogError
from stores.retrieval.embeddings import EmbeddingModelMissing
from stores.settings import SettingError, apply_offline_environment, zspace_home

if TYPE_CHECKING:
    from graph.streaming import RunOutcome

# The graph, LangGraph and the MCP client are imported by the commands that run the graph:
# `zspace search` and `zspace index` start without them.

REPO_ROOT = Path(__file__).resolve().parents[1]
DEV_CATALOG = REPO_ROOT / "bench" / "data" / "stabletoolbench" / "catalog.json"


def command_search(args: argparse.Namespace) -> int:
    """Rank tools and their owners for a query."""
    from graph.tools import search_tools

    deps = Deps(index_name=configured_index_name(args.name))
    index = deps.get_index()
    if len(index) == 0:
        print("the index is empty: run `zspace index CATALOG` first", file=sys.stderr)
        return 2
    found = search_tools(index, args.query, k=args.k, environments=args.env or None)
    keywords, result = found.keywords, found.result
    if args.json:
        print(
            json.dumps(
                {
                    "query": args.query,
                    "keywords": keywords,
                    "tools": [t.__dict__ for t in result.tools],
                    "agents": [a.__dict__ for a in result.agents],
                },
                ensure_ascii=False,
            )
        )
        return 0
    print(f"query: {args.query}\nkeywords: {', '.join(keywords)}\n")
    print("rank  score   tool  (owner)")
    for rank, tool in enumerate(result.tools, start=1):
        print(f"{rank:>4}  {tool.score:.4f}  {tool.tool_id}  ({tool.agent})")
    print("\nrank  agent")
    for rank, agent in enumerate(result.agents, start=1):
        print(f"{rank:>4}  {agent.agent}")
    print(f"\n({result.embed_ms + result.search_ms:.1f} ms)")
    return 0


DEMO_REQUEST = (
    "create a test product, place an order using account 123456, and advance the order "
    "status to pending payment"
)
SANDBOX_MCP = REPO_ROOT / "sandbox" / "data" / "mcp.json"
NEAR_MISSES = REPO_ROOT / "sandbox" / "data" / "near_misses.json"


def _sandbox(*args: str) -> str:
    """Run the sandbox's own CLI (zspace reaches the sandbox only as a separate system)."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "sandbox", *args], capture_output=True,
                          text=True, check=True)
    return done.stdout


def command_demo(args: argparse.Namespace) -> int:
    """The main job on the embedded default: sandbox over MCP, index, run, run again."""
    import tempfile
    import uuid

    for path in (DEV_CATALOG, SANDBOX_MCP, NEAR_MISSES):
        if not path.is_file():
            print(f"missing demo input: {path}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    home = zspace_home()
    print(f"== 1/5 sandbox: fresh test-data database at {home / 'sandbox.db'}")
    _sandbox("reset")
    print("\n== 2/5 index: StableToolBench's 2,490 real tools + near misses + the sandbox's "
          "tools listed live over MCP")
    command_index(argparse.Namespace(catalog=[str(DEV_CATALOG), str(NEAR_MISSES)],
                                     mcp=str(SANDBOX_MCP), reset=False, json=False,
                                     name=None))
    run_id = f"demo-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as scratch:
        marks = Path(scratch) / "before.json"
        _sandbox("rows", "--snapshot", str(marks))
        print(f"\n== 3/5 run ({time.perf_counter() - started:.1f} s so far): {args.request}")
        status = command_run(_run_args(args.request, run_id))
        print("\n== 4/5 rows this run created in the sandbox")
        created = _sandbox("rows", "--since", str(marks))
        print(created.rstrip() or "  (none)")
        _sandbox("rows", "--snapshot", str(marks))
        print(f"\n== 5/5 the same request again with the same run id ({run_id}) on a new "
              "thread: recorded effects are replayed, not repeated")
        command_run(_run_args(args.request, run_id))
        again = _sandbox("rows", "--since", str(marks)).strip()
        print("\nrows created by the second run: " + ("none" if not again else "\n" + again))
    print(f"\ndemo finished in {time.perf_counter() - started:.1f} s")
    return status if not again else 1


def _run_args(request: str, run_id: str) -> argparse.Namespace:
    return argparse.Namespace(
        request=request, thread=None, run_id=run_id, format="md", env=None, mcp=None,
        yes=False, model=None, base_url=None, postgres=None, json=False, name=None,
    )


def _evaluation_available() -> bool:
    """Make ``bench.evaluation`` importable from a source checkout; say so when it is not.

    The evaluation harnesses are development code (``bench/`` is not part of the installed
    distribution): ``zspace eval`` runs from a clone of the repository.
    """
    try:
        import bench.evaluation  # noqa: F401
    except ImportError:
        if not (REPO_ROOT / "bench" / "evaluation").is_dir():
            print(
                "zspace eval needs a source checkout of zspace (bench/evaluation/ is not "
                "installed with the package): run it from a clone of the repository",
                file=sys.stderr,
            )
            return False
        sys.path.insert(0, str(REPO_ROOT))
    return True


def command_eval_e2e(args: argparse.Namespace) -> int:
    """Run a request set end to end against the sandbox (``bench.evaluation.e2e``)."""
    if not _evaluation_available():
        return 2
    from bench.evaluation.e2e import command_eval_e2e as run_e2e

    return run_e2e(args)


def command_eval_bfcl(args: argparse.Namespace) -> int:
    """Run BFCL categories through zspace (``bench.evaluation.bfcl``)."""
    if not _evaluation_available():
        return 2
    from bench.evaluation.bfcl import command_eval_bfcl as run_bfcl

    return run_bfcl(args)


def command_eval_retrieval(args: argparse.Namespace) -> int:
    """Score a retrieval method on a benchmark in the two-file format."""
    if not _evaluation_available():
        return 2
    from bench.evaluation.retrieval import evaluate, load_queries, method_presets, open_eval_index

    presets = method_presets()
    if args.method not in presets:
        print(
            f"unknown method {args.method!r}; choose one of: {', '.join(presets)}", file=sys.stderr
        )
        return 2
    preset = presets[args.method]
    ks = [int(k) for k in args.k.split(",")]
    deps = Deps()
    queries = load_queries(Path(args.queries), args.mode)
    if not queries:
        print(f"no {args.mode}-mode queries with gold in {args.queries}", file=sys.stderr)
        return 2
    index = open_eval_index(
        Path(args.catalog),
        deps.get_embedder(),
        deps.get_home() / "eval",
        preset.index_fsww,
        progress=None if args.json else progress_bar("indexing"),
    )
    figures, run = evaluate(index, queries, preset.config, ks, environments=args.env or None)
    if args.run_out:
        with open(args.run_out, "w", encoding="utf-8") as handle:
            for row in run:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"method {preset.name}: {preset.label}; {figures['queries']} {args.mode}-mode queries")
    print(f"{'':8}" + "".join(f"{f'{m}@{k}':>11}" for m in ("recall", "map", "ndcg") for k in ks))
    for target in ("agents", "tools"):
        table = figures[target]
        print(
            f"{target:8}"
            + "".join(f"{table[m][k]:>11.4f}" for m in ("recall", "map", "ndcg") for k in ks)
        )
    latency = figures["latency_ms"]
    print(f"latency per query: p50 {latency['p50']:.1f} ms, p95 {latency['p95']:.1f} ms")
    if args.json:
        print(json.dumps({"method": preset.name, "mode": args.mode, **figures}))
    return 0


def _context(args: argparse.Namespace) -> Any:
    from nodes.context import Context

    return Context(
        output_format=args.format,
        environments=args.env or ["test"],
        run_id=getattr(args, "run_id", None) or "",
        pre_approved=args.yes,
        model=args.model or "",
        base_url=args.base_url or "",
    )


def _resume_hint(interrupt: dict[str, Any]) -> str:
    """The ``zspace resume`` options that answer this kind of question."""
    kind = interrupt.get("type")
    if kind == "approval":
        return "--approve or --reject"
    if kind == "reconcile":
        return "--answer done|retry|skip"
    return "--answer VALUE"


def _report(outcome: RunOutcome, deps: Deps, args: argparse.Namespace) -> int:
    """Print how a run ended; exit 0 done, 1 done with gaps, 3 waiting for an answer."""
    values = outcome.values
    if outcome.interrupt is not None:
        print(
            f"waiting for an answer: {outcome.interrupt.get('question')}\n"
            f"resume with: zspace resume {outcome.thread_id} {_resume_hint(outcome.interrupt)}"
        )
        if args.json:
            print(
                json.dumps(
                    {"thread_id": outcome.thread_id, "status": outcome.status,
                     "interrupt": outcome.interrupt},
                    default=str,
                )
            )
        return 3
    ledger = values.get("token_ledger") or {}
    if not args.json:
        print("\n" + str(values.get("answer", "")))
        if ledger:
            print(
                f"\ntool context: {ledger['candidate_tokens']} tokens vs "
                f"{ledger['all_injection_tokens']} for all {len(deps.get_catalog().tools)} "
                f"tools ({100 * ledger['ratio']:.2f} %); thread {outcome.thread_id}, "
                f"run {values.get('run_id')}"
            )
        if ledger.get("model_turns"):
            print(
                f"model: {ledger['model_turns']} turns, {ledger['model_prompt_tokens']} prompt + "
                f"{ledger['model_completion_tokens']} completion tokens"
            )
    if args.json:
        print(
            json.dumps(
                {
                    "thread_id": outcome.thread_id,
                    "run_id": values.get("run_id"),
                    "status": outcome.status,
                    "answer": values.get("answer"),
                    "results": values.get("results"),
                    "gaps": values.get("gaps"),
                    "token_ledger": ledger,
                },
                ensure_ascii=False,
                default=str,
            )
        )
    return 0 if not values.get("gaps") else 1


def _say(args: argparse.Namespace) -> Any:
    def say(line: str) -> None:
        if not args.json:
            print(line, flush=True)

    return say


def command_run(args: argparse.Namespace) -> int:
    """Run a request through the whole graph, streaming progress."""
    import asyncio

    from graph.session import open_session
    from graph.streaming import ask_on_terminal

    context = _context(args)
    deps = Deps(index_name=configured_index_name(args.name))
    mcp = Path(args.mcp) if args.mcp else saved_mcp_config(deps.get_home(), deps.index_name)
    if args.model:
        from dataclasses import replace

        from graph.runtime import ChatModelUnavailable, require_chat_model

        try:
            asyncio.run(require_chat_model(deps, context))
        except ChatModelUnavailable as exc:
            if not args.fallback_rules:
                print(f"error: {exc} (or add --fallback-rules to run offline)", file=sys.stderr)
                return EXIT_SETUP
            print(f"warning: {exc}; --fallback-rules: the offline rules plan this run",
                  file=sys.stderr)
            context = replace(context, model="", base_url="", planner="rules")

    async def go() -> int:
        # The session holds the run's lease inside the runtime, so with Postgres configured
        # the lease lives in the shared ledger and two machines exclude each other too.
        async with open_session(
            deps, mcp, args.postgres, say=_say(args), answer=ask_on_terminal
        ) as session:
            outcome = await session.run(args.request, context, thread_id=args.thread)
        return _report(outcome, deps, args)

    return asyncio.run(go())


def command_resume(args: argparse.Namespace) -> int:
    """Continue an interrupted thread with an answer, an approval or a rejection."""
    import asyncio

    from graph.session import NO_REPLY, open_session
    from graph.streaming import ask_on_terminal

    context = _context(args)
    deps = Deps(index_name=configured_index_name(args.name))
    mcp = Path(args.mcp) if args.mcp else saved_mcp_config(deps.get_home(), deps.index_name)
    reply: Any = NO_REPLY  # stopped or failed threads go on from their last checkpoint
    if args.approve or args.reject:
        reply = bool(args.approve)
    elif args.answer is not None:
        reply = args.answer

    async def go() -> int:
        async with open_session(
            deps, mcp, args.postgres, say=_say(args), answer=ask_on_terminal
        ) as session:
            outcome = await session.resume(args.thread, context, reply)
        if not outcome.ran and outcome.interrupt is not None:
            print(
                f"thread {args.thread} waits for: {outcome.interrupt.get('question')}\n"
                f"give {_resume_hint(outcome.interrupt)}",
                file=sys.stderr,
            )
            return 3
        if not outcome.ran:
            print(f"thread {args.thread} is done; nothing to resume")
            return 0
        return _report(outcome, deps, args)

    return asyncio.run(go())


def command_threads(args: argparse.Namespace) -> int:
    """List the runs in the checkpointer with their status and pending question."""
    import asyncio

    from graph.builder import build_graph
    from graph.runtime import configured_postgres_url, open_checkpointer
    from graph.threads import list_threads

    deps = Deps()

    async def go() -> int:
        async with open_checkpointer(deps, args.postgres) as saver:
            graph = build_graph(deps).compile(checkpointer=saver)
            summaries = await list_threads(saver, graph, limit=args.limit)
        if args.json:
            print(json.dumps([s.to_dict() for s in summaries], ensure_ascii=False, default=str))
            return 0
        if not summaries:
            where = "Postgres" if configured_postgres_url(args.postgres) else deps.get_home()
            print(f"no threads yet ({where})")
            return 0
        print(f"{'thread':<16} {'status':<18} {'last step':<16} {'updated':<20} request")
        for s in summaries:
            print(
                f"{s.thread_id:<16} {s.status:<18} {s.last_step[:16]:<16} "
                f"{s.updated_at[:19]:<20} {s.request[:60]}"
            )
            if s.question:
                print(f"{'':<16} ? {s.question}")
            if s.error:
                print(f"{'':<16} ! {s.error[:200]}")
        return 0

    return asyncio.run(go())


def command_mcp(args: argparse.Namespace) -> int:
    """Serve zspace itself over MCP (stdio): search_tools, run_request, resume_run."""
    from graph.mcp_server import main as serve

    return serve()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="zspace",
        description="Find the few right tools among thousands and run them in order.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    index = sub.add_parser("index", help="index catalog files (JSON or YAML) into the tool index")
    index.add_argument("catalog", nargs="*", help="catalog files in the FORMAT.md shape")
    index.add_argument("--mcp", help="an mcpServers JSON config: index every server's tools")
    index.add_argument("--openapi", action="append", metavar="SPEC",
                       help="an OpenAPI 3.x / Swagger 2.0 document (file or URL): each "
                       "operation becomes a tool (repeatable)")
    index.add_argument("--base-url", help="where the --openapi service's calls go (default: "
                       "the document's first server)")
    index.add_argument("--agent", help="agent id of the --openapi service (default: its "
                       "info.title, slugified)")
    index.add_argument("--environment", choices=["test", "staging", "prod"],
                       help="environment tag of the --openapi tools (untagged tools may only "
                       "read)")
    index.add_argument("--auth", action="append", metavar="SCHEME=ENV_VAR",
                       help="read a security scheme's credential from ENV_VAR (default: "
                       "ZSPACE_SECRET_<AGENT>_<SCHEME>); repeatable")
    index.add_argument("--reset", action="store_true", help="drop the index and embed everything")
    index.add_argument("--json", action="store_true", help="last line: one JSON object of counts")
    index.add_argument("--progress", action="store_true",
                       help="draw the embedding progress bar (rate, ETA) on stderr even when "
                            "stderr is not a terminal")
    index.add_argument("--name", help="index name (default: $ZSPACE_INDEX or default)")
    index.set_defaults(handler=command_index)

    search = sub.add_parser("search", help="rank tools and their owners for a query")
    search.add_argument("query")
    search.add_argument("--k", type=int, default=5, help="how many tools and agents")
    search.add_argument("--env", action="append", help="environment allow-list (repeatable)")
    search.add_argument("--json", action="store_true", help="print one JSON object")
    search.add_argument("--name", help="index name (default: $ZSPACE_INDEX or default)")
    search.set_defaults(handler=command_search)

    evaluation = sub.add_parser("eval", help="evaluate retrieval (and later the whole pipeline)")
    eval_sub = evaluation.add_subparsers(dest="target", required=True)
    retrieval = eval_sub.add_parser(
        "retrieval", help="Recall/mAP/nDCG@K of agents and tools on a two-file benchmark"
    )
    retrieval.add_argument("--catalog", required=True, help="catalog.json of the benchmark")
    retrieval.add_argument("--queries", required=True, help="queries.jsonl of the benchmark")
    retrieval.add_argument("--mode", choices=["step", "question"], default="step")
    retrieval.add_argument("--method", default="default", help="a method of the ablation table")
    retrieval.add_argument("--k", default="1,3,5,10", help="cut-offs, comma-separated")
    retrieval.add_argument("--run-out", help="write the run file (one ranked line per query)")
    retrieval.add_argument("--env", action="append",
                           help="environment allow-list, as a run applies it (repeatable)")
    retrieval.add_argument("--json", action="store_true", help="last line: one JSON object")
    retrieval.set_defaults(handler=command_eval_retrieval)
    e2e = eval_sub.add_parser(
        "e2e",
        help="end-to-end accuracy of whole runs against the sandbox (tools, arguments, order)",
    )
    request_set = e2e.add_mutually_exclusive_group()
    request_set.add_argument("--split", choices=["dev", "test"],
                             help="a request set of bench/data/e2e (default: test)")
    request_set.add_argument(
        "--instructions",
        help="a request set (JSONL): lines need id and request; gold fields are scored",
    )
    e2e.add_argument("--out", help="write the run file (RUN.jsonl): one line per request")
    e2e.add_argument("--model", help="chat model for the LLM path (an error if unusable)")
    e2e.add_argument("--base-url", help="OpenAI-compatible endpoint of --model")
    e2e.add_argument("--limit", type=int, help="run N requests spread over the set")
    e2e.add_argument("--id", action="append", help="run only this request id (repeatable)")
    e2e.add_argument("--catalog", help="catalog to index (default: bench/data/e2e/catalog.json)")
    e2e.add_argument("--home", help="the harness's home (default: $ZSPACE_HOME/e2e)")
    e2e.add_argument("--verbose", action="store_true", help="one line per request with --json")
    e2e.add_argument("--json", action="store_true", help="last line: one JSON object")
    e2e.set_defaults(handler=command_eval_e2e)
    bfcl = eval_sub.add_parser(
        "bfcl",
        help="BFCL v4 single-turn cases through zspace, scored by BFCL's own checker",
    )
    bfcl.add_argument("--category", nargs="+", required=True,
                      help="simple_python multiple parallel parallel_multiple irrelevance "
                      "live_simple live_multiple live_parallel live_parallel_multiple "
                      "live_irrelevance")
    bfcl.add_argument("--limit", type=int, help="N cases per category, spread over it")
    bfcl.add_argument("--out", help="write DIR/<category>.jsonl run files")
    bfcl.add_argument("--model", help="chat model that plans (an error if unusable)")
    bfcl.add_argument("--base-url", help="OpenAI-compatible endpoint of --model")
    bfcl.add_argument("--home", help="the harness's home (default: a temporary directory)")
    bfcl.add_argument("--verbose", action="store_true", help="one line per case with --json")
    bfcl.add_argument("--json", action="store_true", help="last line: one JSON object")
    bfcl.set_defaults(handler=command_eval_bfcl)

    run = sub.add_parser("run", help="run a request: parse, retrieve, plan, call tools, answer")
    run.add_argument("request", help="what to do, in plain language")
    run.add_argument("--thread", help="thread id (default: a new one); reuse it to continue")
    run.add_argument("--run-id", help="idempotency scope: the same run id never repeats an effect")
    run.add_argument("--format", choices=["md", "json", "text"], default="md")
    run.add_argument("--fallback-rules", action="store_true",
                     help="if --model cannot be used, run on the offline rules instead of failing")
    run.add_argument("--env", action="append", help="environment allow-list (default: test)")
    run.add_argument("--mcp", help="mcpServers config (default: the one last indexed)")
    run.add_argument("--name", help="index name (default: $ZSPACE_INDEX or default)")
    run.add_argument("--yes", action="store_true", help="pre-approve destructive calls")
    run.add_argument("--model", help="chat model for the LLM path (needs a key or --base-url)")
    run.add_argument("--base-url", help="OpenAI-compatible endpoint")
    run.add_argument(
        "--postgres",
        help="Postgres URL for checkpoints and the call ledger (default: $ZSPACE_POSTGRES_URL, "
        "else SQLite under ZSPACE_HOME)",
    )
    run.add_argument("--json", action="store_true", help="last line: one JSON object")
    run.set_defaults(handler=command_run)

    resume = sub.add_parser("resume", help="continue an interrupted run (answer, approve, reject)")
    resume.add_argument("thread", help="the thread id `zspace run` or `zspace threads` printed")
    answer = resume.add_mutually_exclusive_group()
    answer.add_argument("--answer", help="the value the run asked for")
    answer.add_argument("--approve", action="store_true", help="approve the pending calls")
    answer.add_argument("--reject", action="store_true", help="reject the pending calls")
    resume.add_argument("--format", choices=["md", "json", "text"], default="md")
    resume.add_argument("--env", action="append", help="environment allow-list (default: test)")
    resume.add_argument("--mcp", help="mcpServers config (default: the one last indexed)")
    resume.add_argument("--name", help="index name (default: $ZSPACE_INDEX or default)")
    resume.add_argument("--yes", action="store_true", help="pre-approve later destructive calls")
    resume.add_argument("--model", help="chat model for the LLM path")
    resume.add_argument("--base-url", help="OpenAI-compatible endpoint")
    resume.add_argument("--postgres", help="Postgres URL (default: $ZSPACE_POSTGRES_URL)")
    resume.add_argument("--json", action="store_true", help="last line: one JSON object")
    resume.set_defaults(handler=command_resume)

    threads = sub.add_parser("threads", help="list runs: done / waiting for input / failed")
    threads.add_argument("--limit", type=int, default=50, help="most recent N threads")
    threads.add_argument("--postgres", help="Postgres URL (default: $ZSPACE_POSTGRES_URL)")
    threads.add_argument("--json", action="store_true", help="print one JSON list")
    threads.set_defaults(handler=command_threads)

    mcp = sub.add_parser("mcp", help="serve zspace over MCP (stdio): search_tools, run_request")
    mcp.set_defaults(handler=command_mcp)

    demo = sub.add_parser("demo", help="the main job on the embedded default, offline")
    demo.add_argument("--request", default=DEMO_REQUEST, help="the request to run")
    demo.set_defaults(handler=command_demo)
    parser.add_argument("--debug", action="store_true",
                        help="print the traceback of an error (default: one line)")
    for command in [*sub.choices.values(), *eval_sub.choices.values()]:
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                             help="print the traceback of an error (default: one line)")
    return parser


EXIT_DONE = 0
EXIT_NOT_DONE = 1
EXIT_SETUP = 2
EXIT_WAITING = 3
EXIT_DRIVEN_ELSEWHERE = 4
EXIT_INTERNAL = 5
"""Exit codes (the README's table): 0 the run is done; 1 it ran but some requested part
failed (status partial or failed); 2 a usage or setup error (a bad config file, a server or
model that cannot be reached, a missing key or file); 3 it waits for an answer; 4 another
process drives the run; 5 an unexpected error inside zspace (``--debug`` shows where)."""

def _setup_errors() -> tuple[type[BaseException], ...]:
    """The errors that are a user's setup, not a fault of zspace.

    Imported when needed, so ``zspace search`` and ``zspace index`` start without the run
    machinery.
    """
    from graph.runtime import ChatModelUnavailable
    from graph.session import ThreadNotFound
    from stores.checkpoint import CheckpointerUnavailable
    from stores.execution.ledger.postgres import PostgresUnavailable
    from stores.language.datafile import DataFileError
    from stores.mcp.errors import McpConfigError
    from stores.retrieval.index import ChromaUnavailable
    from stores.retrieval.tokens import TokenizerUnavailable

    return (
        CatalogError,
        ChatModelUnavailable,
        CheckpointerUnavailable,
        ChromaUnavailable,
        DataFileError,
        EmbeddingModelMissing,
        FileNotFoundError,
        McpConfigError,
        PostgresUnavailable,
        SettingError,
        ThreadNotFound,
        TokenizerUnavailable,
    )


def _innermost(exc: BaseException) -> BaseException:
    """The one error inside exception groups (task groups wrap what a server raised)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def _fail(exc: BaseException, code: int, debug: bool, prefix: str = "error: ") -> int:
    """Print one line naming what is wrong (and the traceback with ``--debug``)."""
    if debug:
        traceback.print_exception(exc)
    print(prefix + " ".join(str(exc).split()), file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``zspace`` console command; exit codes are ``EXIT_*`` above."""
    apply_offline_environment()
    args = build_parser().parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BaseException as raised:  # noqa: BLE001 - every error becomes one line and a code
        if isinstance(raised, SystemExit | GeneratorExit):
            raise
        exc = _innermost(raised)
        if isinstance(exc, _setup_errors()):
            return _fail(exc, EXIT_SETUP, debug)
        from stores.execution.ledger.calls import RunConflict, RunLeaseHeld

        if isinstance(exc, RunLeaseHeld | RunConflict):
            return _fail(exc, EXIT_DRIVEN_ELSEWHERE, debug)
        return _fail(
            exc, EXIT_INTERNAL, debug,
            prefix=f"error: unexpected {type(exc).__name__} inside zspace (run again with "
            "--debug for the traceback, and please report it): ",
        )


if __name__ == "__main__":
    raise SystemExit(main())
