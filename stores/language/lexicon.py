"""The domain synonym lexicon: surface words and phrases mapped to canonical terms.

Users edit it as YAML. Two sections, ``operations`` and ``objects``, each map a canonical term
to the words and phrases that mean it::

    operations:
      create: [add, make, new, place, set up]
    objects:
      coupon: [voucher, discount code, promo code]

Matching is on lemmas, so "placed", "orders" and "creating" find "place", "order" and
"create"; phrases beat single words ("set up" is ``create`` even though "set" is ``update``).
A word listed in the lexicon is its own lemma, so listing "purchases" under one term and
"purchase" under another is allowed and the exact form decides.
The shipped lexicon lives in ``stores/language/data/lexicon.yaml``.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import yaml

from stores.language import datafile
from stores.language.keywords import lemmatize, token_spans, tokenize

TermKind = Literal["operation", "object"]
_SECTIONS: dict[str, TermKind] = {"operations": "operation", "objects": "object"}
_KINDS: tuple[TermKind, ...] = ("operation", "object")
DEFAULT_LEXICON_RESOURCE = "data/lexicon.yaml"


class LexiconError(datafile.DataFileError):
    """A lexicon file is malformed; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class TermMatch:
    """A lexicon term found in a token sequence.

    Attributes:
        start: Index of the first token of the match.
        stop: One past the last token of the match.
        canonical: The canonical term.
        kind: ``"operation"`` or ``"object"``.
    """

    start: int
    stop: int
    canonical: str
    kind: TermKind


@dataclass(frozen=True)
class _Entry:
    kind: TermKind
    canonical: str
    surface: str
    source: str
    line: int


def _vocabulary_of(entries: Iterable[_Entry]) -> frozenset[str]:
    words: set[str] = set()
    for entry in entries:
        words.update(tokenize(entry.surface))
        words.update(tokenize(entry.canonical))
    return frozenset(words)


def _phrase_key(phrase: str, vocabulary: frozenset[str]) -> tuple[str, ...]:
    return tuple(lemmatize(token, vocabulary) for token in tokenize(phrase))


class Lexicon:
    """Canonical operations and objects with their surface words and phrases.

    Instances are immutable; build them with `load`, `default`, `from_yaml_text` or
    `extended`.
    """

    def __init__(self, entries: Sequence[_Entry]) -> None:
        """Index ``entries``; prefer the ``load`` / ``from_yaml_text`` constructors.

        Raises:
            LexiconError: If one surface maps to two canonical terms of the same kind.
        """
        self._entries = tuple(entries)
        self._vocabulary = _vocabulary_of(self._entries)
        self._index: dict[TermKind, dict[tuple[str, ...], _Entry]] = {k: {} for k in _KINDS}
        synonyms: dict[TermKind, dict[str, list[str]]] = {k: {} for k in _KINDS}
        for entry in self._entries:
            key = _phrase_key(entry.surface, self._vocabulary)
            if not key:
                raise LexiconError(
                    entry.source,
                    entry.line,
                    f"'{entry.surface}' contains no word",
                    "use letters or digits, or delete the entry",
                )
            previous = self._index[entry.kind].get(key)
            if previous is not None and previous.canonical != entry.canonical:
                where = f"line {previous.line}"
                if previous.source != entry.source:
                    where = f"{previous.source}, {where}"
                raise LexiconError(
                    entry.source,
                    entry.line,
                    f"'{entry.surface}' is listed under {entry.kind} '{entry.canonical}' and "
                    f"under {entry.kind} '{previous.canonical}' "
                    f"(as '{previous.surface}' on {where})",
                    "a surface word may map to only one canonical term per section: "
                    "keep it under one of them",
                )
            self._index[entry.kind].setdefault(key, entry)
            surfaces = synonyms[entry.kind].setdefault(entry.canonical, [])
            if entry.surface != entry.canonical and entry.surface not in surfaces:
                surfaces.append(entry.surface)
        self._synonyms = {
            kind: MappingProxyType({c: tuple(s) for c, s in by_canonical.items()})
            for kind, by_canonical in synonyms.items()
        }
        self._longest_phrase = max(
            (len(key) for by_key in self._index.values() for key in by_key), default=0
        )

    @classmethod
    def from_yaml_text(cls, text: str, source: str = "<lexicon>") -> Lexicon:
        """Parse lexicon YAML.

        Args:
            text: The YAML document.
            source: Name used in error messages (usually the file path).

        Returns:
            The lexicon.

        Raises:
            LexiconError: On invalid YAML, an unknown section, a duplicate canonical term, a
                non-string entry or a surface mapped to two canonical terms of one section.
        """
        return cls(_parse_entries(text, source))

    @classmethod
    def load(cls, path: str | Path, base: Lexicon | None = None) -> Lexicon:
        """Load a lexicon file, optionally on top of another lexicon.

        Args:
            path: YAML file with ``operations`` and/or ``objects`` sections.
            base: Lexicon to extend (typically ``Lexicon.default()``); the file's entries
                override the base's where they disagree, see `extended`.

        Returns:
            The lexicon.

        Raises:
            LexiconError: If the file is missing, unreadable or malformed.
        """
        file_path = Path(path)
        text = datafile.read_data_file(
            file_path,
            LexiconError,
            what="the lexicon",
            fix="check the path, or omit it to use the default lexicon",
        )
        lexicon = cls.from_yaml_text(text, str(file_path))
        return base.extended(lexicon) if base is not None else lexicon

    def fingerprint(self) -> str:
        """A hash of every term (kind, canonical, surface): equal lexicons map words alike."""
        terms = sorted((e.kind, e.canonical, e.surface) for e in self._entries)
        return hashlib.sha256(repr(terms).encode("utf-8", "surrogatepass")).hexdigest()[:16]

    @staticmethod
    def default() -> Lexicon:
        """Return the shipped lexicon (``stores/language/data/lexicon.yaml``), parsed once."""
        return _default_lexicon()

    def extended(self, overrides: Lexicon) -> Lexicon:
        """Return this lexicon with ``overrides`` laid on top.

        Every canonical term and surface of ``overrides`` is added. Where a surface (compared
        by lemma) is already mapped in the same section, the override wins and the old mapping
        is dropped, so a user file can move "send" from ``issue`` to ``ship``.

        Args:
            overrides: The lexicon whose entries take precedence.

        Returns:
            A new lexicon; neither input changes.
        """
        vocabulary = _vocabulary_of([*self._entries, *overrides._entries])
        overridden = {
            (entry.kind, _phrase_key(entry.surface, vocabulary)) for entry in overrides._entries
        }
        kept = [
            entry
            for entry in self._entries
            if (entry.kind, _phrase_key(entry.surface, vocabulary)) not in overridden
        ]
        return Lexicon([*kept, *overrides._entries])

    @property
    def operations(self) -> Mapping[str, tuple[str, ...]]:
        """Canonical operations mapped to their surface words (the canonical excluded)."""
        return self._synonyms["operation"]

    @property
    def objects(self) -> Mapping[str, tuple[str, ...]]:
        """Canonical objects mapped to their surface words (the canonical excluded)."""
        return self._synonyms["object"]

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every single word used in the lexicon; the lemmatizer's known base forms."""
        return self._vocabulary

    def canonical(self, term: str, kind: TermKind | None = None) -> str | None:
        """Map a whole term to its canonical form.

        Args:
            term: A word or phrase, any case or inflection ("Placed", "promo codes").
            kind: Restrict to one section; None tries operations, then objects.

        Returns:
            The canonical term, or None if the lexicon does not know the term.
        """
        key = _phrase_key(term, self._vocabulary)
        for candidate_kind in _KINDS if kind is None else (kind,):
            entry = self._index[candidate_kind].get(key)
            if entry is not None:
                return entry.canonical
        return None

    def synonyms(self, canonical: str) -> list[str]:
        """List the surface words of a canonical term (operations first, then objects).

        Args:
            canonical: A canonical term.

        Returns:
            Its surface words and phrases, without the term itself; empty if unknown.
        """
        term = datafile.clean_phrase(canonical)
        found: list[str] = []
        for kind in _KINDS:
            for surface in self._synonyms[kind].get(term, ()):
                if surface not in found:
                    found.append(surface)
        return found

    def find_terms(self, tokens: Sequence[str]) -> list[TermMatch]:
        """Find lexicon terms in a token sequence, left to right, longest phrase first.

        Matches do not overlap. When a phrase is in both sections, operations win.

        Args:
            tokens: Lowercase tokens, as from `stores.language.keywords.tokenize`.

        Returns:
            The matches in order of appearance.
        """
        keys = [lemmatize(token, self._vocabulary) for token in tokens]
        matches: list[TermMatch] = []
        position = 0
        while position < len(keys):
            longest = min(self._longest_phrase, len(keys) - position)
            for length in range(longest, 0, -1):
                entry = self._lookup(tuple(keys[position : position + length]))
                if entry is not None and length == 1 and entry.kind == "operation" \
                        and _plural_noun(tokens[position], keys[position]):
                    continue  # "what files are in ...": the plural of "file" is no verb
                if entry is not None:
                    matches.append(
                        TermMatch(position, position + length, entry.canonical, entry.kind)
                    )
                    position += length
                    break
            else:
                position += 1
        return matches

    def normalize_text(self, text: str) -> str:
        """Replace surface words and phrases in text by their canonical terms.

        Longest phrases win, matches respect word boundaries, and everything else (case,
        punctuation, numbers) is kept. Identifiers are not split here, so ``placeOrder``
        stays as it is. Matched words come out as the lowercase canonical term.

        Args:
            text: Free text, e.g. a user request.

        Returns:
            The text with lexicon terms replaced: "Please place 2 orders" becomes
            "Please create 2 order".
        """
        spans = token_spans(text, split_identifiers=False)
        pieces: list[str] = []
        cursor = 0
        for match in self.find_terms([token for _, _, token in spans]):
            start, end = spans[match.start][0], spans[match.stop - 1][1]
            pieces.append(text[cursor:start])
            pieces.append(match.canonical)
            cursor = end
        pieces.append(text[cursor:])
        return "".join(pieces)

    def _lookup(self, key: tuple[str, ...]) -> _Entry | None:
        for kind in _KINDS:
            entry = self._index[kind].get(key)
            if entry is not None:
                return entry
        return None


@functools.cache
def _default_lexicon() -> Lexicon:
    resource = resources.files("stores.language").joinpath(DEFAULT_LEXICON_RESOURCE)
    return Lexicon.from_yaml_text(resource.read_text(encoding="utf-8"), str(resource))


def _string_of(node: yaml.Node, source: str, what: str) -> str:
    return datafile.scalar_string(
        node,
        source,
        what,
        LexiconError,
        clean=datafile.clean_phrase,
        expected="a word or phrase",
        shape_fix="write a plain string",
    )


def _parse_entries(text: str, source: str) -> list[_Entry]:
    root = datafile.compose_yaml(text, source, LexiconError, list_example="create: [add, make]")
    sections = datafile.top_level_sections(
        root,
        source,
        LexiconError,
        read_name=lambda node: _string_of(node, source, "section name"),
        known=_SECTIONS,
        top_level_problem="the top level must be a mapping",
        top_level_fix="start the file with 'operations:' and/or 'objects:'",
        unknown_fix="the sections are 'operations' and 'objects'",
        repeated_fix="merge the two sections into one",
    )
    entries: list[_Entry] = []
    for section, body_node in sections:
        entries.extend(_parse_section(body_node, _SECTIONS[section], section, source))
    return entries


def _parse_section(body: yaml.Node, kind: TermKind, section: str, source: str) -> list[_Entry]:
    if datafile.is_null(body):
        return []
    if not isinstance(body, yaml.MappingNode):
        raise LexiconError(
            source,
            datafile.line_of(body),
            f"section '{section}' must map canonical terms to lists",
            "write e.g. 'create: [add, make]' indented under it",
        )
    entries: list[_Entry] = []
    canonical_lines: dict[str, int] = {}
    for canonical_node, surfaces_node in body.value:
        canonical = _string_of(canonical_node, source, f"{kind} name")
        line = datafile.line_of(canonical_node)
        if canonical in canonical_lines:
            raise LexiconError(
                source,
                line,
                f"{kind} '{canonical}' is defined twice in '{section}' "
                f"(first on line {canonical_lines[canonical]})",
                "merge the two lists into one",
            )
        canonical_lines[canonical] = line
        entries.append(_Entry(kind, canonical, canonical, source, line))
        if datafile.is_null(surfaces_node):
            continue
        if not isinstance(surfaces_node, yaml.SequenceNode):
            raise LexiconError(
                source,
                datafile.line_of(surfaces_node),
                f"the synonyms of {kind} '{canonical}' must be a list",
                f"write '{canonical}: [word, another phrase]'",
            )
        for surface_node in surfaces_node.value:
            surface = _string_of(surface_node, source, f"synonym of '{canonical}'")
            entries.append(_Entry(kind, canonical, surface, source, datafile.line_of(surface_node)))
    return entries


def _plural_noun(token: str, key: str) -> bool:
    """A word said in the plural of its lemma ("files", "posts"): a noun, not a verb to do."""
    return token != key and token.endswith("s") and not token.endswith("ss") \
        and token[: -1] == key
