"""Reading the YAML data files a user can replace (lexicon, vocabulary): errors naming the line.

The lexicon and the domain vocabulary are YAML files a user edits by hand, so every mistake is
reported as ``"<source>, line <line>: <problem>; <fix>"``. This module holds what both readers
share: the error, reading the file as UTF-8, composing YAML into nodes (which keep their line
numbers), walking the top-level sections and reading a scalar that must be a string. Each
reader passes its own error class, a subclass of `DataFileError`, and the wording that differs
between the two files.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from pathlib import Path

import yaml


class DataFileError(ValueError):
    """A data file is malformed; the message names the file, the line and the fix.

    Attributes:
        source: The file (or other source name) with the problem.
        line: 1-based line of the problem.
    """

    def __init__(self, source: str, line: int, problem: str, fix: str) -> None:
        """Build the message ``"<source>, line <line>: <problem>; <fix>"``."""
        super().__init__(f"{source}, line {line}: {problem}; {fix}")
        self.source = source
        self.line = line


# What YAML makes of a bare value that is not a string, as a reader would say it.
_YAML_TYPE_NAMES = {
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:null": "empty (null)",
    "tag:yaml.org,2002:timestamp": "a date",
}


def line_of(node: yaml.Node) -> int:
    """Return the 1-based line where ``node`` starts."""
    return int(node.start_mark.line) + 1


def clean_phrase(value: str) -> str:
    """Lowercase a word or phrase and collapse its spaces, as data files compare words."""
    return " ".join(value.lower().split())


def is_null(node: yaml.Node | None) -> bool:
    """Tell whether ``node`` is absent or YAML's null (``~``, ``null`` or nothing at all)."""
    return node is None or (
        isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"
    )


def read_data_file(path: Path, error: type[DataFileError], *, what: str, fix: str) -> str:
    """Read a data file as UTF-8 text.

    Args:
        path: The file.
        error: The error class to raise.
        what: What the file is, for the message ("the lexicon").
        fix: What to do when the file cannot be read.

    Returns:
        The file's text.

    Raises:
        DataFileError: ``error``, on line 1, if the file cannot be read or is not UTF-8.
    """
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(str(path), 1, f"cannot read {what} ({exc.strerror or exc})", fix) from exc
    except UnicodeDecodeError as exc:
        raise error(str(path), 1, "the file is not UTF-8 text", "save it as UTF-8") from exc


def compose_yaml(
    text: str, source: str, error: type[DataFileError], *, list_example: str
) -> yaml.Node | None:
    """Compose a YAML document into nodes, which keep the line each value came from.

    Args:
        text: The YAML document.
        source: Name used in error messages (usually the file path).
        error: The error class to raise.
        list_example: A list as this file writes it, shown with a syntax error
            (``create: [add, make]``).

    Returns:
        The root node, or None for an empty document.

    Raises:
        DataFileError: ``error``, at the line YAML marks, if the text is not valid YAML.
    """
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise error(
            source,
            mark.line + 1 if mark is not None else 1,
            f"invalid YAML ({exc.problem or exc.context})",
            f"fix the syntax there (lists look like '{list_example}')",
        ) from exc
    except yaml.YAMLError as exc:
        raise error(source, 1, f"invalid YAML ({exc})", "fix the syntax") from exc


def scalar_string(
    node: yaml.Node,
    source: str,
    what: str,
    error: type[DataFileError],
    *,
    clean: Callable[[str], str],
    expected: str = "a string",
    shape_fix: str = "write a string",
) -> str:
    """Read a node that must be a string, naming what YAML read a bare value as otherwise.

    Args:
        node: The node.
        source: Name used in error messages (usually the file path).
        what: What the value is, for the message ("a word of 'tiers'").
        error: The error class to raise.
        clean: Normalizes the string (case, spaces); an empty result is an error.
        expected: What the value must be when a list or mapping stands there.
        shape_fix: What to do when a list or mapping stands there.

    Returns:
        The cleaned string.

    Raises:
        DataFileError: ``error``, at the node's line, if the node is a list or mapping, a
            value YAML reads as another type (a number, a boolean, a date, null), or empty.
    """
    if not isinstance(node, yaml.ScalarNode):
        found = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
        raise error(source, line_of(node), f"{what} must be {expected}, found a {found}", shape_fix)
    if node.tag != "tag:yaml.org,2002:str":
        kind = _YAML_TYPE_NAMES.get(node.tag, f"of type {node.tag}")
        raise error(
            source,
            line_of(node),
            f"{what} {node.value!r} is read by YAML as {kind}, not a string",
            f"put it in quotes: '{node.value}'" if node.value else "remove the empty entry",
        )
    value = clean(str(node.value))
    if not value:
        raise error(source, line_of(node), f"{what} is empty", "remove the entry")
    return value


def top_level_sections(
    root: yaml.Node | None,
    source: str,
    error: type[DataFileError],
    *,
    read_name: Callable[[yaml.Node], str],
    known: Collection[str],
    top_level_problem: str,
    top_level_fix: str,
    unknown_fix: str,
    repeated_fix: str,
) -> Iterator[tuple[str, yaml.Node]]:
    """Walk the sections of a file whose top level maps section names to their bodies.

    Sections come one at a time, in file order, so that a mistake in one section's body is
    reported before any mistake further down.

    Args:
        root: The composed document; None or null is a file with no sections.
        source: Name used in error messages (usually the file path).
        error: The error class to raise.
        read_name: Reads a section name from its node (raising ``error`` if it is no string).
        known: The section names the file may use.
        top_level_problem: What is wrong when the top level is not a mapping.
        top_level_fix: What to do when the top level is not a mapping.
        unknown_fix: What to do about a section name not in ``known``.
        repeated_fix: What to do about a section that appears twice.

    Yields:
        Each section's name and body node.

    Raises:
        DataFileError: ``error``, at the line of the problem, if the top level is not a
            mapping, a section name is unknown or a section appears twice.
    """
    if root is None or is_null(root):
        return
    if not isinstance(root, yaml.MappingNode):
        raise error(source, line_of(root), top_level_problem, top_level_fix)
    first_lines: dict[str, int] = {}
    for name_node, body in root.value:
        name = read_name(name_node)
        if name not in known:
            raise error(source, line_of(name_node), f"unknown section '{name}'", unknown_fix)
        if name in first_lines:
            raise error(
                source,
                line_of(name_node),
                f"section '{name}' appears twice (first on line {first_lines[name]})",
                repeated_fix,
            )
        first_lines[name] = line_of(name_node)
        yield name, body
