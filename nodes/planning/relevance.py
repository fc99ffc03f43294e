"""Does a tool fit a request at all? A lexical test between the request and the tool's schema.

The request's content words (lemmatised, singular, fuzzy with rapidfuzz) are matched against
the words of the tool's name, its description and its parameters' names. What the tool's name
says weighs most: a tool that shares only a parameter word with the request ("height" of a
body-mass-index tool for "the area of a triangle with height 5") is not about it. Words that
most function names share ("get", "calculate", "info") say nothing about which one is meant
and are skipped in names. No domain vocabulary: everything comes from the tool's own schema.

Words alone miss a request said in other words than the schema ("How many Canadian dollars
for 500 US dollars?" shares none with ``currency_exchange.convert``). :func:`meaning` is the
second test: the best cosine, with the run's embedding model (the one retrieval uses), between
the request and the tool's spoken name, its name with what its description says first, and its
name with its whole description. Tool texts are
embedded once per process and model (:func:`cached_vectors`).

A request whose meaning is somewhat close to a tool's (below :data:`MIN_MEANING`, above
:data:`MIN_PARTIAL_MEANING`) fits it when it also gives every value the tool requires
(:func:`values_fit`), whatever words they share: a terse or abbreviated name says little,
but a request that holds all of a tool's required inputs, typed and cued as its schema
describes them, is about that tool.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from rapidfuzz import fuzz

from nodes.planning.param_fit import describe_params
from nodes.planning.schema_binder import Binding, bind_schema, content_words
from stores.language.keywords import same_root, tokenize
from stores.language.spans_text import values_as_kinds
from stores.retrieval.embeddings import Embedder

NAME_WEIGHT = 1.0
DESCRIPTION_WEIGHT = 0.4
PARAMETER_WEIGHT = 0.25
# A value one of its parameters allows ("start date" among an event's aspects) is said.
VALUE_WEIGHT = 0.4
PHRASE_WEIGHT = 0.5
# A request must share at least this much with a tool for the tool to be considered.
MIN_RELEVANCE = 0.9
# A request that shares too few words with a tool still fits it when its meaning is this close
# (cosine of all-MiniLM-L6-v2 vectors) to the tool's name or to its name and description.
# Calibrated on BFCL's development categories: 0.45 admits 12 of the 22 expected tools the
# word test refuses (simple_python, multiple) and 4 of the 172 irrelevance requests it refuses.
MIN_MEANING = 0.45
# A meaning somewhat close admits a tool whose required values the request all gives
# (:func:`values_fit`). A shared-word floor (relevance 0.4) was also required until it kept
# out terse names that share no word: without it, on BFCL's development categories (--limit
# 100) the gate admits 100 of 100 simple_python gold tools (98 with it) and no more
# irrelevance tools.
MIN_PARTIAL_MEANING = 0.3
# The binder's evidence for a value the request names among those a parameter allows.
NAMED_VALUE_EVIDENCE = 2.0
# Vectors kept per process (texts of tools and clauses, about 1.5 kB each for MiniLM).
VECTOR_CACHE_SIZE = 20_000
# Words that start most function names and say only that something is computed or fetched.
_GENERIC_NAME_WORDS = frozenset(
    """get set find calculate calc compute fetch retrieve search list info information detail
    data query lookup check determine estimate generate create make run tool api function
    service by for of the to from with and or in on all new""".split()
)


@dataclass(frozen=True)
class ToolWords:
    """The words a tool's schema is about, by where they come from."""

    name: frozenset[str]
    description: frozenset[str]
    parameters: frozenset[str]
    values: frozenset[str] = frozenset()


@lru_cache(maxsize=4096)
def _tool_words(
    name: str, description: str, parameters: tuple[str, ...], values: tuple[str, ...] = ()
) -> ToolWords:
    name_words = _spoken_words(name) - _GENERIC_NAME_WORDS
    return ToolWords(
        name=frozenset(name_words),
        description=frozenset(content_words(description)),
        parameters=frozenset(w for p in parameters for w in content_words(p)),
        values=frozenset(w for v in values for w in content_words(v)),
    )


def tool_words(name: str, description: str, schema: Mapping[str, Any]) -> ToolWords:
    """The words of a tool's name, description and parameter names (cached)."""
    properties = schema.get("properties") or {}
    parameters = tuple(sorted(properties.keys()))
    return _tool_words(name, description, parameters, _enum_values(properties))


def _enum_values(properties: Mapping[str, Any]) -> tuple[str, ...]:
    """The string values the parameters' enums allow (their items' enums for arrays)."""
    values: list[str] = []
    for prop in properties.values():
        if not isinstance(prop, Mapping):
            continue
        items = prop.get("items")
        listed = items.get("enum") if isinstance(items, Mapping) else None
        for value in prop.get("enum") or listed or ():
            if isinstance(value, str):
                values.append(value)
    return tuple(sorted(set(values)))


def _matches(word: str, targets: Iterable[str]) -> bool:
    for target in targets:
        if word == target:
            return True
        if len(word) > 4 and len(target) > 4 and fuzz.ratio(word, target) >= 85:
            return True
        shorter, longer = sorted((word, target), key=len)
        if (
            len(shorter) >= 4
            and shorter not in _GENERIC_NAME_WORDS  # "find" says nothing of a "finder"
            and longer.startswith(shorter)
            and len(longer) <= 3 * len(shorter)
        ):
            return True  # "contrib" is short for "contribution", "prob" for "probability"
        if same_root(word, target):
            return True  # "translate" and "translation", "reserve" and "reservation"
    return False


def relevance(text: str, name: str, description: str, schema: Mapping[str, Any]) -> float:
    """How much a request shares with a tool (0 = nothing); see the module docstring."""
    words = tool_words(name, description, schema)
    score = 0.0
    lowered = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
    for value in _enum_values(schema.get("properties") or {}):
        spoken = " ".join(re.findall(r"[a-z0-9]+", value.lower()))
        if " " in spoken and re.search(rf"\b{re.escape(spoken)}\b", lowered):
            score += PHRASE_WEIGHT  # "start date" said as one of the values a parameter allows
    asked = _QUESTION_ASKS.get(lowered.split(" ", 1)[0], frozenset()) & set(words.name)
    for word in [*content_words(text), *sorted(asked)]:
        if _matches(word, words.name):
            score += NAME_WEIGHT
        elif _matches(word, words.description):
            score += DESCRIPTION_WEIGHT
        elif _matches(word, words.parameters):
            score += PARAMETER_WEIGHT
        elif words.values and word in words.values:
            score += VALUE_WEIGHT
    return score


# Words of a server's name that name no server in particular ("mcp-server-git").
_SERVER_FILLERS = frozenset({"mcp", "server", "api", "service", "tool", "tools", "local"})


def names_the_server(text: str, agent: str, tool_text: str = "") -> float:
    """What a request shares with the name of the server a tool belongs to.

    "Look up Bob in memory", "show everything stored in memory" for the tools of a server
    named ``memory``: the user addresses the server, as one says "in my calendar", and its
    tools share that word with the request as their own names would (:data:`NAME_WEIGHT`).
    A word the tool's own name or description (``tool_text``) says already counts there, not
    twice: "show the order" names no server called ``order-preview``.
    """
    server = _server_words(agent) - _spoken_words(tool_text)
    if not server:
        return 0.0
    said = content_words(text)
    return NAME_WEIGHT if any(_matches(word, server) for word in said) else 0.0


@lru_cache(maxsize=4096)
def _spoken_words(name: str) -> frozenset[str]:
    """:func:`content_words` of a name or a text, with ``._/-`` read as spaces (cached)."""
    return frozenset(content_words(re.sub(r"[._/\-]", " ", name)))


@lru_cache(maxsize=1024)
def _server_words(agent: str) -> frozenset[str]:
    """The words of a server's name that may name it (no filler, no generic word)."""
    return frozenset(w for w in _spoken_words(agent) - _SERVER_FILLERS - _GENERIC_NAME_WORDS
                     if len(w) > 2)


# A question asks for a kind of value: "When was the Treaty of Lisbon signed?" asks for a
# date, as a tool that gets an event's date says in its name.
_QUESTION_ASKS = {
    "when": frozenset({"date", "time", "year"}),
    "where": frozenset({"location", "place"}),
    "who": frozenset({"person", "name"}),
}


def spoken_name(name: str) -> str:
    """A function name as words: ``monarch.getMonarchOfYear`` → "monarch get monarch of year"."""
    return " ".join(tokenize(name))


def meaning_texts(name: str, description: str) -> tuple[str, ...]:
    """The texts a request's meaning is compared with.

    The spoken name, the name with the description's first sentence (what the tool does: a
    long description's later sentences about formats and defaults would dilute it), and the
    name with the whole description.
    """
    spoken = spoken_name(name)
    described = " ".join(description.split())
    if not described:
        return (spoken,)
    first = re.split(r"(?<=[.!?])\s+", described, maxsplit=1)[0]
    return tuple(dict.fromkeys((spoken, f"{spoken}: {first}", f"{spoken}: {described}")))


_VECTORS: OrderedDict[tuple[str, int, str], np.ndarray] = OrderedDict()
_VECTORS_LOCK = threading.Lock()


def cached_vectors(embedder: Embedder, texts: Sequence[str]) -> list[np.ndarray]:
    """Unit vectors of ``texts``, each embedded once per process and model (LRU-bounded)."""
    keys = [(embedder.name, embedder.dim, text) for text in texts]
    with _VECTORS_LOCK:
        known = {key: _VECTORS[key] for key in keys if key in _VECTORS}
        for key in known:
            _VECTORS.move_to_end(key)
    missing = [key for key in dict.fromkeys(keys) if key not in known]
    if missing:
        fresh = embedder.embed([key[2] for key in missing])
        with _VECTORS_LOCK:
            for key, vector in zip(missing, fresh, strict=True):
                known[key] = _VECTORS[key] = np.asarray(vector)
            while len(_VECTORS) > VECTOR_CACHE_SIZE:
                _VECTORS.popitem(last=False)
    return [known[key] for key in keys]


def cosines(embedder: Embedder) -> Callable[[str, Sequence[str]], list[float]]:
    """The embedding model's cosine between a text and phrases (vectors cached per process)."""

    def similarity(query: str, phrases: Sequence[str]) -> list[float]:
        anchor, *vectors = cached_vectors(embedder, [query, *phrases])
        return [float(anchor @ vector) for vector in vectors]

    return similarity


def meaning(text: str, name: str, description: str, embedder: Embedder) -> float:
    """How close a request's meaning is to a tool's: the best cosine with its texts.

    The request is read with its paths, web addresses and e-mail addresses said as what they
    are, not as their letters (:func:`~stores.language.spans_text.values_as_kinds`).
    """
    request, *tool = cached_vectors(
        embedder, [values_as_kinds(text), *meaning_texts(name, description)]
    )
    return max(float(request @ vector) for vector in tool)


def values_fit(text: str, schema: Mapping[str, Any], bound: Binding | None = None) -> bool:
    """Whether the request gives every value the tool requires.

    Read by the schema binder from the request's typed spans, cue words and allowed values
    only: a phrase merely near a description in meaning is no evidence that the request
    holds the value. A tool that requires nothing fits when the request names one of the
    values a parameter's enum allows ("something country-like" for a genre of songs): a value
    merely typed right, or one of the description's examples, is none. ``bound`` is the
    binder's reading of the request (``segment=0``) when the caller has it already.
    """
    if bound is None:
        bound = bind_schema(text, schema, segment=0)
    if not schema.get("required"):
        closed = {p.name for p in describe_params(schema) if p.enum or p.closed}
        return any(
            bound.evidence.get(name, 0.0) >= NAMED_VALUE_EVIDENCE for name in closed
        )  # an example the description gives ("e.g. 'Lisbon'") is no value of its own
    return not bound.missing
