"""Collaborators of the graph (embedder, index, catalog, executor, chat model), made lazily.

Nothing here does I/O at import time; each default is built on first use, so importing the
Studio entry or embedding the builder costs nothing until a run needs it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nodes.context import Context
from nodes.planning.binding import own_identifier_spaces
from stores.catalog.depgraph import FeedbackStore, ToolDependencyGraph
from stores.catalog.model import Catalog
from stores.catalog.store import CatalogStore
from stores.execution.ledger.calls import CallLedger
from stores.language.lexicon import Lexicon
from stores.retrieval.embeddings import Embedder, LangChainEmbedder, default_embedder
from stores.retrieval.fsww import FSWWParams
from stores.retrieval.index import ToolIndex
from stores.settings import apply_offline_environment, zspace_home

if TYPE_CHECKING:
    from stores.execution.executor import ToolExecutor

DEFAULT_INDEX_NAME = "default"
DEFAULT_INDEX_FSWW: FSWWParams | None = None
# The catalog each Deps (by id) had when the current run started: a live MCP sync may replace
# Deps.catalog mid-run, and a run keeps the tool versions it planned with (graph.live).
_RUN_CATALOGS: ContextVar[dict[int, Catalog] | None] = ContextVar(
    "zspace_run_catalogs", default=None
)
CATALOG_STORE = "catalog.sqlite"
# Where versions before the SQLite store kept the indexed catalog; migrated on first read.
LEGACY_CATALOG = "catalog.json"


def configured_embedder() -> Embedder:
    """The offline MiniLM embedder, or OpenAI embeddings for ``ZSPACE_EMBEDDINGS=openai:MODEL``."""
    choice = os.environ.get("ZSPACE_EMBEDDINGS", "")
    if choice.startswith("openai:"):
        from langchain_openai import OpenAIEmbeddings

        return LangChainEmbedder(OpenAIEmbeddings(model=choice.split(":", 1)[1]))
    return default_embedder()


def configured_index_name(name: str | None) -> str:
    """The index a command uses: ``--name``, else ``ZSPACE_INDEX``, else ``default``.

    The name selects both the index and the catalog saved with it, so a run finds exactly
    the tools it can call.
    """
    return name or os.environ.get("ZSPACE_INDEX") or DEFAULT_INDEX_NAME


@dataclass
class Deps:
    """What the nodes need from the outside world; every field has a lazy default.

    Attributes:
        embedder: computes vectors (default: all-MiniLM-L6-v2 offline).
        index: the joint tool index (default: under ``ZSPACE_HOME/index``).
        catalog: the tools that may be called (default: the catalog last indexed).
        chat_model: a LangChain chat model; wins over ``Context.model``.
        backends: executor backends by agent id (MCP sessions), plus ``"*"``.
        home: where zspace writes (default ``ZSPACE_HOME`` or ``./.zspace``).
        lexicon: the domain synonym lexicon (default: the shipped one, or
            ``ZSPACE_LEXICON``).
        ledger: the call ledger (default: SQLite under the home; ``open_runtime`` puts
            the Postgres one here for the length of a run when a URL is configured).
    """

    embedder: Embedder | None = None
    index: ToolIndex | None = None
    catalog: Catalog | None = None
    chat_model: Any = None
    backends: dict[str, Any] = field(default_factory=dict)
    home: Path | None = None
    lexicon: Lexicon | None = None
    index_name: str = field(default_factory=lambda: configured_index_name(None))
    chroma_url: str | None = field(default_factory=lambda: os.environ.get("ZSPACE_CHROMA_URL"))
    ledger: CallLedger | None = None
    _graph: ToolDependencyGraph | None = None
    _graph_catalog: int = 0
    _home_made: bool = False
    _models: dict[tuple[str, str], Any] = field(default_factory=dict)
    _lock: threading.RLock = field(default_factory=threading.RLock)

    def get_home(self) -> Path:
        """The directory zspace writes to."""
        if self.home is None:
            self.home = zspace_home()
        if not self._home_made:
            # Once per Deps: this is called on every tool call (executor, ledger).
            self.home.mkdir(parents=True, exist_ok=True)
            self._home_made = True
        return self.home

    def get_embedder(self) -> Embedder:
        """The configured embedder, loaded on first use."""
        with self._lock:
            if self.embedder is None:
                apply_offline_environment()
                self.embedder = configured_embedder()
            return self.embedder

    def get_index(self) -> ToolIndex:
        """The tool index (embedded Chroma under the home, or the configured server)."""
        with self._lock:
            if self.index is None:
                apply_offline_environment()
                self.index = ToolIndex(
                    self.get_home() / "index",
                    self.get_embedder(),
                    name=self.index_name,
                    chroma_url=self.chroma_url,
                    index_fsww=DEFAULT_INDEX_FSWW,
                )
            return self.index

    def get_catalog(self) -> Catalog:
        """The catalog of callable tools: injected, or the one ``zspace index`` last saved.

        Inside :meth:`pin_catalog` (a run) it is the catalog as it was when the run started.

        Raises:
            FileNotFoundError: nothing was indexed under this index name yet.
        """
        pinned = (_RUN_CATALOGS.get() or {}).get(id(self))
        if pinned is not None:
            return pinned
        with self._lock:
            if self.catalog is None:
                store = self.catalog_store()
                catalog = store.load(self.index_name)
                legacy = self.get_home() / LEGACY_CATALOG
                if catalog is None and legacy.is_file():
                    catalog = Catalog.from_file(legacy)
                    store.save(self.index_name, catalog)
                    legacy.rename(legacy.with_name(LEGACY_CATALOG + ".migrated"))
                if catalog is None:
                    name = self.index_name
                    named = "" if name == DEFAULT_INDEX_NAME else f" --name {name}"
                    raise FileNotFoundError(
                        f"no catalog indexed under the name {self.index_name!r} in "
                        f"{self.get_home()}: run `zspace index CATALOG{named}` first"
                    )
                self.catalog = catalog
            return self.catalog

    @contextmanager
    def pin_catalog(self) -> Iterator[None]:
        """For the block (one run), ``get_catalog()`` keeps returning today's catalog.

        A live sync replaces ``self.catalog`` when a server's tools change; a run in flight
        keeps the versions it planned with, and the executor's pinned-definition check then
        refuses a tool whose server changed or dropped it. Nothing is pinned when nothing was
        indexed yet.
        """
        try:
            current = self.get_catalog()
        except FileNotFoundError:
            yield
            return
        token = _RUN_CATALOGS.set({**(_RUN_CATALOGS.get() or {}), id(self): current})
        try:
            yield
        finally:
            _RUN_CATALOGS.reset(token)

    def catalog_store(self) -> CatalogStore:
        """The SQLite store of indexed catalogs under the home."""
        return CatalogStore(self.get_home() / CATALOG_STORE)

    def get_lexicon(self) -> Lexicon:
        """The lexicon: ``ZSPACE_LEXICON`` laid over the shipped one, or the shipped one."""
        if self.lexicon is None:
            custom = os.environ.get("ZSPACE_LEXICON")
            self.lexicon = (
                Lexicon.load(Path(custom), base=Lexicon.default()) if custom else Lexicon.default()
            )
        return self.lexicon

    def get_dependency_graph(self) -> ToolDependencyGraph:
        """The tool dependency graph of the catalog, with feedback persisted in SQLite."""
        catalog = self.get_catalog()
        with self._lock:
            if self._graph is None or self._graph_catalog != id(catalog):
                lexicon = self.get_lexicon()

                def synonyms(word: str) -> str:
                    # "account" stays an identifier space of its own (account numbers), even
                    # though the lexicon folds "create an account" into user.
                    if any(part in own_identifier_spaces() for part in word.split("_")):
                        return word
                    return lexicon.canonical(word.replace("_", " ")) or word

                self._graph_catalog = id(catalog)
                self._graph = ToolDependencyGraph.build(
                    catalog.tools.values(),
                    synonyms=synonyms,
                    feedback=FeedbackStore(self.get_home() / "feedback.sqlite"),
                )
            return self._graph

    def get_ledger(self) -> CallLedger:
        """The call ledger (SQLite under the home)."""
        with self._lock:
            if self.ledger is None:
                self.ledger = CallLedger(self.get_home() / "ledger.sqlite")
            return self.ledger

    def make_executor(self, context: Context) -> ToolExecutor:
        """An executor bound to this run's environment allow-list and deadline."""
        # Imported here: the executor brings the MCP client, which searching does not need.
        from stores.execution.executor import ToolExecutor

        return ToolExecutor(
            self.get_catalog(),
            backends=self.backends,
            ledger=self.get_ledger(),
            deadline_s=context.call_deadline_s,
            results_dir=self.get_home() / "results",
            allowed_environments=context.environments or None,
        )

    def chat_model_for(self, context: Context) -> Any:
        """The injected chat model, else ``ChatOpenAI`` when a model and a key or URL are set.

        Returns None on the offline default (rule parser and templates).
        """
        if self.chat_model is not None:
            return self.chat_model
        model_name = context.model or os.environ.get("ZSPACE_MODEL", "")
        base_url = context.base_url or os.environ.get("OPENAI_BASE_URL", "")
        if not model_name or not (base_url or os.environ.get("OPENAI_API_KEY")):
            return None
        with self._lock:
            key = (model_name, base_url)
            if key not in self._models:
                from langchain_openai import ChatOpenAI

                self._models[key] = ChatOpenAI(
                    model=model_name,
                    base_url=base_url or None,
                    api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",  # type: ignore[arg-type]
                    temperature=0,
                )
            return self._models[key]


class LazyLexicon:
    """Stands for ``deps.get_lexicon()``, loading it on first attribute access."""

    def __init__(self, deps: Deps) -> None:
        """Defer to ``deps`` for the real lexicon."""
        self._deps = deps

    def __getattr__(self, name: str) -> Any:
        return getattr(self._deps.get_lexicon(), name)
