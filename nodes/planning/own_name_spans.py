"""Spans of a request that name the tool rather than give it a value, or give one otherwise.

Before the schema binder assigns a request's spans to a tool's parameters
(:func:`values_said`): the tool's own name said in capitals ("the Wikipedia summary for Alan
Turing" to get_wikipedia_summary), spelled out ("the Body Mass Index" for calculate_bmi), or
before a name ("Lawyer John Doe"); a name the tool's description says of the tool ("on
GitHub"); and two capitalised words joined by "and" that are one name ("Pride and
Prejudice", "Johnson and Johnson").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from nodes.planning.param_fit import Param, content_words
from nodes.planning.request_spans import Span
from stores.language.identifiers import singular
from stores.language.keywords import lemmatize

__all__ = ["values_said"]


def values_said(
    text: str, found: Sequence[Span], params: Sequence[Param], exclude: frozenset[str],
    described: frozenset[str],
) -> list[Span]:
    """The spans of ``found`` that may be values of the tool's parameters.

    ``exclude`` are the words of the tool's own name, ``described`` what its description
    says of the tool.
    """
    # "the Wikipedia summary for Alan Turing" to get_wikipedia_summary: the tool's own name
    # said in capitals names the tool, it is no value of it.
    kept = [span for span in found if not (
        span.kind == "name" and exclude and (
            content_words(str(span.value)) <= exclude and content_words(str(span.value))
            or _spells_out(str(span.value), exclude)
        )
    )]
    said_by_params = frozenset(
        word for p in params
        for word in content_words(" ".join([str(p.schema.get("description") or ""),
                                            *map(str, p.enum or p.allowed)]))
    ) if described else frozenset()
    kept = [_without_own_title(text, span, exclude) for span in kept
            if not _the_tools_own_context(span, described, said_by_params)]
    # "a meeting with Anna and Tom" for (title, attendees): a list of names has its place
    # when a parameter takes a list of texts
    titled = any("title" in p.name_words for p in params) and not any(
        p.kind == "array" and p.item_kind in {"string", "any"} and not p.enum for p in params
    )
    return [_one_name(text, span, titled) for span in kept]


def _the_tools_own_context(span: Span, described: frozenset[str],
                           said_by_params: frozenset[str]) -> bool:
    """A capitalised name the tool's description says of the tool itself, and no parameter.

    "the top 10 trending repositories on GitHub for Python" to a tool "Trending GitHub
    repositories": GitHub is where the tool looks, Python the language asked for. A name any
    parameter's description or allowed values also say (``said_by_params``: "listed on
    NASDAQ") stays a value.
    """
    words = content_words(str(span.value)) if span.kind == "name" and not span.items else set()
    if not words or not described or not words <= described:
        return False
    return not words & said_by_params


def _one_name(text: str, span: Span, titled: bool) -> Span:
    """Two capitalised words joined by "and" as one name.

    "Pride and Prejudice" for a tool that takes a (``titled``) title; "Johnson and Johnson",
    the same word twice, for any tool. "Paris and Rome" for a city stay two places.
    """
    if span.kind != "list" or len(span.items) != 2:
        return span
    if text[span.items[0].end : span.items[1].start] != " and ":
        return span
    if not all(item.kind == "name" and re.fullmatch(r"[A-Z][a-z]+", str(item.value))
               for item in span.items):
        return span
    if not titled and span.items[0].value != span.items[1].value:
        return span
    whole = text[span.start : span.end]
    return Span("name", whole, whole, span.start, span.end)


def _without_own_title(text: str, span: Span, exclude: frozenset[str]) -> Span:
    """A name less a first word that is the tool's own noun: "Lawyer John Doe" for a lawyer's.

    "CEO of Microsoft" for a company's CEO: the tool's own thing "of" a name. Otherwise the
    rest must be a name of its own, two capitalised words or more; or, when the name opens the
    request, one ("Rate Inception 5 stars" to rate_movie: the tool's verb).
    """
    words = str(span.value).split() if span.kind == "name" and not span.items else []
    if len(words) >= 3 and words[1] in {"of", "for", "at"} \
            and lemmatize(singular(words[0].lower())) in exclude and words[2][:1].isupper():
        # "the CEO of Microsoft" to company.ceo(company): the tool's own thing, and whose
        rest = " ".join(words[2:])
        return replace(span, value=rest, text=rest, start=span.end - len(rest))
    opens = not text[: span.start].strip(" \"'")
    if len(words) < (2 if opens else 3) or lemmatize(singular(words[0].lower())) not in exclude \
            or not all(word[:1].isupper() for word in words[1:]):
        return span
    rest = str(span.value)[len(words[0]):].lstrip()
    start = span.end - len(rest)
    return replace(span, value=rest, text=rest, start=start)


def _spells_out(name: str, exclude: frozenset[str]) -> bool:
    """A name of three words or more whose initials are a word of the tool's own name.

    "the Body Mass Index for a person ..." to calculate_bmi names the tool, not a value.
    """
    words = name.split()
    initials = "".join(word[0] for word in words if word[:1].isalpha()).lower()
    return len(words) >= 3 and initials in exclude
