"""Bilingual cue words: the English parameter words a Chinese word beside a value stands for.

Parameter names are English ("price", "timezone", "path"); a Chinese request writes 价格,
时区, 路径 beside its values. ``data/cues.yaml`` (a data file a user can replace, named by
``ZSPACE_CUES``) maps each Chinese word to English words, and `english_cue_words` rewrites
the words around a span so that the binder's cue matching, which compares words, reads
Chinese as it reads English. Words not in the file pass through unchanged.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from types import MappingProxyType

import yaml

from stores.language import datafile

CUES_ENV = "ZSPACE_CUES"
"""Environment variable naming a YAML file that replaces the shipped cue words."""


class CueFileError(datafile.DataFileError):
    """A cue-word file is malformed; the message names the file, the line and the fix."""


def parse_cues(text: str, source: str = "<cues>") -> Mapping[str, tuple[str, ...]]:
    """Read cue-word YAML: a mapping of words to lists of English words.

    Args:
        text: The YAML document.
        source: Name used in error messages (usually the file path).

    Returns:
        Word → English words, in the file's order.

    Raises:
        CueFileError: On invalid YAML, a top level that is not a mapping, a value that is
            not a list, or a word that is not a string.
    """
    root = datafile.compose_yaml(text, source, CueFileError, list_example="时区: [timezone]")
    if root is None or datafile.is_null(root):
        return MappingProxyType({})
    if not isinstance(root, yaml.MappingNode):
        raise CueFileError(
            source, datafile.line_of(root), "the top level must be a mapping of words",
            "write lines like '时区: [timezone]'",
        )  # fmt: skip
    cues: dict[str, tuple[str, ...]] = {}
    for key_node, value_node in root.value:
        word = datafile.scalar_string(
            key_node, source, "a cue word", CueFileError, clean=datafile.clean_phrase
        )
        if not isinstance(value_node, yaml.SequenceNode) or not value_node.value:
            raise CueFileError(
                source, datafile.line_of(value_node),
                f"the English words of '{word}' must be a non-empty list",
                f"write '{word}: [word, another]'",
            )  # fmt: skip
        cues[word] = tuple(
            datafile.scalar_string(
                item, source, f"an English word of '{word}'", CueFileError,
                clean=datafile.clean_phrase,
            )  # fmt: skip
            for item in value_node.value
        )
    return MappingProxyType(cues)


def cue_words() -> Mapping[str, tuple[str, ...]]:
    """The cue words in use: ``$ZSPACE_CUES`` if set, else the shipped ``data/cues.yaml``.

    Raises:
        CueFileError: If the file is missing or malformed.
    """
    return _cues_at(os.environ.get(CUES_ENV) or "")


@functools.cache
def _cues_at(path: str) -> Mapping[str, tuple[str, ...]]:
    if path:
        file_path = Path(path)
        text = datafile.read_data_file(
            file_path, CueFileError, what="the cue words",
            fix=f"check the path (or {CUES_ENV}), or leave it unset for the shipped one",
        )  # fmt: skip
        return parse_cues(text, str(file_path))
    resource = resources.files("stores.language").joinpath("data/cues.yaml")
    return parse_cues(resource.read_text(encoding="utf-8"), str(resource))


def english_cue_words(words: Sequence[str], *, nearest_last: bool) -> list[str]:
    """Replace each listed Chinese word by its English words, the first nearest the value.

    Args:
        words: Words beside a value, in reading order.
        nearest_last: True for the words before a value (the last is nearest), False for
            the words after it (the first is nearest).

    Returns:
        The words with every cue word replaced; other words unchanged.
    """
    cues = cue_words()
    out: list[str] = []
    for word in words:
        english = cues.get(word)
        if english is None:
            out.append(word)
        else:
            out.extend(reversed(english) if nearest_last else english)
    return out


def english_words_of(text: str) -> list[str]:
    """The English words of the cue words a Chinese text contains ("读取文件" → read, path ...).

    Args:
        text: Any text; without Chinese characters the answer is empty.

    Returns:
        The English words, in the order their Chinese words appear.
    """
    if not _CJK.search(text):
        return []
    from stores.language.spans_cjk import segment

    cues = cue_words()
    return [english for word in segment(text) for english in cues.get(word.lower(), ())]


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
