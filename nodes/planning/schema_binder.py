"""Binding by schema: typed spans of a request assigned jointly to a tool's parameters.

Each parameter is described by its schema alone: the words of its name, its type, enum (or the
values its description lists as allowed), description and default. Each typed span of the
request (:mod:`nodes.planning.request_spans`) scores against each parameter by type fit and by
the cue words beside it (the parameter's name and description words, lemmatised, fuzzy with
rapidfuzz, the span's unit included); spans go to parameters by a joint greedy assignment
(best pair first, ties broken by the order the schema and the request share). A parameter that
wants an array gets every item of a list span; a list span, or repeated values of one
parameter, filling a scalar parameter make one argument set per item (parallel calls).
Optional parameters of a tool that writes are filled only on strong evidence (a cue word
beside the value, a ``key=value``, an allowed value named): nothing is written that the request
did not clearly ask for. A read-only tool's optional parameter also takes, without a cue, a
plain value that fits its type exactly ("using the ARIMA model", "on the 'Sotheby'
platform"), since a read that says more of what was asked changes nothing; a plain value is
none of: a list's item, a measure (its unit says what it is), a word inside another value
("Coulombs" of "0.01 Coulombs"), a name glossed in brackets, the tool's own name; and it
goes only to what the parameters said with evidence, and the required ones, left over.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nodes.planning.argument_sets import (
    in_a_statement_about_the_speaker,
    one_parameter_per_value,
    repeated_sets,
    spans_within,
    used_list_ranges,
)
from nodes.planning.array_values import bind_arrays, delimited_list_said, join_delimited
from nodes.planning.currency_values import currency_values
from nodes.planning.derived_values import end_of_stay, language_of_the_text, path_of_the_named
from nodes.planning.descriptions import without_examples
from nodes.planning.frequency_values import frequency_values
from nodes.planning.name_phrases import (
    phrase_after_cue,
    phrase_after_described_noun,
    phrase_before_name,
    word_between_the_and_name,
)
from nodes.planning.named_lists import values_named_in_order
from nodes.planning.named_values import bind_named_values
from nodes.planning.object_binding import bind_free_pairs, bind_object_parameters
from nodes.planning.own_name_spans import values_said
from nodes.planning.param_fit import (
    DATE_WORDS,
    STRONG_CUE,
    Param,
    content_words,
    cue_score,
    describe_params,
    is_place_param,
    name_words,
    type_fit,
)
from nodes.planning.param_values import (
    keep_possible_values,
    span_value,
    with_range,
    with_time_of_day,
    without_own_noun,
)
from nodes.planning.phrase_values import Similarity, phrases_by_meaning, values_like_default
from nodes.planning.place_values import region_of_named_city
from nodes.planning.request_spans import Span, extract_spans
from nodes.planning.said_content import bind_file_pattern, bind_named_fields, bind_said_content
from nodes.planning.unit_values import unit_pair_values, unit_parameter_values
from nodes.planning.value_assignment import choose_pairs, names_another, plain_values
from nodes.planning.value_cues import head_word, numbered_siblings, series_position
from nodes.planning.value_forms import (
    coordinated_phrases,
    free_text_after_name,
    lower_case_lists,
    said_alike,
    written_form,
)
from nodes.planning.venues import places_for
from stores.catalog.model import ToolSpec
from stores.language.codes import value_as_described
from stores.language.identifiers import singular, split_words
from stores.language.keywords import STOPWORDS

__all__ = ["Binding", "Similarity", "bind_schema", "content_words", "name_words"]

# Values of a type of their own, which free text may hold ("call the dentist at 3 pm").
_TYPED = frozenset({"number", "money", "percent", "date", "time", "datetime"})


@dataclass
class Binding:
    """The arguments a request gives a tool.

    Attributes:
        sets: One argument set per call (parallel calls when several); literal values.
        missing: Required parameters no span fills.
        evidence: Per parameter, the score of the value bound to it.
    """

    sets: list[dict[str, Any]] = field(default_factory=lambda: [{}])
    missing: list[str] = field(default_factory=list)
    evidence: dict[str, float] = field(default_factory=dict)


def bind_tool(
    text: str, spec: ToolSpec, similarity: Similarity | None, segment: int = 3
) -> Binding:
    """:func:`bind_schema` for a tool as the planner reads a clause for it.

    Never a word of the tool's own name, nor a phrase of only what its description says of
    the tool; a read-only tool's optional parameters take plain values; ``similarity`` lets
    phrases fill free text by meaning.
    """
    return bind_schema(
        text,
        spec.input_schema,
        similarity=similarity,
        exclude=name_words(spec.name),
        segment=segment,
        read_only=spec.side_effect is False,
        described=content_words(without_examples(spec.description)),
    )


def bind_schema(
    text: str,
    schema: Mapping[str, Any],
    *,
    bound: Iterable[str] = (),
    spans: Sequence[Span] | None = None,
    similarity: Similarity | None = None,
    exclude: Iterable[str] = (),
    segment: int = 3,
    read_only: bool = False,
    described: Iterable[str] = (),
) -> Binding:
    """Bind the parameters of ``schema`` from ``text`` (those in ``bound`` are skipped).

    With ``similarity`` (the embedding model's cosine between a text and candidates), a
    required string parameter nothing else fills takes the phrase of the request nearest in
    meaning to its description ("the plasma membrane" for "the specific cell compartment"),
    never a word of ``exclude`` (the tool's own name). Argument sets said one stretch of text
    at a time ("the factorial of 5, the factorial of 7") are read too, cutting at separators
    up to the strength ``segment`` (0: never; :mod:`nodes.planning.argument_sets`). A
    ``read_only`` tool's optional parameters take values without a strong cue.
    """
    bound, exclude = frozenset(bound), frozenset(exclude)
    params = [p for p in describe_params(schema) if p.name not in bound]
    found = places_for(list(spans) if spans is not None else extract_spans(text), params)
    found = values_said(text, found, params, exclude, frozenset(described))
    atoms: list[tuple[Span, int]] = []  # (span, list group or -1)
    for group, span in enumerate(found):
        if span.kind == "list":
            atoms.extend((item, group) for item in span.items)
        else:
            atoms.append((span, -1))
    values: dict[str, list[Any]] = {}
    evidence: dict[str, float] = {}
    used: set[int] = set()
    # Currencies said in words are a conversion's from and to; their words fill nothing else.
    for start, end in currency_values(text, found, params, values):
        used.update(i for i, (s, _) in enumerate(atoms)
                    if s.kind not in {"money", "number"} and start - 12 < s.start and s.end <= end)
    evidence.update({name: 2.0 for name in values})
    # "100 USD to EUR and 50 GBP to JPY": the conversions are the argument sets already.
    conversions = any(len(said) > 1 for said in values.values())
    # "How many teaspoons are in 2 tablespoons": a from/to unit pair by what is measured and
    # asked, before the units their descriptions list are read as values named.
    unit_pair_values(text, found, params, values)
    # Values named outright bind first: enum values, flags, codes, counted items.
    bind_named_values(text, params, atoms, values, evidence, used)
    # "subject: Release, body: v2 is out": the words after a parameter's name and a colon.
    bind_named_fields(text, params, atoms, values, evidence, used)
    # "with DEPLOY_ENV=staging" for an object of free keys ("variables as key/value pairs").
    bind_free_pairs(params, atoms, values, evidence, used)
    # Words passed on as they are ("saying I'll be late", "called pay rent"): one value.
    bind_said_content(text, params, atoms, values, evidence, used, exclude)
    # "Find all .md files": the pattern of a file search is *.md.
    bind_file_pattern(text, params, values, evidence)
    # Arrays take a whole list span (or bracketed lists, a range, a lower-case list).
    bind_arrays(text, found, atoms, params, values, evidence, used)
    # "Tag the photo with beach, sunset and family" for tags "separated by commas".
    delimited_list_said(text, params, values, evidence)
    # "its base and height as 6cm and 10cm": the names, then their values in the same order.
    in_order = values_named_in_order(text, found, [p for p in params if p.name not in values])
    for name, item in (in_order or {}).items():
        param = next(p for p in params if p.name == name)
        values[name], evidence[name] = [span_value(item, param)], 2.0
        used.update(i for i, (span, _) in enumerate(atoms) if span is item)
    # "at 4:45 PM" for an hour and a minute parameter: the clock as said, one part each.
    for name, part in _clock_parts(found, [p for p in params if p.name not in values]).items():
        values[name], evidence[name] = [part], 1.0
    # A list whose items fill a numbered series of parameters (side1, side2, side3) in order;
    # each further list of that shape is another argument set ("(45, 60) and (81, 27)").
    filled: list[Param] = []
    for group, span in enumerate(found):
        if span.kind != "list":
            continue
        members = [i for i, (_, g) in enumerate(atoms) if g == group and i not in used]
        series = filled or _numbered_series(
            [p for p in params if p.name not in values and p.kind != "array"], len(members)
        )
        if len(series) == len(members) and series and all(
            type_fit(atoms[i][0], p) >= 1.0 for i, p in zip(members, series, strict=True)
        ):
            for index, param in zip(members, series, strict=True):
                values.setdefault(param.name, []).append(span_value(atoms[index][0], param))
                evidence[param.name] = 1.0
                used.add(index)
            filled = series
    # "a wolf and a coyote" for animal1 and animal2: a lower-case list, when it is the
    # request's one list of that many things, fills a numbered series of text parameters.
    if not filled:
        _series_from_lower_case_list(text, params, values, evidence)
    # "compounded quarterly": a count per year said as a frequency.
    frequency_values(text, params, values)
    # "from the orders table" for a required table: the word between "the" and the
    # parameter's name names it, before a span is guessed for it ("sorted by created_at").
    for param in params:
        if param.name in values or not param.required or param.name_words & DATE_WORDS \
                or written_form(param.name_words, param.schema) is not None:
            continue  # ("the local time": "local" is no time)
        named = word_between_the_and_name(text, param, [atoms[i][0] for i in used], exclude)
        if named is not None:
            values[param.name], evidence[param.name] = [named], 1.0
    # Joint greedy assignment of the remaining atoms to scalar parameters; whole argument
    # sets said again in the same shape are assigned set by set.
    free_params = [p for p in params if p.name not in values]
    plain = plain_values(text, atoms, exclude) if read_only else set()
    assigned: dict[str, int] = {}
    cue_of: dict[str, float] = {}
    for chunks in _repeated_chunks(atoms, used):
        per_set = [choose_pairs(text, atoms, set(chunk), free_params, plain, exclude)
                   for chunk in chunks]
        names = set(per_set[0][0])
        if len(names) < 2 or any(set(found) != names for found, _, _ in per_set):
            continue
        if len(names) < len(chunks[0]):
            # "the BMI of four individuals? The first weighs 85 kg and is 175 cm ...": a set
            # is its values; cut where one of each chunk fills nothing, the runs are wrong.
            continue
        if numbered_siblings(names, {p.name for p in free_params}, len(chunks)):
            continue  # "$3M in 2017 to $4.5M in 2021" fills year1 and year2, one call
        by_name = {p.name: p for p in free_params}
        for name in names:
            values[name] = [
                span_value(atoms[found[name]][0], by_name[name]) for found, _, _ in per_set
            ]
            evidence[name] = per_set[0][2][name]
        used.update(i for chunk in chunks for i in chunk)
        break
    else:
        free = {i for i in range(len(atoms)) if i not in used}
        assigned, cue_of, scores = choose_pairs(text, atoms, free, free_params, plain, exclude)
        by_name = {p.name: p for p in free_params}
        for name, index in assigned.items():
            span, param = atoms[index][0], by_name[name]
            value = span_value(span, param)
            if span.kind in _TYPED and param.kind == "string" and not param.enum \
                    and not param.identifier and not param.name_words & DATE_WORDS \
                    and written_form(param.name_words, param.schema) is None:
                # "a note with body call the dentist at 3 pm": the time is inside the body.
                value = free_text_after_name(text, param.name_words, span.start,
                                             span.end) or value
            values[name] = [[value]] if param.kind == "array" else [value]
            evidence[name] = scores[name]
            used.add(index)
    # A required string parameter still empty may take the words right after its name; an
    # optional one is better left out than guessed ("cook a roast chicken" is no method).
    for param in free_params:
        if param.name in values or not param.required:
            continue
        taken = [atoms[i][0] for i in used]
        phrase = phrase_after_cue(text, param, taken)
        through = phrase is not None and re.search(
            r"\b(?:in|at|for)\s+(?:(?:the|a|an)\s+)?$", text[: phrase.start]) is not None
        if (phrase is None or through) and written_form(param.name_words, param.schema) is None \
                and not param.name_words & DATE_WORDS:
            # "a single room" for the room type, "of human cell" for the cell type; "a hill
            # slope in terms of ..." is the hill's, not what follows "in".
            phrase = phrase_before_name(text, param, taken, exclude) or phrase
        if phrase is None and written_form(param.name_words, param.schema) is None \
                and not param.name_words & DATE_WORDS:
            # "the population of pandas" for "The species for which population is estimated"
            phrase = phrase_after_described_noun(text, param, taken, exclude)
        if phrase is not None and param.kind == "array":
            # "specializing in criminal law": the items of one list.
            values[param.name] = [[phrase.value, *coordinated_phrases(text, phrase.end)]]
            evidence[param.name] = 1.0
        elif phrase is not None:
            # "the proteins of the nucleus, mitochondria, and cytoplasm": one value each.
            values[param.name] = [phrase.value, *coordinated_phrases(text, phrase.end)]
            evidence[param.name] = 1.0
    # An optional free-text parameter said as the noun after its value: "using simpson
    # method", "with a city view".
    for param in free_params:
        if param.name in values or param.required or param.name_words & DATE_WORDS:
            continue
        if written_form(param.name_words, param.schema) is not None:
            continue
        before = phrase_before_name(text, param, [atoms[i][0] for i in used], exclude)
        if before is not None:
            values[param.name], evidence[param.name] = [before.value], 1.0
    # "Find wireless headphones under $100": what the request asks to be shown is a search's
    # query when nothing else said it.
    bind_said_content(text, params, atoms, values, evidence, used, exclude, shown=True)
    # "Find horror movies in Denver" to find_movies(location, genre): the word before the
    # tool's own things is what kind they are, for the one free-text parameter left.
    if similarity is not None:
        kind_of_own_things(text, params, values, evidence, exclude, similarity)
    # The unit a number is measured in, or the one asked for, before any phrase by meaning
    # ("convert 5 km to miles": km is the unit converted from, not a phrase near "from unit").
    unit_parameter_values(text, found, params, values)
    if similarity is not None:
        # Nor is a word the tool's description says of the tool itself ("a specific
        # basketball player": "basketball" is no season).
        phrases_by_meaning(text, atoms, used, values, free_params, similarity,
                            set(exclude), frozenset(described))
        # "in red" for a colour whose default is 'black': a word of the default's kind.
        values_like_default(text, atoms, values, free_params, similarity, set(exclude))
    # "the colour values for navy, purple and maroon": a lower-case value said in a list with
    # others of its kind is one of the values asked for, each another call. Three at least:
    # "medium to oil and change size" joins two clauses, not two values.
    said_lists = [items for items in lower_case_lists(text) if len(items) >= 3]
    for param in params:
        chosen = values.get(param.name)
        if param.kind != "string" or param.enum or not chosen or len(chosen) != 1:
            continue
        holding = [items for items in said_lists if chosen[0] in items]
        if len(holding) == 1:
            values[param.name] = list(holding[0])
    _extend_repeats(text, atoms, used, assigned, cue_of, values, free_params)
    bind_object_parameters(text, params, values, bind_schema)
    # "the crime rate in San Francisco" for (city, state): the state the city is in.
    region_of_named_city(params, values)
    for param in params:
        if param.name in values:
            values[param.name] = [
                _as_described(with_time_of_day(
                    text, found, with_range(text, without_own_noun(v, param), param), param
                ), param)
                for v in values[param.name]
            ]
    keep_possible_values(values, params)
    # "for 3 nights starting from 1st June 2022": the end day is the start day plus the stay.
    end_of_stay(found, params, values, evidence)
    # "Analyze the sentiment of 'I love the food here!'" for (text, language): English.
    language_of_the_text(params, values, evidence)
    # "Create a directory called backups in /srv": the directory is /srv/backups.
    path_of_the_named(text, params, values)
    join_delimited(values, params)
    missing = [p.name for p in params if p.required and p.name not in values]
    crossed = _crossed_lists(text, found, values, free_params)
    sets = _argument_sets(values, crossed)
    paired = len(sets) > 1 and re.search(r"\brespectively\b", text, re.I)
    if segment > 0 and not paired and not conversions:

        def bind_stretch(
            start: int, end: int, strength: int
        ) -> tuple[list[dict[str, Any]], dict[str, float]]:
            stretch = bind_schema(
                text[start:end], schema, bound=bound, exclude=exclude, segment=strength,
                spans=spans_within(found, start, end), read_only=read_only,
            )
            return stretch.sets, stretch.evidence

        keep = used_list_ranges(found, {n: [v.get(n) for v in sets] for n in sets[0]})
        sets = repeated_sets(text, sets, bind_stretch, keep=keep, strongest=segment) or sets
    one_parameter_per_value(sets, found)
    return Binding(sets=sets, missing=missing, evidence=evidence)


# How near in meaning a kind must be to the parameter's name ("horror" and genre: 0.43;
# "active" and platform: 0.34, with the offline model).
KIND_MEANING = 0.4
# Words before a noun that say which or how many, not what kind ("the best movies").
_NOT_KINDS = frozenset(
    "latest newest recent new best top good great cheap popular trending some any all more "
    "most other few many one two three four five six seven eight nine ten".split()
)


def kind_of_own_things(
    text: str,
    params: Sequence[Param],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
    own: frozenset[str],
    similarity: Similarity,
) -> None:
    """The lower-case word right before the tool's own things, for its one open text slot.

    "Find horror movies in Denver" to ``find_movies(location, genre, date)``: "movies" is
    the tool's own noun, "horror" what kind; the genre is the one free-text parameter left
    (no enum, no date, no place, no identifier), and the word must be near its name in
    meaning (:data:`KIND_MEANING`: "active players" sets no platform). Nothing when two
    could take it, or when the word is already in a value.
    """
    open_slots = [
        p for p in params
        if p.name not in values and p.kind == "string" and not p.enum and not p.closed
        and not p.identifier and not p.name_words & DATE_WORDS and not is_place_param(p)
        and written_form(p.name_words, p.schema) is None
    ]
    if len(open_slots) != 1 or not own:
        return
    said = " ".join(str(v).lower() for given in values.values() for v in given)
    for match in re.finditer(r"\b([a-z][a-z\-]+)\s+([A-Za-z]+)\b", text):
        word, noun = match.group(1), match.group(2).lower()
        if noun == singular(noun) or singular(noun) not in own:
            continue  # the tool's own things, said in the plural
        if word in STOPWORDS or word in _NOT_KINDS or word in own or word in said.split():
            continue
        slot = open_slots[0]
        if singular(word) in slot.name_words:
            # "the dining room lights" for a room: the slot's own name is its cue, and the
            # word before it says which one
            before = re.search(r"\b([a-z][a-z\-]+)\s+$", text[: match.start(1)])
            if before is None or before.group(1) in STOPWORDS or before.group(1) in _NOT_KINDS:
                return
            values[slot.name], evidence[slot.name] = [f"{before.group(1)} {word}"], 1.0
            return
        if similarity(word, [" ".join(split_words(slot.name))])[0] < KIND_MEANING:
            return
        values[slot.name], evidence[slot.name] = [word], 1.0
        return


def _clock_parts(found: Sequence[Span], params: Sequence[Param]) -> dict[str, int]:
    """The hour and minute of the one clock time said, for integer hour/minute parameters."""
    parts = {word: [p for p in params if p.kind == "integer" and head_word(p.name) == word]
             for word in ("hour", "minute")}
    times = [s for s in found if s.kind == "time"]
    if len(times) != 1 or any(len(named) != 1 for named in parts.values()):
        return {}
    clock = re.match(r"\s*(\d{1,2})(?::(\d{2}))?", str(times[0].value))
    if clock is None:
        return {}
    return {parts["hour"][0].name: int(clock.group(1)),
            parts["minute"][0].name: int(clock.group(2) or 0)}


def _as_described(value: Any, param: Param) -> Any:
    """A phrase written as the description asks ("weather in miami": "Miami, FL")."""
    if param.kind != "string" or param.enum or not isinstance(value, str) \
            or value in param.allowed:
        return value  # a value the description lists is written as it lists it
    return value_as_described(value, str(param.schema.get("description") or "")) or value


def _repeated_chunks(atoms: Sequence[tuple[Span, int]], used: set[int]) -> list[list[list[int]]]:
    """Ways to cut the free values into two or more runs with the same kinds in order."""
    free = [
        i
        for i in range(len(atoms))
        if i not in used and atoms[i][1] < 0 and atoms[i][0].kind not in {"keyvalue", "json"}
    ]
    found = []
    for size in range(2, len(free) // 2 + 1):
        if len(free) % size:
            continue
        chunks = [free[k : k + size] for k in range(0, len(free), size)]
        kinds = [[_kind_class(atoms[i][0]) for i in chunk] for chunk in chunks]
        if all(k == kinds[0] for k in kinds) and len(set(kinds[0])) < size + 1:
            found.append(chunks)
    return found


def _kind_class(span: Span) -> str:
    return "number" if span.kind in {"number", "money", "percent"} else span.kind


def _series_from_lower_case_list(
    text: str, params: Sequence[Param], values: dict[str, list[Any]],
    evidence: dict[str, float],
) -> None:
    """Fill a numbered series of free-text parameters from the one lower-case list its size."""
    free = [p for p in params if p.name not in values and p.kind == "string"
            and not p.enum and not p.identifier]
    said = lower_case_lists(text)
    for size in (2, 3):
        series = _numbered_series(free, size)
        lists = [items for items in said if len(items) == size]
        if series and len(lists) == 1:
            for param, item in zip(series, lists[0], strict=True):
                values[param.name], evidence[param.name] = [item], 1.0
            return


def _numbered_series(params: Sequence[Param], size: int) -> list[Param]:
    """``size`` parameters whose names differ only by a number (``side1``, ``side2``)."""
    if size < 2:
        return []
    stems: dict[str, list[tuple[int, Param]]] = {}
    for param in params:
        place = series_position(param.name)
        if place is not None:
            stems.setdefault(place[0], []).append((place[1], param))
    for series in stems.values():
        if len(series) == size:
            return [param for _, param in sorted(series, key=lambda item: item[0])]
    return []


def _extend_repeats(
    text: str,
    atoms: Sequence[tuple[Span, int]],
    used: set[int],
    assigned: Mapping[str, int],
    cue_of: Mapping[str, float],
    values: dict[str, list[Any]],
    params: Sequence[Param],
) -> None:
    """More values for scalar parameters: the rest of a list, or a repeated pattern.

    "in Paris and Rome" gives the city a second value (the list); "6 feet tall and weighs
    80 kg, also 5.6 feet and 60 kg" gives height and weight a second value each (the same
    kinds of value again, each nearer its own parameter's cue than any other's). Repeats of a
    pattern count only when every parameter that repeats repeats as often.
    """
    by_name = {p.name: p for p in params}
    if _repeat_pattern(atoms, used, assigned, values, by_name):
        return
    listed: dict[str, list[int]] = {}
    patterned: dict[str, list[int]] = {}
    # The rest of a list of three or more another parameter took are that parameter's
    # values ("seasons 2017, 2018 and 2019"). Two joined by "and" may be two sets' halves
    # ("USD to AUD and USD to CAD").
    sizes = Counter(group for _, group in atoms if group >= 0)
    taken_lists = {atoms[i][1] for i in assigned.values() if sizes[atoms[i][1]] >= 3}
    for name, index in assigned.items():
        param = by_name[name]
        if param.kind == "array":
            continue
        span, group = atoms[index]
        for other, (candidate, other_group) in enumerate(atoms):
            if other in used or other == index:
                continue
            if group >= 0 and other_group == group:
                listed.setdefault(name, []).append(other)
                continue
            if other < index or other_group in taken_lists:
                continue
            if candidate.kind != span.kind or type_fit(candidate, param) < 1.0:
                continue
            if names_another(candidate, param, params):
                continue  # "my weight on Earth": Earth names weight_earth_kg, no second planet
            if in_a_statement_about_the_speaker(text, candidate.start):
                continue  # "My friend in Lyon says it's sunny.": context, no second place
            if span.unit and candidate.unit and span.unit.lower() != candidate.unit.lower():
                continue
            cue = cue_score(text, candidate, param)
            rivals = [
                cue_score(text, candidate, by_name[n])
                for n, i in assigned.items()
                if n != name and atoms[i][0].kind == candidate.kind
            ]
            # A second name for a lone string parameter needs its own cue ("in Rome"): a
            # name said later for another reason ("travelling with Anna") is no repeat.
            floor = STRONG_CUE if param.kind == "string" else 0.4
            weak = not rivals and cue < max(floor, cue_of[name] - 0.3) \
                and not said_alike(text, span, candidate)
            if any(r > cue for r in rivals) or weak:
                continue
            patterned.setdefault(name, []).append(other)
    for name, extra in listed.items():
        members = sorted([assigned[name], *extra])
        values[name] = [span_value(atoms[i][0], by_name[name]) for i in members]
        used.update(extra)
    counts = {len(v) for n, v in patterned.items() if n not in listed}
    if len(counts) != 1:
        return
    claimed = [i for n, v in patterned.items() if n not in listed for i in v]
    if len(claimed) != len(set(claimed)):
        return
    for name, extra in patterned.items():
        if name in listed:
            continue
        values[name].extend(span_value(atoms[i][0], by_name[name]) for i in extra)
        used.update(extra)


def _repeat_pattern(
    atoms: Sequence[tuple[Span, int]],
    used: set[int],
    assigned: Mapping[str, int],
    values: dict[str, list[Any]],
    by_name: Mapping[str, Param],
) -> bool:
    """Whole argument sets said again in the shape of the first one; True when added.

    "$30.45 in Chicago, Illinois, $52.33 in Sacramento, California": the values after the
    first set, taken in chunks of its size, have its kinds in its order (what is left after
    the last whole chunk is not read).
    """
    first = sorted(
        (index, name)
        for name, index in assigned.items()
        if by_name[name].kind != "array" and atoms[index][1] < 0
    )
    if len(first) < 2:
        return False
    last = first[-1][0]
    rest = [i for i in range(len(atoms)) if i > last and i not in used and atoms[i][1] < 0]
    size = len(first)
    # A value left over after the last whole set ("... using Machine Learning Model") is no
    # set's: only whole sets repeat.
    rest = rest[: len(rest) - len(rest) % size]
    if not rest:
        return False
    kinds = [atoms[i][0].kind for i, _ in first]
    chunks = [rest[k : k + size] for k in range(0, len(rest), size)]
    if any([atoms[i][0].kind for i in chunk] != kinds for chunk in chunks):
        return False
    for chunk in chunks:
        for index, (_, name) in zip(chunk, first, strict=True):
            if type_fit(atoms[index][0], by_name[name]) <= 0.3:
                return False
    for chunk in chunks:
        for index, (_, name) in zip(chunk, first, strict=True):
            values[name].append(span_value(atoms[index][0], by_name[name]))
            used.add(index)
    return True


def _crossed_lists(
    text: str, found: Sequence[Span], values: Mapping[str, list[Any]], params: Sequence[Param]
) -> set[str]:
    """Parameters whose several values are each a whole list of the request, to be crossed.

    "Lakers and Bulls in seasons 2018 and 2020" asks for every pair; "Taylor Swift and
    Maroon 5 for 20 and 15 minutes respectively" pairs them in order (zipped).
    """
    if re.search(r"\brespectively\b", text, re.I):
        return set()
    lists = [[item.value for item in span.items] for span in found if span.kind == "list"]
    scalar = {p.name for p in params if p.kind != "array"}
    crossed = set()
    for name, given in values.items():
        if name in scalar and len(given) > 1:
            raw = [v for v in given]
            if any(
                len(items) == len(raw) and [str(i) for i in items] == [str(v) for v in raw]
                for items in lists
            ):
                crossed.add(name)
    return crossed if len(crossed) > 1 else set()


def _argument_sets(
    values: Mapping[str, list[Any]],
    crossed: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[dict[str, Any]]:
    """Zip several values per parameter into argument sets (a single value is shared).

    Parameters in ``crossed`` are combined every way (their product) instead.
    """
    if not values:
        return [{}]
    if crossed:
        sets: list[dict[str, Any]] = [{}]
        for name in (n for n in values if n in crossed):
            sets = [{**base, name: value} for base in sets for value in values[name]]
        shared = {n: v[0] for n, v in values.items() if n not in crossed}
        return [{**shared, **combo} for combo in sets]
    counts = {len(v) for v in values.values()}
    width = max(counts)
    if width == 1 or not counts <= {1, width}:
        return [{name: v[0] for name, v in values.items()}]
    return [
        {name: (v[i] if len(v) == width else v[0]) for name, v in values.items()}
        for i in range(width)
    ]
