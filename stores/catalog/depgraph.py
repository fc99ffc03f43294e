"""NaviAgent's tool dependency graph: which tool's output can feed which tool's input.

An edge ``A → B`` labelled ``(output field f of A, input parameter p of B)`` exists when f and
p name the same thing: the same normalized name (``user_id`` ↔ ``userId``), an entity-qualified
identifier (``id`` of ``create_user``'s output ↔ ``user_id``; ``order.id`` ↔ ``order_id``), or
the same name after the caller's synonym normalizer — and their JSON types are compatible.
Generic names (``status``, ``name``, ``quantity``...) never make edges on their own: a status
from one tool is not an input to another just because the words match.

Edges are ranked by match quality, then by execution feedback (Laplace-smoothed success rate
kept in SQLite by :class:`FeedbackStore`), then lookups before writes. ``plan_inputs`` searches
backwards from a tool's required inputs to the values the user gave and returns the auxiliary
calls to make, in execution order.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from stores.catalog.model import IDEMPOTENCY_PARAM, ToolSpec
from stores.language.identifiers import IDENTIFIER_WORDS, singular, split_words

MatchKind = Literal["exact", "entity", "abbreviation", "synonym"]
MATCH_QUALITY: dict[MatchKind, float] = {
    "exact": 1.0,
    "entity": 0.9,
    "abbreviation": 0.85,
    "synonym": 0.8,
}
# Names too generic to connect two tools unless qualified by an entity in the name itself.
GENERIC_NAMES = frozenset({
    "status", "state", "name", "type", "kind", "value", "data", "result", "results",
    "message", "description", "count", "total", "amount", "quantity", "price", "limit",
    "offset", "page", "query", "text", "title", "url", "date", "time", "created_at",
    "updated_at", "success", "ok", "error", "items", "note", "notes", "comment",
})
# Short forms folded before matching (the lexicon adds domain synonyms on top).
ABBREVIATIONS = {
    "no": "number", "num": "number", "nr": "number", "nbr": "number",
    "acct": "account", "acc": "account", "qty": "quantity", "addr": "address",
    "cust": "customer", "prod": "product", "ref": "reference", "identifier": "id",
}
ACTION_WORDS = frozenset({
    "get", "list", "find", "search", "lookup", "look", "fetch", "read", "query", "create",
    "add", "new", "make", "place", "update", "edit", "set", "modify", "change", "delete",
    "remove", "cancel", "advance", "issue", "submit", "send", "check", "validate", "verify",
    "by", "for", "of", "to", "from", "with", "and", "all", "info", "details", "detail",
})


class DependencyGraphError(ValueError):
    """A request to the dependency graph that names something it does not know."""


class NoChainFound(DependencyGraphError):
    """Required inputs of a tool that no chain of tools can produce from the given values."""

    def __init__(self, tool_id: str, missing: Sequence[str], available: Iterable[str],
                 max_depth: int) -> None:
        self.tool_id = tool_id
        self.missing = list(missing)
        super().__init__(
            f"tool {tool_id!r} needs {self.missing}, which no chain of at most {max_depth} "
            f"tools produces from the available values {sorted(available)}; ask the user "
            "for them (clarify_intent) or widen the search"
        )


@dataclass(frozen=True)
class Edge:
    """An output field of ``source`` that can feed the input ``param`` of ``target``."""

    source: str
    output_field: str
    target: str
    param: str
    match: MatchKind
    quality: float
    source_side_effect: bool

    @property
    def key(self) -> str:
        """Return the edge's stable key (used to store feedback)."""
        return f"{self.source}#{self.output_field}->{self.target}#{self.param}"

    def to_dict(self) -> dict[str, Any]:
        """Return the edge as plain data."""
        return {**asdict(self), "key": self.key}


@dataclass(frozen=True)
class Feed:
    """One value an auxiliary call passes on: its ``output_field`` → ``target``'s ``param``."""

    output_field: str
    target: str
    param: str
    edge_key: str


@dataclass(frozen=True)
class ChainStep:
    """An auxiliary call to make before its consumers, and what it feeds.

    Attributes:
        tool_id: The tool to call.
        feeds: Where its outputs go.
        user_inputs: Its required parameters bound from values the user gave.
        depth: Distance from the target tool (1 = feeds the target directly).
    """

    tool_id: str
    feeds: tuple[Feed, ...]
    user_inputs: tuple[str, ...] = ()
    depth: int = 1

    def to_dict(self) -> dict[str, Any]:
        """Return the step as plain data."""
        return {
            "tool_id": self.tool_id,
            "feeds": [asdict(feed) for feed in self.feeds],
            "user_inputs": list(self.user_inputs),
            "depth": self.depth,
        }


@dataclass(frozen=True)
class _Port:
    """A named, typed value slot (an output field or an input parameter)."""

    tool_id: str
    path: str
    concept: str
    plain: str
    types: frozenset[str]


# ------------------------------------------------------------------------- names
def tool_entity(spec: ToolSpec) -> str | None:
    """Return the entity a tool is about: its first entity tag, else the noun in its name."""
    for tag in spec.entity_tags:
        words = split_words(tag)
        if words:
            return "_".join(singular(word) for word in words)
    for word in split_words(spec.name):
        if word not in ACTION_WORDS and not word.isdigit():
            return singular(word)
    return None


class _Normalizer:
    def __init__(self, synonyms: Callable[[str], str] | None) -> None:
        self.synonyms = synonyms

    def plain(self, name: str) -> str:
        return "_".join(split_words(name))

    def folded(self, name: str) -> str:
        return "_".join(ABBREVIATIONS.get(word, word) for word in split_words(name))

    def canonical(self, name: str) -> str:
        folded = self.folded(name)
        if self.synonyms is None:
            return folded
        whole = self.synonyms(folded.replace("_", " "))
        words = [self.synonyms(word) for word in split_words(whole)]
        return "_".join(split_words(" ".join(words)))

    def concept(self, path: str, owner_entity: str | None, form: Callable[[str], str]) -> str:
        """Return what a field denotes: ``order.id`` → ``order_id``; ``id`` → ``<entity>_id``."""
        parts = [part for part in path.split(".") if part]
        leaf = form(parts[-1]) if parts else ""
        if leaf in IDENTIFIER_WORDS or leaf in ("number", "reference"):
            qualifier = form(parts[-2]) if len(parts) > 1 else (form(owner_entity or ""))
            qualifier = "_".join(singular(word) for word in qualifier.split("_") if word)
            if qualifier:
                return f"{qualifier}_{leaf}"
        return leaf


def _types(schema: Any) -> frozenset[str]:
    if not isinstance(schema, Mapping):
        return frozenset()
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset({declared}) - {"null"}
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str) and t != "null")
    found: set[str] = set()
    for keyword in ("anyOf", "oneOf"):
        for option in schema.get(keyword) or []:
            found |= _types(option)
    return frozenset(found)


def types_compatible(produced: frozenset[str], expected: frozenset[str]) -> float:
    """Return 1.0 for compatible JSON types, 0.9 for a coercion (id 7 ↔ "7"), 0.0 otherwise.

    An unknown type on either side is taken as compatible.
    """
    if not produced or not expected:
        return 1.0
    if produced & expected or ("integer" in produced and "number" in expected):
        return 1.0
    scalars = {"string", "integer", "number"}
    if produced & scalars and expected & scalars:
        return 0.9
    return 0.0


def _output_fields(schema: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Return ``(path, schema)`` of output fields, nested one level (``order.id``)."""
    fields: list[tuple[str, Mapping[str, Any]]] = []
    root = schema
    if root.get("type") == "array" and isinstance(root.get("items"), Mapping):
        root = root["items"]  # a list of records still yields their fields
    for name, sub in (root.get("properties") or {}).items():
        if not isinstance(sub, Mapping):
            continue
        fields.append((name, sub))
        nested = sub
        if sub.get("type") == "array" and isinstance(sub.get("items"), Mapping):
            nested = sub["items"]
        for inner, inner_schema in (nested.get("properties") or {}).items():
            if isinstance(inner_schema, Mapping):
                fields.append((f"{name}.{inner}", inner_schema))
    return fields


# ------------------------------------------------------------------------- feedback
class FeedbackStore:
    """Success and failure counts per edge key, in a SQLite file (WAL, thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        """Open (and create when needed) the store at ``path`` (or ``":memory:"``)."""
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._connection = sqlite3.connect(
            self.path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.execute(
            "CREATE TABLE IF NOT EXISTS edge_feedback (edge_key TEXT PRIMARY KEY, "
            "successes INTEGER NOT NULL DEFAULT 0, failures INTEGER NOT NULL DEFAULT 0, "
            "updated_at REAL NOT NULL)"
        )

    def record(self, edge_key: str, success: bool) -> None:
        """Count one execution of an edge."""
        column = "successes" if success else "failures"
        with self._lock:
            self._connection.execute(
                f"INSERT INTO edge_feedback (edge_key, {column}, updated_at) VALUES (?, 1, ?) "
                f"ON CONFLICT (edge_key) DO UPDATE SET {column} = {column} + 1, "
                "updated_at = excluded.updated_at",
                (edge_key, time.time()),
            )

    def counts(self, edge_key: str) -> tuple[int, int]:
        """Return ``(successes, failures)`` of an edge (zeros when never seen)."""
        with self._lock:
            row = self._connection.execute(
                "SELECT successes, failures FROM edge_feedback WHERE edge_key = ?", (edge_key,)
            ).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    def all_counts(self) -> dict[str, tuple[int, int]]:
        """Return the counts of every edge seen."""
        with self._lock:
            rows = self._connection.execute(
                "SELECT edge_key, successes, failures FROM edge_feedback"
            ).fetchall()
        return {key: (int(s), int(f)) for key, s, f in rows}

    def close(self) -> None:
        """Close the store's connection."""
        with self._lock:
            self._connection.close()


def success_rate(successes: int, failures: int) -> float:
    """Return the Laplace-smoothed success rate ``(s + 1) / (s + f + 2)``."""
    return (successes + 1) / (successes + failures + 2)


# ------------------------------------------------------------------------- the graph
@dataclass
class ToolDependencyGraph:
    """Edges between tools, with feedback-aware ranking and backward chain planning."""

    tools: dict[str, ToolSpec]
    edges_by_target: dict[tuple[str, str], list[Edge]]
    feedback: FeedbackStore | None = None
    _memory_counts: dict[str, list[int]] = field(default_factory=dict)
    _normalizer: _Normalizer = field(default_factory=lambda: _Normalizer(None))

    @classmethod
    def build(
        cls,
        specs: Iterable[ToolSpec],
        synonyms: Callable[[str], str] | None = None,
        feedback: FeedbackStore | None = None,
    ) -> ToolDependencyGraph:
        """Build the graph from tool specs.

        Args:
            specs: The tools (e.g. ``catalog.tools.values()``).
            synonyms: A normalizer mapping a word or phrase to its canonical form (the
                lexicon provides one); None matches names and abbreviations only.
            feedback: Where execution feedback persists; None keeps it in memory.
        """
        normalizer = _Normalizer(synonyms)
        tools = {spec.id: spec for spec in specs}
        producers: dict[str, list[tuple[_Port, MatchKind]]] = {}
        for spec in tools.values():
            if not spec.output_schema:
                continue
            entity = tool_entity(spec)
            for path, schema in _output_fields(spec.output_schema):
                for port, kind in _ports(normalizer, spec.id, path, schema, entity):
                    producers.setdefault(port.concept, []).append((port, kind))
        edges: dict[tuple[str, str], list[Edge]] = {}
        for spec in tools.values():
            entity = tool_entity(spec)
            for param, schema in (spec.input_schema.get("properties") or {}).items():
                if param == IDEMPOTENCY_PARAM:
                    continue
                found: dict[tuple[str, str], Edge] = {}
                for wanted, wanted_kind in _ports(normalizer, spec.id, param, schema, entity):
                    for port, kind in producers.get(wanted.concept, []):
                        if port.tool_id == spec.id:
                            continue
                        type_fit = types_compatible(port.types, wanted.types)
                        if type_fit == 0.0:
                            continue
                        match = _weaker(kind, wanted_kind)
                        if match == "exact" and port.plain != wanted.plain:
                            match = "entity"
                        quality = round(MATCH_QUALITY[match] * type_fit, 4)
                        source = tools[port.tool_id]
                        edge = Edge(
                            source=port.tool_id,
                            output_field=port.path,
                            target=spec.id,
                            param=param,
                            match=match,
                            quality=quality,
                            source_side_effect=source.side_effect is not False,
                        )
                        previous = found.get((edge.source, edge.output_field))
                        if previous is None or previous.quality < edge.quality:
                            found[(edge.source, edge.output_field)] = edge
                if found:
                    edges[(spec.id, param)] = list(found.values())
        return cls(tools=tools, edges_by_target=edges, feedback=feedback,
                   _normalizer=normalizer)

    # ----------------------------------------------------------------- queries
    @property
    def edges(self) -> list[Edge]:
        """Return every edge."""
        return [edge for group in self.edges_by_target.values() for edge in group]

    def counts(self, edge: Edge) -> tuple[int, int]:
        """Return ``(successes, failures)`` recorded for an edge."""
        if self.feedback is not None:
            return self.feedback.counts(edge.key)
        successes, failures = self._memory_counts.get(edge.key, [0, 0])
        return successes, failures

    def success_rate(self, edge: Edge) -> float:
        """Return the edge's Laplace-smoothed success rate (0.5 before any feedback)."""
        return success_rate(*self.counts(edge))

    def record_feedback(self, edge: Edge, success: bool) -> None:
        """Record whether feeding ``edge.source``'s output into ``edge.target`` worked."""
        if self.feedback is not None:
            self.feedback.record(edge.key, success)
            return
        counts = self._memory_counts.setdefault(edge.key, [0, 0])
        counts[0 if success else 1] += 1

    def producers(self, tool_id: str, param: str) -> list[Edge]:
        """Return the edges that can feed ``param`` of ``tool_id``, best first.

        Ranked by match quality, then feedback success rate, then lookups before writes.

        Raises:
            DependencyGraphError: the tool is unknown.
        """
        if tool_id not in self.tools:
            raise DependencyGraphError(
                f"unknown tool {tool_id!r}: build the graph from a catalog that contains it"
            )
        candidates = self.edges_by_target.get((tool_id, param), [])
        return sorted(
            candidates,
            key=lambda edge: (
                -edge.quality,
                -self.success_rate(edge),
                edge.source_side_effect,
                edge.source,
                edge.output_field,
            ),
        )

    def required_params(self, tool_id: str) -> list[str]:
        """Return the required inputs of a tool, without ``idempotency_key``."""
        spec = self.tools[tool_id]
        return [name for name in spec.input_schema.get("required") or []
                if name != IDEMPOTENCY_PARAM]

    def edge_cost(self, edge: Edge) -> float:
        """Return the cost of using an edge in a chain (lower is better).

        One call, plus penalties for a weaker name match, a poor feedback record and a
        side-effecting source (auxiliary calls should be lookups).
        """
        return (
            1.0
            + (1.0 - edge.quality)
            + (1.0 - self.success_rate(edge))
            + (0.5 if edge.source_side_effect else 0.0)
        )

    # ---------------------------------------------------------------- planning
    def plan_inputs(
        self,
        target_tool_id: str,
        available: set[str],
        max_depth: int = 3,
        max_producers: int = 5,
    ) -> list[ChainStep]:
        """Find the auxiliary calls that produce the target's required inputs.

        A backward search from each required input not in ``available`` through producer
        edges, at most ``max_depth`` calls deep, without cycles; for each input the cheapest
        chain (see :meth:`edge_cost`) wins.

        Args:
            target_tool_id: The core tool to call.
            available: Names of values the user gave (e.g. ``{"account_number"}``); matched
                to parameters by normalized name and synonyms.
            max_depth: Longest chain of auxiliary calls.
            max_producers: Producers tried per input (the best-ranked ones).

        Returns:
            The auxiliary calls in execution order (every call after those it depends on);
            a tool needed for several inputs appears once with all its feeds.

        Raises:
            DependencyGraphError: the target is unknown.
            NoChainFound: some required input cannot be produced; ``missing`` names them.
        """
        if target_tool_id not in self.tools:
            raise DependencyGraphError(
                f"unknown tool {target_tool_id!r}: build the graph from a catalog that "
                "contains it"
            )
        known = {self._normalizer.canonical(name) for name in available}
        planner = _ChainSearch(self, known, max_depth, max_producers)
        missing: list[str] = []
        chosen: list[tuple[Edge, int, list[str]]] = []
        for param in self.required_params(target_tool_id):
            if planner.is_available(target_tool_id, param):
                continue
            solution = planner.solve_param(target_tool_id, param, 0, frozenset({target_tool_id}))
            if solution is None:
                missing.append(param)
            else:
                chosen.extend(solution[1])
        if missing:
            raise NoChainFound(target_tool_id, missing, available, max_depth)
        return _merge_steps(chosen, planner)


class _ChainSearch:
    def __init__(self, graph: ToolDependencyGraph, known: set[str], max_depth: int,
                 max_producers: int) -> None:
        self.graph = graph
        self.known = known
        self.max_depth = max_depth
        self.max_producers = max_producers

    def is_available(self, tool_id: str, param: str) -> bool:
        normalizer = self.graph._normalizer
        spec = self.graph.tools[tool_id]
        entity = tool_entity(spec)
        names = {
            normalizer.canonical(param),
            normalizer.concept(param, entity, normalizer.canonical),
        }
        return bool(names & self.known)

    def solve_param(
        self, tool_id: str, param: str, depth: int, visiting: frozenset[str]
    ) -> tuple[float, list[tuple[Edge, int, list[str]]]] | None:
        """Return (cost, [(edge, depth, user inputs of its source)] in execution order)."""
        if depth >= self.max_depth:
            return None
        best: tuple[float, list[tuple[Edge, int, list[str]]]] | None = None
        for edge in self.graph.producers(tool_id, param)[: self.max_producers]:
            if edge.source in visiting:
                continue
            inputs = self.solve_tool(edge.source, depth + 1, visiting | {edge.source})
            if inputs is None:
                continue
            input_cost, steps, user_inputs = inputs
            cost = self.graph.edge_cost(edge) + input_cost
            if best is None or cost < best[0]:
                best = (cost, [*steps, (edge, depth + 1, user_inputs)])
        return best

    def solve_tool(
        self, tool_id: str, depth: int, visiting: frozenset[str]
    ) -> tuple[float, list[tuple[Edge, int, list[str]]], list[str]] | None:
        total = 0.0
        steps: list[tuple[Edge, int, list[str]]] = []
        user_inputs: list[str] = []
        for param in self.graph.required_params(tool_id):
            if self.is_available(tool_id, param):
                user_inputs.append(param)
                continue
            solution = self.solve_param(tool_id, param, depth, visiting)
            if solution is None:
                return None
            total += solution[0]
            steps.extend(solution[1])
        return total, steps, user_inputs


def _merge_steps(
    chosen: list[tuple[Edge, int, list[str]]], planner: _ChainSearch
) -> list[ChainStep]:
    order: list[str] = []
    feeds: dict[str, list[Feed]] = {}
    depths: dict[str, int] = {}
    user_inputs: dict[str, list[str]] = {}
    for edge, depth, inputs in chosen:
        if edge.source not in feeds:
            order.append(edge.source)
            feeds[edge.source] = []
            user_inputs[edge.source] = list(inputs)
        feed = Feed(edge.output_field, edge.target, edge.param, edge.key)
        if feed not in feeds[edge.source]:
            feeds[edge.source].append(feed)
        depths[edge.source] = max(depths.get(edge.source, 0), depth)
    return [
        ChainStep(tool_id, tuple(feeds[tool_id]), tuple(user_inputs[tool_id]), depths[tool_id])
        for tool_id in order
    ]


def _ports(
    normalizer: _Normalizer, tool_id: str, path: str, schema: Mapping[str, Any],
    entity: str | None,
) -> list[tuple[_Port, MatchKind]]:
    """Return the concepts a field can stand for, each with how it was derived."""
    types = _types(schema)
    plain = normalizer.plain(path)
    forms: list[tuple[str, MatchKind]] = [
        (normalizer.concept(path, entity, normalizer.plain), "exact"),
        (normalizer.concept(path, entity, normalizer.folded), "abbreviation"),
        (normalizer.concept(path, entity, normalizer.canonical), "synonym"),
    ]
    ports: list[tuple[_Port, MatchKind]] = []
    seen: set[str] = set()
    for concept, kind in forms:
        if not concept or concept in seen or _too_generic(concept):
            continue
        seen.add(concept)
        ports.append((_Port(tool_id, path, concept, plain, types), kind))
    return ports


def _too_generic(concept: str) -> bool:
    return concept in GENERIC_NAMES or concept in IDENTIFIER_WORDS


_STRENGTH: dict[MatchKind, int] = {"exact": 3, "entity": 2, "abbreviation": 1, "synonym": 0}


def _weaker(first: MatchKind, second: MatchKind) -> MatchKind:
    return first if _STRENGTH[first] <= _STRENGTH[second] else second
