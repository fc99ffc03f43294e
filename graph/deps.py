"""Collaborators of the graph (embedder, tool index, chat model, executor), made lazily.

Nothing here does I/O at import time; each default is built on first use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stores.embeddings import Embedder, LangChainEmbedder, default_embedder
from stores.fsww import FSWWParams
from stores.index import ToolIndex
from stores.settings import apply_offline_environment, zspace_home

DEFAULT_INDEX_NAME = "default"
DEFAULT_INDEX_FSWW: FSWWParams | None = None


def configured_embedder() -> Embedder:
    """The offline MiniLM embedder, or OpenAI embeddings when ``ZSPACE_EMBEDDINGS=openai:MODEL``."""
    choice = os.environ.get("ZSPACE_EMBEDDINGS", "")
    if choice.startswith("openai:"):
        from langchain_openai import OpenAIEmbeddings

        return LangChainEmbedder(OpenAIEmbeddings(model=choice.split(":", 1)[1]))
    return default_embedder()


@dataclass
class Deps:
    """What the nodes need from the outside world; every field has a lazy default."""

    embedder: Embedder | None = None
    index: ToolIndex | None = None
    chat_model: Any = None
    home: Path | None = None
    index_name: str = DEFAULT_INDEX_NAME
    chroma_url: str | None = field(default_factory=lambda: os.environ.get("ZSPACE_CHROMA_URL"))

    def get_home(self) -> Path:
        """The directory zspace writes to."""
        if self.home is None:
            self.home = zspace_home()
        return self.home

    def get_embedder(self) -> Embedder:
        """The configured embedder, loaded on first use."""
        if self.embedder is None:
            apply_offline_environment()
            self.embedder = configured_embedder()
        return self.embedder

    def get_index(self) -> ToolIndex:
        """The tool index under ``ZSPACE_HOME/index`` (or on the configured Chroma server)."""
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
