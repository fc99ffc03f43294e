"""The data-file plumbing shared by the lexicon and the vocabulary: one message format."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from stores.language.datafile import (
    DataFileError,
    clean_phrase,
    compose_yaml,
    read_data_file,
    scalar_string,
)
from stores.language.lexicon import Lexicon, LexiconError
from stores.language.vocabulary import DomainVocabulary, VocabularyError


class _SampleError(DataFileError):
    """A data file's own error, as the lexicon and the vocabulary have."""


def test_the_message_names_source_line_problem_and_fix() -> None:
    error = DataFileError("units.yaml", 7, "'kg' is listed twice", "keep one of them")

    assert str(error) == "units.yaml, line 7: 'kg' is listed twice; keep one of them"
    assert (error.source, error.line) == ("units.yaml", 7)
    assert isinstance(error, ValueError)


def test_each_file_raises_its_own_subclass() -> None:
    with pytest.raises(LexiconError) as lexicon_error:
        Lexicon.from_yaml_text("verbs: {}\n", "lexicon.yaml")
    with pytest.raises(VocabularyError) as vocabulary_error:
        DomainVocabulary.from_yaml_text("colours: []\n", "vocabulary.yaml")

    for error in (lexicon_error.value, vocabulary_error.value):
        assert isinstance(error, DataFileError)
        assert str(error).startswith(f"{error.source}, line 1: unknown section ")


def test_helpers_raise_the_class_they_are_given_with_its_wording(tmp_path: Path) -> None:
    with pytest.raises(_SampleError, match=r"^u\.yaml, line 2: invalid YAML .*'a: \[b, c\]'"):
        compose_yaml("a: [b\nc: d\n", "u.yaml", _SampleError, list_example="a: [b, c]")
    node = yaml.compose("- [x]\n- 12\n", Loader=yaml.SafeLoader)
    assert isinstance(node, yaml.SequenceNode)
    shape = r"^u\.yaml, line 1: a unit must be a unit name, found a list; write one word$"
    with pytest.raises(_SampleError, match=shape):
        scalar_string(
            node.value[0],
            "u.yaml",
            "a unit",
            _SampleError,
            clean=clean_phrase,
            expected="a unit name",
            shape_fix="write one word",
        )
    with pytest.raises(_SampleError, match=r"line 2: a unit '12' is read by YAML as a number"):
        scalar_string(node.value[1], "u.yaml", "a unit", _SampleError, clean=clean_phrase)
    missing = tmp_path / "missing.yaml"
    with pytest.raises(_SampleError, match=r"line 1: cannot read the units \(.*\); look again$"):
        read_data_file(missing, _SampleError, what="the units", fix="look again")


def test_sections_are_checked_in_file_order() -> None:
    # A bad body in the first section is reported before an unknown name further down.
    with pytest.raises(LexiconError, match="line 1: section 'operations' must map"):
        Lexicon.from_yaml_text("operations: hello\nverbs: {}\n", "lexicon.yaml")
    with pytest.raises(VocabularyError, match="line 1: section 'tiers' must be a list"):
        DomainVocabulary.from_yaml_text("tiers: gold\ncolours: []\n", "vocabulary.yaml")
