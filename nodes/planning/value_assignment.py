"""Scalar values to parameters: the schema binder's joint assignment.

What is left after the values named outright, the arrays and the names said in order goes
to the scalar parameters best pair first (:func:`choose_pairs`): each pair of a value and a
parameter scores its type fit, its cue words and whether the parameter is required; an
optional parameter takes a value only with a strong cue, or, for a read, one of the
:func:`plain_values` that fits its type exactly. Two parameters then exchange their values
when both fit the other's clearly better, or go in the order said when both fit alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from nodes.planning.descriptions import describes_count
from nodes.planning.param_fit import (
    STRONG_CUE,
    Param,
    _word_match,
    content_words,
    counts_in_words,
    cue_score,
    is_place_param,
    measures_alike,
    type_fit,
    written_short,
)
from nodes.planning.request_spans import Span, context_words
from nodes.planning.unit_values import is_unit_param
from nodes.planning.value_cues import head_word, series_position
from nodes.planning.venues import place_cue_after_venue, places_after_venues
from stores.language.codes import codes_of
from stores.language.identifiers import identifier_base, singular, split_words
from stores.language.keywords import lemmatize
from stores.language.places import country_of_city
from stores.language.units import unit_of

__all__ = ["MESSAGE_NAMES", "NUMBER_GUESS_CUE", "choose_pairs", "names_another", "plain_values"]

# A bare number says nothing of what it is ("account 654321", "delivery 2"): a read's optional
# parameter guesses one only with some cue word beside it ("a volume level of 0.8").
NUMBER_GUESS_CUE = 0.4
_NUMERIC = frozenset({"number", "money", "percent"})
# Two parameters exchange their values only when the sum of their pair scores gains this much.
_SWAP_MARGIN = 0.2


# Parameters that carry what a message says, and how much a quoted text prefers them (and a
# bare name does not).
MESSAGE_NAMES = frozenset("message msg text body content note comment caption".split())
_TITLE_NAMES = frozenset("title subject heading".split())
MESSAGE_QUOTED_CUE = 0.75

# How well a bare number fits a parameter that holds free text.
_BARE_FIT = 0.3


def choose_pairs(
    text: str,
    atoms: Sequence[tuple[Span, int]],
    free: set[int],
    params: Sequence[Param],
    plain: frozenset[int] | set[int] = frozenset(),
    own: AbstractSet[str] = frozenset(),
) -> tuple[dict[str, int], dict[str, float], dict[str, float]]:
    """Greedy joint assignment of the free atoms to parameters, best pair first.

    An optional parameter takes a value only with a strong cue, or one of the ``plain``
    atoms (a read-only tool's) that fits its type exactly. ``own`` are the words of the
    tool's name: "track package 1234" names the one identifier of ``track_package``.

    Returns:
        ``(parameter -> atom index, parameter -> cue score, parameter -> pair score)``.
    """
    pairs: list[tuple[float, int, Param, float]] = []
    places = any(is_place_param(p) for p in params)
    bases: dict[tuple[int, str], float] = {}  # each pair's score without its order term
    after_venues = places_after_venues(text, [atoms[i][0] for i in free], params)
    lone = sum(p.identifier for p in params) == 1
    for position, index in enumerate(sorted(free)):
        span = atoms[index][0]
        for rank, param in enumerate(params):
            fit = type_fit(span, param)
            if fit <= 0.0 or ((param.enum or param.closed) and span.kind != "keyvalue"):
                continue
            cue = cue_score(text, span, param)
            if span.start in after_venues and span.kind == "name":
                cue = max(cue, place_cue_after_venue(param))
            if cue >= 0.0 and measures_alike(span, param) and not any(
                other is not param and measures_alike(span, other) for other in params
            ):  # ("under 20 minutes" is no shortest time, whatever it measures)
                cue = max(cue, STRONG_CUE)  # "for 2 hours": the one length "in minutes"
            explicit = span.kind in {"quoted", "identifier", "keyvalue"}
            if cue < -0.5 or (
                param.identifier and not explicit
                and not _names_it(text, span, param, lone, own)
            ):
                # An identifier is never a bare value's guess: "account 123456" is no user id.
                continue
            if is_unit_param(param) and unit_of(span.text.strip("'\"")) is None:
                continue  # "Glucose (C6H12O6) in grams/mole": a unit takes a unit's name
            if _ASKED_ABOUT.search(text[: span.start]) and span.kind in {"name", "identifier"}:
                continue  # "How much CO2 is produced by a car": what is asked, no input
            if written_short(span, param) is not None:
                cue = max(cue, STRONG_CUE)  # "the last 2 hours" for since, "e.g. '2h'"
            if _top_count(text, span, param):
                cue = max(cue, STRONG_CUE)  # "just the top 5" for num_results
            if span.kind == "number" and _counts_own_things(span, param, own):
                # "the top three plants" for get_plants_for_slope(num_results): how many of
                # the tool's own things are asked for
                cue = max(cue, STRONG_CUE)
            if span.kind == "number" and counts_in_words(span) and cue < 0.5 \
                    and not measures_alike(span, param) and not (
                        # "a table for two": how many, for a count the call needs ("for
                        # four individuals" is no weight)
                        param.required and param.kind == "integer"
                        and describes_count(str(param.schema.get("description") or ""))
                        and re.search(r"\bfor\s+$", text[: span.start]) is not None
                    ):
                # "two triangles" sets nothing unless a parameter counts them; "next week"
                # is 7 of a count of days
                continue
            if span.kind == "number" and _counts_the_parameter(text, span, param):
                continue  # "two charges" counts the charges; it is no charge
            if names_another(span, param, params):
                continue  # "my weight on Earth" names weight_earth_kg: Earth is no planet
            if places and not is_place_param(param) and _known_place(text, span) \
                    and not param.name_words & _ROUTE_ENDS:
                continue  # "Nepal", "in Berlin": the place's value, no species, no job title
            if param.name_words & (MESSAGE_NAMES | _TITLE_NAMES) and len(params) > 1 \
                    and span.kind == "quoted":
                # "Send 'Happy birthday!' to Grandma", "Assign the bug 'Login fails' to
                # Priya": quoted words are what a message says or what a thing is titled
                cue = max(cue, MESSAGE_QUOTED_CUE)
            elif param.name_words & MESSAGE_NAMES and len(params) > 1 and span.kind == "name":
                cue -= MESSAGE_QUOTED_CUE  # "Message Sarah ...": a bare name is whom it goes to
            # The order of values and parameters places a value only where there are
            # several of either: a lone value of a lone parameter has no place to be in.
            alone = len(free) == 1 or len(params) == 1
            order = -0.02 * (1 if alone else abs(position - rank))
            score = fit + cue + (0.3 if param.required else 0.0) + order
            pairs.append((score, index, param, cue))
            bases[(index, param.name)] = score - order
    pairs.sort(key=lambda item: -item[0])
    assigned: dict[str, int] = {}
    cues: dict[str, float] = {}
    scores: dict[str, float] = {}
    taken: set[int] = set()
    # A read's optional parameter guesses (no strong cue) only from what the parameters
    # said with evidence, and the required ones, left over.
    guessed = [
        pair for pair in pairs
        if not pair[2].required and pair[3] < STRONG_CUE
        and pair[1] in plain and type_fit(atoms[pair[1]][0], pair[2]) >= 1.0
        and (atoms[pair[1]][0].kind not in _NUMERIC or pair[3] >= NUMBER_GUESS_CUE)
    ]
    # "Dim the bedroom lights to 20 percent" for room (required text) and brightness (an
    # optional number): a number fits free text barely, and without a cue it is no room's
    # when another parameter takes exactly its kind.
    exact = {index for _, index, param, _ in pairs if type_fit(atoms[index][0], param) >= 1.0}
    sure = [pair for pair in pairs if pair[3] >= STRONG_CUE or pair[2].required and not (
        atoms[pair[1]][0].kind in _NUMERIC and pair[1] in exact and pair[3] <= 0.0
        and type_fit(atoms[pair[1]][0], pair[2]) <= _BARE_FIT
    )]
    took_list: dict[int, Param] = {}  # list group -> the parameter its first item went to
    for score, index, param, cue in [*sure, *guessed]:
        if index in taken or param.name in assigned:
            continue
        # Numbers of one list fill several parameters ("coefficients 5, 20 and -25"); names
        # of one list are values of one kind.
        group = atoms[index][1] if atoms[index][0].kind == "name" else -1
        if group >= 0 and group in took_list and not _one_kind(took_list[group], param):
            continue  # "near Berlin and Paris": Paris is the second place, no genre
        if group >= 0:
            took_list.setdefault(group, param)
        assigned[param.name] = index
        cues[param.name] = cue
        scores[param.name] = score
        taken.add(index)
    _swap_when_better(assigned, cues, scores, sure, bases)
    return assigned, cues, scores


def _one_kind(first: Param, second: Param) -> bool:
    """Whether the items of one list may go to these two parameters.

    Two ends ("start_city", "end_city") or two of a numbered series: both named for the
    same thing, or both places.
    """
    if head_word(first.name) == head_word(second.name):
        return True
    series = series_position(first.name), series_position(second.name)
    if series[0] is not None and series[1] is not None and series[0][0] == series[1][0]:
        return True  # "the iPhone 15 and the Galaxy S24" for phone_a and phone_b
    return bool(is_place_param(first) and is_place_param(second))


def _swap_when_better(
    assigned: dict[str, int],
    cues: dict[str, float],
    scores: dict[str, float],
    pairs: Sequence[tuple[float, int, Param, float]],
    bases: Mapping[tuple[int, str], float],
) -> None:
    """Exchange two parameters' values when both fit the other's better, or as well.

    Best pair first can give the strongest cue a value that another parameter needed more:
    "the 2019 Eredivisie year" gives "year" the name beside its word and leaves the number to
    a parameter that holds a name; exchanged, both fit. Two values that fit two parameters
    alike ("a wall of 30 feet by 12 feet": length, height) go in the order of the schema.
    """
    pair_of = {(index, param.name): (score, cue, param.position)
               for score, index, param, cue in pairs}
    changed = True
    while changed:
        changed = False
        names = list(assigned)
        for first, second in ((a, b) for i, a in enumerate(names) for b in names[i + 1:]):
            one = pair_of.get((assigned[second], first))
            other = pair_of.get((assigned[first], second))
            now_first = pair_of.get((assigned[first], first))
            now_second = pair_of.get((assigned[second], second))
            if one is None or other is None or now_first is None or now_second is None:
                continue
            gain = (bases[(assigned[second], first)] + bases[(assigned[first], second)]
                    - bases[(assigned[first], first)] - bases[(assigned[second], second)])
            inverted = (now_first[2] < now_second[2]) != (assigned[first] < assigned[second])
            if gain > _SWAP_MARGIN or (abs(gain) < 1e-9 and inverted):
                assigned[first], assigned[second] = assigned[second], assigned[first]
                scores[first], cues[first] = one[0], one[1]
                scores[second], cues[second] = other[0], other[1]
                changed = True


def plain_values(
    text: str, atoms: Sequence[tuple[Span, int]], exclude: frozenset[str]
) -> set[int]:
    """The atoms that may be a read's optional value without a cue word beside them.

    Not a list's item (the list is another parameter's values), not a measure (its unit says
    what it measures), not a span inside another ("Coulombs" of "0.01 Coulombs"), not a name
    glossed in brackets or its gloss ("SNP (Single Nucleotide Polymorphism)"), not a word
    that introduces an identifier ("ID"), not the tool's own name.
    """
    plain = set()
    for index, (span, group) in enumerate(atoms):
        if group >= 0 or (span.kind in {"number", "money", "percent"} and span.unit):
            continue
        if any(
            other is not span and other.start <= span.start and span.end <= other.end
            for other, _ in atoms
        ):
            continue
        before = text[: span.start].rstrip()
        after = text[span.end :].lstrip()
        if (before.endswith("(") and after.startswith(")")) or after.startswith("("):
            continue  # "Body Mass Index (BMI)": a name and its gloss
        if str(span.value).lower() in _ID_LINKS:
            continue  # "SNP ID rs6034464": the word that introduces an identifier
        words = content_words(str(span.value))
        if words and words <= exclude:
            continue
        plain.add(index)
    return plain


# Names of a route's ends, which a schema need not call places ("start", "source").
_ROUTE_ENDS = frozenset({"start", "source", "origin", "from", "to", "end", "departure"})


def _known_place(text: str, span: Span) -> bool:
    """A name the country tables know ("Nepal"), or a city they know said as where ("in Berlin").

    A city's name is often a word of another kind too ("offering Thai food"): only after a
    preposition of place is it surely the place.
    """
    if span.kind != "name" or not isinstance(span.value, str):
        return False
    if codes_of(span.value, "country"):
        return True
    return _WHERE_BEFORE.search(text[: span.start]) is not None and \
        country_of_city(span.value) is not None


_WHERE_BEFORE = re.compile(r"\b(?:in|at|near|around|from)\s+$", re.I)


def names_another(span: Span, param: Param, params: Sequence[Param]) -> bool:
    """A name whose words are in another parameter's name and not in this one's."""
    if span.kind != "name" or not isinstance(span.value, str):
        return False
    words = content_words(span.value)
    if not words or words <= param.name_words:
        return False
    return any(other is not param and words <= other.name_words for other in params)


# What a search's count of results calls them.
_RESULT_WORDS = frozenset({"result", "item", "record", "entry", "match", "hit"})
_ASKED_ABOUT = re.compile(r"\bhow\s+(?:much|many)\s+$", re.I)


def _counts_own_things(span: Span, param: Param, own: AbstractSet[str]) -> bool:
    """A number said of the tool's own things, for a parameter that counts.

    "three plants" of ``get_plants_for_slope(num_results)``: an integer whose description
    says it is a number of things.
    """
    word = (span.unit or "").lower()
    if not word.isalpha() or param.kind != "integer":
        return False
    description = str(param.schema.get("description") or "")
    counted = re.match(r"\s*(?:the\s+)?(?:number|count)\s+of\s+(?:(?:top|the)\s+)?([a-z]+)",
                       description, re.I)
    if not describes_count(description) or counted is None:
        return False
    # What it counts: results of a search ("The number of top results"), or the things said
    # ("two histograms" counts no bins: it says how many calls).
    thing = lemmatize(singular(counted.group(1).lower()))
    if thing not in _RESULT_WORDS and thing != lemmatize(singular(word)):
        return False
    return lemmatize(singular(word)) in own or singular(word) in own


_TOP = re.compile(r"\b(?:top|first|latest|last|most\s+recent)\s+$", re.I)
_RESULT_COUNTS = frozenset({"limit", "top", "k", "n"})


def _top_count(text: str, span: Span, param: Param) -> bool:
    """A bare number after "top", "first" or "latest" for a count of results.

    "just the top 5" for ``num_results`` ("Number of results"), "the latest 20" for
    ``limit``: how many results come back, whatever the results are.
    """
    if span.kind != "number" or span.unit or param.kind != "integer":
        return False
    if _TOP.search(text[: span.start]) is None:
        return False
    words = {singular(w) for w in param.name_words}
    description = str(param.schema.get("description") or "").lower()
    counted = re.match(r"\s*(?:the\s+)?(?:max(?:imum)?\s+)?(?:number|count)\s+of\s+"
                       r"(?:(?:top|the)\s+)?([a-z]+)", description)
    return bool(words & (_RESULT_WORDS | _RESULT_COUNTS)) or (
        counted is not None and singular(counted.group(1)) in _RESULT_WORDS
    )


def _counts_the_parameter(text: str, span: Span, param: Param) -> bool:
    """Whether a number counts the things the parameter is one of: "two charges" (charge)."""
    following = re.match(r"\s+([A-Za-z]+)", text[span.end :])
    word = (span.unit or (following.group(1) if following is not None else "")).lower()
    if not word.isalpha() or word in param.name.lower():
        return False  # "3 days" is the value of ``days``
    if re.search(rf"\b{word}\b", str(param.schema.get("description") or ""), re.I):
        return False  # "500 calories" for "the amount of calories to burn"
    one = singular(word).lower()
    return one != word and lemmatize(one) in param.name_words


_ID_LINKS = frozenset({"id", "ids", "no", "number", "num", "#", "of", "is", "code"})
_ID_WORDS = _ID_LINKS - {"of", "is"}  # the words that call a value an id
_OBJECT_LINKS = frozenset({"whose", "with", "having", "has", "its", "the", "a", "an"})


def _of_own_thing(param: Param, own: AbstractSet[str]) -> bool:
    """Whether an identifier identifies the tool's own thing.

    ``tracking_number`` of ``track_package`` and a bare ``id`` do; ``user_id`` of
    ``list_orders`` does not.
    """
    base = [lemmatize(w) for w in split_words(identifier_base(param.name))]
    return all(word in own for word in base)


def _names_it(
    text: str, span: Span, param: Param, lone: bool = False,
    own: AbstractSet[str] = frozenset(),
) -> bool:
    """Whether the object an identifier parameter names stands right before the value.

    "product 3", "case ID of 1234", "an employee whose ID is 345" name it; "the price of the
    product to 20" does not. When the identifier is the ``lone`` one still to fill, "id 12345"
    names it whatever its object, and so does the object of the tool's own name (``own``:
    "package 1234" for ``track_package``); a code of eight digits or more names it when the
    request says a word of the tool's own name anywhere ("Track FedEx 123456789012").
    """
    before, _ = context_words(text, span, window=6)
    if lone and own and re.fullmatch(r"\d{8,}", span.text.strip()) and own & {
        lemmatize(singular(word)) for word in re.findall(r"[a-z]+", text.lower())
    }:
        return True  # "Track FedEx 123456789012": a long code, said to the tool's own verb
    said_id = False
    for word in reversed(before):
        lemma = lemmatize(singular(word))
        if _word_match(lemma, param.name_words - _ID_LINKS):
            return True
        said_id = said_id or word in _ID_WORDS
        if lone and (word in {"id", "ids"} or (lemma in own and _of_own_thing(param, own))):
            return True  # "Adriel, id 12345" for the one identifier the tool takes
        # "employee whose ID is 345", "a law case with number 43403": once the value is
        # called an id or a number, the object may stand a relative word further back.
        if word not in _ID_LINKS and not (said_id and word in _OBJECT_LINKS):
            return False
    return False
