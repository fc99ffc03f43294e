"""Values a request names outright, bound before any guess: enum values, flags, codes, counts.

The schema binder's first pass (:func:`nodes.planning.schema_binder.bind_schema`): a value one
of a parameter's allowed values names ("a Patio and Parking" for the amenities), a flag
written as 'True' or said by its name, a code the description explains ("'2' represents ironing
service"), and counted items with their quantities ("five burgers and six chicken wings").
Each is the strongest evidence there is; the words such a value took fill no other parameter
(their atoms are marked used).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nodes.planning.code_values import code_said
from nodes.planning.counted_items import counted_items, item_and_quantity_params
from nodes.planning.enum_values import enum_mentions, enum_value
from nodes.planning.param_fit import Param, content_words
from nodes.planning.param_values import coerce, described_flag, flag_option, flag_value
from nodes.planning.request_spans import Span
from stores.language.keywords import lemmatize


def bind_named_values(
    text: str,
    params: Sequence[Param],
    atoms: Sequence[tuple[Span, int]],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
    used: set[int],
) -> None:
    """Bind what the request names outright into ``values`` (in place), marking atoms used."""
    enum_pair_values(text, params, values, evidence)
    # Enum / allowed values named in the text bind first: the strongest evidence there is.
    for param in params:
        if param.name in values:
            continue
        truths = flag_option(param)
        flag = flag_value(text, param) if truths is not None else None
        if truths is not None and flag is not None and enum_value(text, param) is None:
            values[param.name] = [truths[flag]]  # a flag written as 'True' / 'False'
            evidence[param.name] = 1.0
        elif param.enum or param.allowed:
            named = enum_value(text, param)
            # "with backstage access" for add-ons allowing "Backstage Pass": an array's
            # values may be named by a word only they have.
            their_words = {w for p in params if p is not param for w in p.name_words}
            by_word = (enum_mentions(text, param, by_one_word=their_words)
                       if param.kind == "array" else [])
            if (named is not None or by_word) and param.kind == "array":
                mentioned = by_word or ([named[0]] if named is not None else [])
                values[param.name] = [mentioned]
                evidence[param.name] = 2.0
                # "a Patio and Wi-Fi" for the amenities: those words fill no other parameter.
                said = {re.sub(r"[_\-\s]+", " ", str(o)).lower() for o in mentioned}
                used.update(i for i, (span, _) in enumerate(atoms)
                            if re.sub(r"[_\-\s]+", " ", span.text.strip("'\"")).lower() in said)
            elif named is not None and not param.enum and not param.closed and any(
                group >= 0 and span.start <= named[1] < span.end for span, group in atoms
            ):
                # "the weight of Neutron and Proton" for a particle "e.g. Electron, Proton":
                # an example said in a list with others is one of its items, bound with them.
                continue
            elif named is not None:
                values[param.name] = [named[0]]
                evidence[param.name] = 2.0
                for index, (span, _) in enumerate(atoms):
                    # "at x = 1": the variable named is the key; the number is still free.
                    in_key = span.kind == "keyvalue" and named[1] < span.start + len(
                        str(span.key or ""))
                    # "uber XL" for "UberXL": every word the value was said in is taken.
                    said_end = named[2] if len(named) > 2 else named[1] + 1
                    # "two large pizzas": the number read with "large" as its unit is free.
                    counting = span.kind == "number" and span.start < named[1]
                    if span.start < said_end and named[1] < span.end and not in_key \
                            and not counting:
                        used.add(index)
                others = enum_mentions(text, param)
                # "New York City, NY" as the description's example wrote it: one place.
                whole = next((span.value for span, _ in atoms if span.kind == "name"
                              and sum(str(o) in span.text for o in others) > 1), None)
                if param.kind != "array" and len(others) > 1 and whole is not None:
                    values[param.name] = [whole]
                elif param.kind != "array" and len(others) > 1 and named[0] in others:
                    cued = [o for o in others if _after_its_name(text, param, o)]
                    # "the newest shoes, sorted by rating": the value said after the
                    # parameter's name is its value; "gini ... and entropy": one call each
                    values[param.name] = cued if len(cued) == 1 else others
        elif param.kind == "boolean":
            flag = flag_value(text, param)
            if flag is None:
                flag = described_flag(text, param)  # "double sided" for duplex
            if flag is not None:
                values[param.name] = [flag]
                evidence[param.name] = 1.0
    # A code the description explains ("'2' represents ironing service") by what it stands for.
    for param in params:
        code = None if param.name in values else code_said(text, param)
        if code is not None:
            values[param.name] = [coerce(code[0], param)]
            evidence[param.name] = 2.0
            meaning = content_words(code[1])
            used.update(i for i, (span, _) in enumerate(atoms)
                        if span.kind == "name" and content_words(span.text) <= meaning)
    # "five burgers and six chicken wings": an item list and its quantities, index by index.
    pair = item_and_quantity_params([p for p in params if p.name not in values])
    counted = counted_items(text) if pair is not None else None
    if pair is not None and counted is not None:
        values[pair[0].name], values[pair[1].name] = [counted[0]], [counted[1]]
        evidence[pair[0].name] = evidence[pair[1].name] = 2.0
        start, end = counted[2]
        used.update(i for i, (span, _) in enumerate(atoms) if start <= span.start < end)


def _after_its_name(text: str, param: Param, option: Any) -> bool:
    """Whether an allowed value is said right after a word of its parameter's name.

    "sorted by rating" for ``sort_by``: "sorted" is the name's "sort" said as a verb.
    """
    spoken = re.sub(r"[_\-]+", " ", str(option)).lower()
    found = re.search(rf"(?<![\w]){re.escape(spoken)}(?![\w])", text.lower())
    if found is None:
        return False
    before = re.findall(r"[a-z]+", text.lower()[: found.start()])[-3:]
    stems = {lemmatize(word) for word in before} | set(before)
    return bool(stems & (param.name_words - {"by", "of", "for"}))


# The two ends of a conversion, by the first word of a parameter's name.
_SOURCE_WORDS = frozenset({"from", "source", "input", "original", "src", "base"})
_TARGET_WORDS = frozenset({"to", "target", "output", "desired", "dest"})
_INTO = re.compile(r"\b(?:to|into|in)\s+(?:degrees\s+)?$", re.I)


def enum_pair_values(
    text: str, params: Sequence[Param], values: dict[str, list[Any]], evidence: dict[str, float]
) -> None:
    """Two allowed values said as a conversion's ends ("72 degrees Fahrenheit to Celsius").

    For a source and a target parameter that allow the same values (``from_scale``,
    ``to_scale``): the value said after "to", "into" or "in" is the target's, the other the
    source's. Read before each parameter takes every value it allows named.
    """
    free = [p for p in params if p.name not in values and p.enum]
    source = next((p for p in free if _first_word(p) in _SOURCE_WORDS), None)
    target = next((p for p in free if _first_word(p) in _TARGET_WORDS), None)
    if source is None or target is None or set(map(str, source.enum)) != set(
        map(str, target.enum)
    ):
        return
    named = enum_mentions(text, source)
    if len(named) != 2:
        return
    lowered = text.lower()
    where = {option: lowered.find(str(option).lower()) for option in named}
    into = [o for o in named if where[o] >= 0 and _INTO.search(text[: where[o]])]
    if len(into) != 1:
        return
    other = next(o for o in named if o != into[0])
    values[source.name], values[target.name] = [other], [into[0]]
    evidence[source.name] = evidence[target.name] = 2.0


def _first_word(param: Param) -> str:
    words = re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", param.name).lower())
    return words[0] if words else ""
