"""BFCL v4 single-turn cases through the whole zspace graph, scored by BFCL's own checker.

``zspace eval bfcl --category C [C ...]`` (``../shared/EVAL.md``): each case's functions, as
BFCL's OpenAI function-calling handler compiles them (``convert_to_tool``), become one agent's
tools; they are indexed as ``zspace index`` would; retrieval, planning and execution are
zspace's own. The tools record the arguments they receive and answer a small JSON ack. The run
file ``DIR/<category>.jsonl`` has one line per case in BFCL's order::

    {"id", "calls": [{"<function>": {<args>}}], "question", "answer",
     "tokens": {"prompt", "completion"}, "seconds"}

``calls`` is every call the functions received, in the order they ran, under BFCL's original
names (dots included). Accuracy comes from ``bfcl_eval``'s AST checker; irrelevance categories
pass when no call was made.

``bfcl-eval`` is installed without its dependencies (they include several model SDKs and
torch); the checker needs only ``tree_sitter`` and a few small packages. Its model registry
(``bfcl_eval.constants.model_config``) imports every SDK, so it is replaced here by a registry
that says zspace keeps dots in function names.
"""

from __future__ import annotations

import contextlib
import json
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, cast

CATEGORIES = (
    "simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance",
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
    "live_irrelevance",
)
AGENT = "bfcl"
MODEL_NAME = "zspace"


class BfclUnavailable(RuntimeError):
    """``bfcl-eval`` (or what its checker needs) is not installed."""


# ------------------------------------------------------------------------- BFCL's own code
@dataclass(frozen=True)
class _ModelConfig:
    underscore_to_dot: bool = False


class _Registry(dict[str, _ModelConfig]):
    def __missing__(self, key: str) -> _ModelConfig:
        return _ModelConfig()


def _bfcl() -> types.SimpleNamespace:
    """Import BFCL's checker and tool compiler without its model SDKs."""
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        stub = types.ModuleType(name)
        stub.MODEL_CONFIG_MAPPING = _Registry()  # type: ignore[attr-defined]
        sys.modules[name] = stub
    try:
        from bfcl_eval.constants.enums import Language, ModelStyle
        from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.model_handler.utils import convert_to_tool
    except ImportError as exc:
        raise BfclUnavailable(
            f"BFCL's checker could not be imported ({exc}); install the dev extras: "
            "make install (bfcl-eval is installed with --no-deps plus what its checker needs)"
        ) from exc
    return types.SimpleNamespace(
        Language=Language,
        ModelStyle=ModelStyle,
        GORILLA_TO_OPENAPI=GORILLA_TO_OPENAPI,
        ast_checker=ast_checker,
        convert_to_tool=convert_to_tool,
    )


def _read_jsonl(resource: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in resource.read_text(encoding="utf-8").splitlines() if line]


def load_cases(category: str) -> list[dict[str, Any]]:
    """Return BFCL's cases of ``category``, each with its ``ground_truth`` when it has one."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL category {category!r}; choose from {', '.join(CATEGORIES)}")
    _bfcl()
    data = resources.files("bfcl_eval") / "data"
    cases = _read_jsonl(data / f"BFCL_v4_{category}.json")
    answers_file = data / "possible_answer" / f"BFCL_v4_{category}.json"
    if answers_file.is_file():
        answers = {row["id"]: row["ground_truth"] for row in _read_jsonl(answers_file)}
        for case in cases:
            case["ground_truth"] = answers.get(case["id"])
    return cases


def case_request(case: dict[str, Any]) -> str:
    """The last user message of a single-turn case (BFCL's ``question`` is a list of turns)."""
    turns = case.get("question") or []
    messages = turns[-1] if turns and isinstance(turns[-1], list) else turns
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def compiled_tools(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's functions as BFCL's OpenAI function-calling handler compiles them.

    A case that carries ``tools`` already in that shape (name, description, JSON Schema
    parameters: ``python -m bench chinese``) is used as it is.
    """
    if "tools" in case:
        return list(case["tools"])
    bfcl = _bfcl()
    functions = case.get("function") or []
    compiled: list[dict[str, Any]] = bfcl.convert_to_tool(
        functions, bfcl.GORILLA_TO_OPENAPI, bfcl.ModelStyle.OPENAI_COMPLETIONS
    )
    tools = []
    for original, tool in zip(functions, compiled, strict=True):
        function = tool.get("function", tool)
        tools.append({
            "name": original["name"],
            "description": function.get("description") or "",
            "parameters": function.get("parameters") or {"type": "object", "properties": {}},
        })
    return tools


def is_irrelevance(category: str) -> bool:
    """Irrelevance categories pass when no call was made."""
    return category.endswith("irrelevance")


def score_case(category: str, case: dict[str, Any], calls: list[dict[str, Any]]) -> bool:
    """BFCL's verdict on one case's calls (its AST checker; irrelevance: no call made)."""
    if is_irrelevance(category):
        return not calls
    bfcl = _bfcl()
    result = bfcl.ast_checker(
        case.get("function") or [],
        calls,
        case.get("ground_truth") or [],
        bfcl.Language.PYTHON,
        category,
        MODEL_NAME,
    )
    return bool(result.get("valid"))


FAILURE_CAUSES = (
    "no call", "wrong tool", "wrong call count", "missing value", "wrong value", "extra value",
)

# What a run that made no call did instead: asked the user for a value, answered without a
# tool (NaviAgent's direct answer), did not understand the request (no action or object), or
# found no tool that fits.
NO_CALL_KINDS = ("asked", "answered", "not understood", "none fits")


def no_call_kind(question: str | None, actions: Sequence[str],
                 reasons: Sequence[str] = ()) -> str:
    """Which of :data:`NO_CALL_KINDS` a run without calls was.

    Its question first, then its sub-intents' actions, then the planner's reasons.
    """
    if question:
        return "asked"
    if actions and all(action == "direct_answer" for action in actions):
        return "answered"
    if "not understood" in reasons and "no tool fits" not in reasons:
        return "not understood"
    return "none fits"


def _accepts(options: Any, value: Any) -> bool:
    """Whether BFCL's list of acceptable values takes ``value`` (loosely, for the breakdown)."""
    options = options if isinstance(options, list) else [options]
    for option in options:
        if option == value or (isinstance(option, str) and isinstance(value, str)
                               and option.strip().lower() == value.strip().lower()):
            return True
        if isinstance(option, int | float) and isinstance(value, int | float) \
                and not isinstance(value, bool) and float(option) == float(value):
            return True
    return False


def failure_cause(category: str, case: dict[str, Any], calls: list[dict[str, Any]]) -> str:
    """Why a failed case failed, one of :data:`FAILURE_CAUSES` (irrelevance: a call was made).

    A coarse reading next to BFCL's checker: the calls made against the expected ones, by
    function name, then argument by argument (an expected argument whose options include ``""``
    is optional).
    """
    if is_irrelevance(category):
        return "wrong tool"
    expected = case.get("ground_truth") or []
    if not calls:
        return "no call"
    made = sorted(next(iter(c)) for c in calls)
    wanted = sorted(next(iter(g)) for g in expected)
    if set(made) != set(wanted):
        return "wrong tool"
    if len(made) != len(wanted):
        return "wrong call count"
    causes: set[str] = set()
    remaining = list(expected)
    for call in calls:
        name, args = next(iter(call.items()))
        best: tuple[int, set[str], int] | None = None
        for index, gold in enumerate(remaining):
            if next(iter(gold)) != name:
                continue
            params = gold[name]
            found: set[str] = set()
            for param, options in params.items():
                optional = isinstance(options, list) and "" in options
                if param not in args:
                    if not optional:
                        found.add("missing value")
                elif not _accepts(options, args[param]):
                    found.add("wrong value")
            if any(param not in params for param in args):
                found.add("extra value")
            if best is None or len(found) < best[0]:
                best = (len(found), found, index)
        if best is not None:
            causes |= best[1]
            remaining.pop(best[2])
    for cause in ("missing value", "wrong value", "extra value"):
        if cause in causes:
            return cause
    return "wrong value"


# ------------------------------------------------------------------------- running cases
@dataclass
class CaseRun:
    """One case as the run file records it."""

    id: str
    calls: list[dict[str, Any]] = field(default_factory=list)
    question: str | None = None
    answer: str = ""
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})
    seconds: float = 0.0
    error: str | None = None
    actions: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def line(self) -> dict[str, Any]:
        """The run-file line (EVAL.md's format)."""
        return {
            "id": self.id, "calls": self.calls, "question": self.question,
            "answer": self.answer, "tokens": self.tokens, "seconds": round(self.seconds, 3),
        }


def _recorder(name: str, calls: list[dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def record(**kwargs: Any) -> dict[str, Any]:
        calls.append({name: dict(kwargs)})
        return {"ok": True, "function": name}

    return record


def in_plan_order(
    calls: list[dict[str, Any]], plan: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The recorded calls in the order the plan lists them, not the order they finished in.

    Independent calls run in parallel and finish in any order; the plan keeps the order the
    request said them in. A recorded call is matched to the first planned call of its function
    whose literal arguments it has; calls matched to none keep their order, after the rest.
    """
    rest = list(calls)
    ordered: list[dict[str, Any]] = []
    for planned in plan:
        name = names.get(str(planned.get("tool_id")))
        literal = {param: source["value"] for param, source in (planned.get("args") or {}).items()
                   if isinstance(source, Mapping) and "value" in source}
        for index, call in enumerate(rest):
            if name in call and all(call[name].get(k) == v for k, v in literal.items()):
                ordered.append(rest.pop(index))
                break
    return ordered + rest


class BfclRunner:
    """Runs cases through zspace's graph with one shared index (re-synced per case)."""

    def __init__(
        self, home: Path, *, embedder: Any = None, chat_model: Any = None, model: str = "",
        base_url: str = "",
    ) -> None:
        """Prepare a home, an embedder and an index reused by every case."""
        from graph.deps import Deps
        from stores.retrieval.index import ToolIndex

        self.home = home
        self.home.mkdir(parents=True, exist_ok=True)
        probe = Deps(home=home, embedder=embedder)
        self.embedder = probe.get_embedder()
        self.index = ToolIndex(home / "index", self.embedder, name="bfcl")
        self.chat_model = chat_model
        self.model = model
        self.base_url = base_url

    async def run_case(self, case: dict[str, Any]) -> CaseRun:
        """Index the case's functions, run its request, and record what the functions got."""
        from langchain_core.callbacks import get_usage_metadata_callback
        from langgraph.checkpoint.memory import InMemorySaver

        from graph.builder import build_graph
        from graph.deps import Deps
        from graph.session import Session
        from nodes.context import Context
        from nodes.state import ZState, answered_directly
        from stores.catalog.enrich import enrich_catalog
        from stores.catalog.model import Catalog

        run = CaseRun(id=str(case["id"]))
        started = time.perf_counter()
        catalog = Catalog()
        names: dict[str, str] = {}
        for tool in compiled_tools(case):
            spec = catalog.add_raw_tool(
                {
                    "name": tool["name"], "agent": AGENT, "description": tool["description"],
                    "input_schema": tool["parameters"], "side_effect": False,
                },
                source=f"bfcl:{case['id']}",
            )
            if spec is None:
                continue
            names[spec.id] = tool["name"]
            catalog.implementations[spec.id] = _recorder(tool["name"], run.calls)
        problems = [str(q) for q in catalog.quarantined]
        enrich_catalog(catalog)
        self.index.sync(catalog)
        deps = Deps(
            catalog=catalog, index=self.index, embedder=self.embedder, home=self.home,
            chat_model=self.chat_model,
        )
        graph = build_graph(deps).compile(checkpointer=InMemorySaver())
        context = Context(pre_approved=True, model=self.model, base_url=self.base_url)
        questions: list[str] = []

        def answer(interrupt: dict[str, Any]) -> Any | None:
            if interrupt.get("type") == "approval":
                return True
            questions.append(str(interrupt.get("question") or ""))
            return None

        try:
            with get_usage_metadata_callback() as usage:
                session = Session(graph, deps, entry="bfcl", answer=answer)
                outcome = await session.run(case_request(case), context)
            run.answer = str(outcome.values.get("answer") or "")
            run.calls[:] = in_plan_order(run.calls, outcome.values.get("plan") or [], names)
            if outcome.interrupt is not None and not questions:
                questions.append(str(outcome.interrupt.get("question") or ""))
            run.question = questions[0] if questions else None
            intent = outcome.values.get("intent") or {}
            run.actions = [
                "direct_answer" if answered_directly(cast("ZState", outcome.values), sub)
                else str(sub["action"])
                for sub in intent.get("sub_intents") or []
            ]
            decisions = outcome.values.get("decisions") or {}
            run.reasons = [str(d.get("reason") or "") for d in decisions.values()
                           if isinstance(d, dict)]
            for counts in usage.usage_metadata.values():
                run.tokens["prompt"] += int(counts.get("input_tokens", 0))
                run.tokens["completion"] += int(counts.get("output_tokens", 0))
        except Exception as exc:  # one broken case is a line with its error; the rest go on
            run.error = f"{type(exc).__name__}: {exc}"
            run.answer = f"zspace failed on this case: {run.error}"
        if problems:
            run.answer += "\n(quarantined functions: " + "; ".join(problems) + ")"
        run.seconds = time.perf_counter() - started
        return run


@dataclass
class CategoryResult:
    """A category's accuracy by BFCL's checker, and its failures."""

    category: str
    cases: int = 0
    passed: int = 0
    failures: list[str] = field(default_factory=list)
    causes: dict[str, int] = field(default_factory=dict)
    no_calls: dict[str, int] = field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        """Passed over cases (0 when there were none)."""
        return self.passed / self.cases if self.cases else 0.0


def spread(cases: Sequence[dict[str, Any]], limit: int | None) -> list[dict[str, Any]]:
    """``limit`` cases spread evenly over the category, in BFCL order (all when None)."""
    if not limit or limit >= len(cases):
        return list(cases)
    step = len(cases) / limit
    return [cases[int(i * step)] for i in range(limit)]


async def evaluate(
    categories: Sequence[str],
    *,
    limit: int | None,
    out_dir: Path | None,
    runner: BfclRunner,
    say: Callable[[str], None] = print,
) -> dict[str, CategoryResult]:
    """Run and score each category; write ``out_dir/<category>.jsonl`` line by line."""
    results: dict[str, CategoryResult] = {}
    for category in categories:
        cases = spread(load_cases(category), limit)
        result = results[category] = CategoryResult(category)
        handle = None
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            handle = (out_dir / f"{category}.jsonl").open("w", encoding="utf-8")
        try:
            for case in cases:
                run = await runner.run_case(case)
                ok = score_case(category, case, run.calls)
                result.cases += 1
                result.passed += ok
                if not ok:
                    result.failures.append(run.id)
                    cause = failure_cause(category, case, run.calls)
                    result.causes[cause] = result.causes.get(cause, 0) + 1
                    if cause == "no call":
                        kind = no_call_kind(run.question, run.actions, run.reasons)
                        result.no_calls[kind] = result.no_calls.get(kind, 0) + 1
                if handle is not None:
                    handle.write(json.dumps(run.line(), ensure_ascii=False) + "\n")
                    handle.flush()
                say(f"{category} {run.id}: {'pass' if ok else 'fail'} {len(run.calls)} call(s)"
                    + (f" error: {run.error}" if run.error else ""))
        finally:
            if handle is not None:
                handle.close()
    return results


def summary(results: dict[str, CategoryResult], model: str) -> dict[str, Any]:
    """The ``--json`` summary line of EVAL.md."""
    line: dict[str, Any] = {
        category: {"accuracy": round(result.accuracy, 4), "cases": result.cases}
        for category, result in results.items()
    }
    line["model"] = model or "rules"
    return line


def command_eval_bfcl(args: Any) -> int:
    """``zspace eval bfcl``: run BFCL categories through zspace and print the checker's verdict."""
    import asyncio

    quiet = bool(args.json) and not args.verbose

    def say(line: str) -> None:
        if not quiet:
            print(line, flush=True)

    try:
        _bfcl()
        for category in args.category:
            if category not in CATEGORIES:
                print(f"unknown BFCL category {category!r}; choose from {', '.join(CATEGORIES)}",
                      file=sys.stderr)
                return 2
    except BfclUnavailable as exc:
        print(str(exc), file=sys.stderr)
        return 2
    chat_model = getattr(args, "chat_model", None)
    if args.model and chat_model is None:
        from graph.deps import Deps
        from graph.runtime import ChatModelUnavailable, require_chat_model
        from nodes.context import Context

        context = Context(model=args.model, base_url=args.base_url or "")
        try:
            chat_model = asyncio.run(require_chat_model(Deps(), context))
        except ChatModelUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    with _home(args.home) as home:
        runner = BfclRunner(
            home, chat_model=chat_model, model=args.model or "", base_url=args.base_url or ""
        )
        out_dir = Path(args.out) if args.out else None
        results = asyncio.run(evaluate(args.category, limit=args.limit, out_dir=out_dir,
                                       runner=runner, say=say))
    if not quiet:
        for category, result in results.items():
            print(f"{category:24s} {result.accuracy:6.1%}  ({result.passed}/{result.cases})")
    if args.json:
        print(json.dumps(summary(results, args.model or "")))
    return 0


@contextlib.contextmanager
def _home(path: str | None) -> Iterator[Path]:
    """The harness's home: ``--home`` when given, else a temporary directory."""
    if path:
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="zspace-bfcl-") as temp:
        yield Path(temp)
