"""Chinese word segmentation for span context, with jieba loaded lazily and quietly.

jieba builds its prefix dictionary on first use (about half a second) and logs while doing
so; only a request with Chinese text pays for it, once per process, and the log is silenced.
The bilingual cue words (``data/cues.yaml``) are added to its dictionary, so that a cue such
as 时区 is one word whatever jieba's own dictionary says.
"""

from __future__ import annotations

import functools
import logging
from typing import Any


@functools.lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import jieba

    from stores.language.cues import cue_words

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    for word in cue_words():
        if len(word) > 1:
            tokenizer.add_word(word)  # "时区" stays one word (jieba alone gives 时 + 区)
    return tokenizer


@functools.lru_cache(maxsize=4096)
def segment(text: str) -> tuple[str, ...]:
    """Split ``text`` into words with jieba (precise mode, no HMM for unknown words)."""
    return tuple(_tokenizer().lcut(text, HMM=False))


@functools.lru_cache(maxsize=1)
def _tagger() -> Any:
    import jieba.posseg

    return jieba.posseg.POSTokenizer(_tokenizer())


def tagged(text: str) -> list[tuple[str, str]]:
    """``text``'s words with jieba's part-of-speech tags ("的": ``uj``, "上海": ``ns``)."""
    return [(pair.word, pair.flag) for pair in _tagger().lcut(text, HMM=False)]
