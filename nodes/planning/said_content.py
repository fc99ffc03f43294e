"""Words the request passes on as they are: a message, a note, a title, a search.

"send Tom a message saying I'll be late", "remind me to water the plants at 6pm", "create a
todo called pay rent", "add a note: buy coffee filters", "search the web for hiking trails
near Denver", "translate how are you into French". What follows the marker ("saying", "remind
me to", "called", a colon, "search ... for", the tool's own verb) to the end of its clause is
one value, whatever names or numbers it holds, for the parameter that takes such text: one
whose name is a word for text content (:data:`_CONTENT_NAMES`), or a name or title for what
"called" introduces. The value's atoms fill no other parameter.

General English only (no domain): the markers are how anyone passes words on, the names how
APIs call the parameter that carries them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from nodes.planning.descriptions import asks_clock_form, asks_date_form
from nodes.planning.name_spans import TITLES
from nodes.planning.param_fit import DATE_WORDS, LANGUAGE_NAMES, Param, is_place_param
from nodes.planning.request_spans import Span
from stores.language.identifiers import singular
from stores.language.spans_numbers import DURATION_UNITS
from stores.language.spans_text import find_quoted
from stores.language.vocabulary import _SMALL_NUMBERS, _TENS

# Parameter names for passed-on text ("message", "body", "query"), and for what "called"
# introduces ("title", "name").
_CONTENT_NAMES = frozenset(
    """text message msg content body note comment prompt query q keyword keywords term search
    description caption task status question sentence phrase memo topic command cmd
    script""".split()
)
TITLE_NAMES = frozenset("title name subject heading label".split())

_SPEECH = re.compile(
    r"\b(?:saying|that\s+says|which\s+says|stating|reading|with\s+the\s+(?:text|message|words?)"
    r"|(?i:tell|ask|inform|remind|text|message|email|ping)\s+"
    r"(?:me|him|her|them|us|(?:the|my|our)\s+[a-z]+|[A-Z][\w'\-]*|[\w.+\-]+@[\w\-]+\.[\w.]+"
    r"|\+?\(?\d[\d\-() ]{5,}\d)"  # "Text 555-0134 that I'm outside"
    r"\s+(?:that|to|about)"
    # "tell her the report is attached": to another, the words follow without "that"
    r"|(?i:tell|inform)\s+(?:him|her|them|[A-Z][\w'\-]*)(?=\s+(?!(?:that|to|about)\b)[a-z])"
    r"|(?i:let)\s+(?:me|him|her|them|us|[A-Z][\w'\-]*)\s+know\s+(?:that\s+)?"
    r"|(?:note|memo)\s+(?:to|that)(?!\s+(?:says|reads)\b)"
    # "email Bob with subject Lunch and say we are on for noon": the words after "and say"
    r"|(?:and|(?<=\w),)\s+say(?:\s+that)?"
    # "the sentiment of the sentence I loved it", "run the command ls -la": a word for
    # passed-on words, then the words themselves
    r"|(?<![\w-])(?:the|this|following)\s+(?:sentence|phrase|text|message|quote|words"
    r"|statement|command|query|prompt)(?:\s*:)?(?=\s+(?!(?:of|to|for|in|on|at|and|is|are|was"
    r"|as|that|which|from|by|with|into|below|above|here|there)\b)[\w'\"“‘-])"
    # "Ask the assistant what the capital of Peru is": the question, with its question word
    r"|(?i:ask)\s+(?:the\s+)?[a-z]+(?=\s+(?:what|who|whom|where|when|why|how|which|whether"
    r"|if)\b)"
    r")\s+",
)
# "a timer called eggs"; "label it gym", "Call it focus.": the thing named by a pronoun.
_PLACED_AT = re.compile(r"\s+(?:in|inside|under|at|into|to|within)\s+(?=[~/]|\.\.?/|https?://)")
# "How do you say thank you in Japanese?": the words to be said in another language.
_SAY = re.compile(r"\bhow\s+(?:do|would|can|should)\s+(?:you|i|we|one)\s+say\s+", re.I)
_NAMING = re.compile(
    r"\b(?:called|named|titled|entitled|labell?ed"
    r"|(?:call|name|label|title|tag)\s+(?:it|them)(?:\s+as)?)\s+",
    re.I,
)
# "news about electric cars": what a search is about, to the next comma.
_ABOUT = re.compile(
    r"\b(?:about|regarding|concerning|on\s+the\s+topic\s+of"
    # "the latest news on the Mars rover": "on" after a word for what is read
    r"|(?:(?<=news)|(?<=info)|(?<=articles)|(?<=stories)|(?<=updates)|(?<=headlines)"
    r"|(?<=information))\s+on(?!\s+(?:the\s+)?topic\b)(?:\s+the)?"
    r")\s+(?!\d|(?:"
    + "|".join(sorted({*_SMALL_NUMBERS, *_TENS, "half", "dozen"}, key=len, reverse=True))
    + r")\b)",  # "about twelve photos" is a number, said roughly
    re.I,
)
_SEARCH_NAMES = frozenset("query q keyword keywords term search topic".split())
_SEARCH = re.compile(
    r"\b(?:search|google|browse|look)\s+(?:up\s+)?"
    r"(?:the\s+(?:web|internet)\s+|online\s+|(?-i:[A-Z][\w]*)\s+)?for\s+"  # "search YouTube for"
    # "Look up best hiking trails near Portland", "google how to bake bread": the verb
    # opens the request and the words searched follow it
    r"|^\s*(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)*"
    # ("Search the products for 'milk'": what is searched is after "for")
    r"(?:look\s+up|google|search(?:\s+(?:the\s+web|online))?)\s+"
    # (nor "search nodes query=Bob": named values say it)
    r"(?!for\b|up\b|(?:\S+\s+){1,3}for\b|[^\n]*\w=)(?=[\w'\"])",
    re.I,
)
# "Find wireless headphones under $100", "Show me laptops sorted by price": a request that
# opens by asking to be shown things says what a search tool's query is right after its verb.
_FIND = re.compile(
    r"^\s*(?:(?:please|can\s+you|could\s+you|would\s+you)\s+)*"
    r"(?:find|show|get|give|list|fetch)\s+(?:me\s+|us\s+)?"
    r"(?:(?:some|the|a|an|all|any|all\s+the)\s+)?(?!(?:me|us)\b)(?=[A-Za-z])",
    re.I,
)
_QUOTES = "'\"“‘`"
# "a reminder for 2024-06-03T09:30 to submit the report": the tool's own thing, what it is to
# say.
_OWN_TO = re.compile(
    r"\b(?:a|an|the|my)\s+([a-z]+)(?:\s+(?:for|at|on)\s+\S+)?\s+(?:to|about)\s+"
    # not to whom it goes ("a message to the team"); "that" opens a relative clause as often
    # ("the orders that were cancelled")
    r"(?!(?:the|a|an|my|our|your|his|her|their|me|us|him|them)\b)(?-i:(?=[a-z]))",
    re.I,
)
# "an image of ...", "a short poem about ...": the tool's own thing and what it is of.
_OWN_OF = re.compile(
    r"(?:a|an|the|some)\s+(?:[a-z]+\s+)?([a-z]+)\s+"
    r"(?:of|about|showing|depicting|featuring|describing)\s+(?=[\w'\"“‘])",
    re.I,
)
# Where a search's words end before what is said about the results: how they are sorted,
# a relative clause about them ("that are in stock").
_RESULTS_SAID = re.compile(
    r",|\s+(?:sorted|ordered|ranked|filtered|grouped)\s+by\b"
    r"|\s+(?:that|which|who)\s+(?:is|are|was|were|has|have|can|will)\b"
    r"|,?\s+and\s+(?:then\s+)?(?:give|show|return|list|send|tell|email|display)\b",
    re.I,
)
# "add a note: buy more coffee filters": a noun, a colon, the words.
# "Send an SMS to +447700900123: Meeting moved to 3pm": a recipient, a colon, the words.
_COLON = re.compile(r"(?:\b[A-Za-z]+|\+?\d[\d\-]{5,}|\b[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)+):\s+(?=\S)")
# Where passed-on words end: the sentence's end or the next step (", then"); after the tool's
# own verb, before the language a translation goes into ("translate how are you into French").
_END = re.compile(r"[.!?](?:\s|$)|\n|;\s|,?\s+(?:and\s+)?then\b")
_TAIL = re.compile(r"\s+(?:into|to|in)\s+[A-Z][a-z]+\s*$")


def said_content(
    text: str, params: Sequence[Param], verbs: AbstractSet[str] = frozenset(),
    *, shown: bool = False, bound: Sequence[Param] = (),
) -> tuple[Param, str, int, int, bool] | None:
    """The passed-on words of the request, the parameter they fill, and where they are.

    ``verbs`` are the words of the tool's own name: "translate how are you into French"
    passes on what follows the tool's verb (the last item says so). With ``shown``, only
    what a request that opens by asking to be shown things names ("Find wireless
    headphones") is read, as a search's query: the binder's last reading before phrases
    by meaning. None when the request passes nothing on, or no one parameter takes it.
    ``bound`` are the parameters bound already: another parameter named ends a search's
    words whether or not it took its value.
    """
    content = [p for p in params if _takes(p, _CONTENT_NAMES)]
    titles = [p for p in params if _takes(p, TITLE_NAMES)]
    # (where the words start, who takes them, the marker; None for the tool's own verb)
    found: list[tuple[int, list[Param], re.Pattern[str] | None]] = []
    topics = [p for p in content if _takes(p, _SEARCH_NAMES)]
    markers = () if shown else ((_SPEECH, content), (_COLON, content), (_SEARCH, content),
                                (_NAMING, titles or content), (_ABOUT, topics),
                                (_SAY, content))
    for pattern, takers in markers:
        match = pattern.search(text)
        if pattern is _NAMING and match is not None and text[match.end() :][:1].isupper():
            continue  # "named Alice of type person": a name is read as a name
        if pattern is _NAMING and match is not None and names_by_pronoun(match.group()):
            takers = _named_by_verb(match.group(), params, takers)
        if match is not None and len(takers) == 1:
            found.append((match.end(), takers, pattern))
    own_to = None if shown or len(content) != 1 else _OWN_TO.search(text)
    if own_to is not None and singular(own_to.group(1).lower()) in verbs:
        found.append((own_to.end(), content, _OWN_TO))
    if shown:
        match = _FIND.search(text) if len(topics) == 1 else None
        if match is None:
            return None
        found.append((match.end(), topics, _FIND))
    if not found and verbs and len(content) == 1:
        first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)\s+", text, re.I)
        # "translate the phrase 'Hello'", "send an email to ...": a thing named after the
        # verb is no text passed on.
        if first is not None and first.group(1).lower() in verbs and not re.match(
            r"(?:a|an|the|this|that|these|those|my|our|your|some|me|it)\b", text[first.end():],
            re.I,
        ):
            found.append((first.end(), content, None))
        elif first is not None and first.group(1).lower() in verbs:
            # "Generate an image of a cat riding a bicycle": the tool's own thing, then what
            # it is of
            own = _OWN_OF.match(text, first.end())
            if own is not None and singular(own.group(1).lower()) in verbs:
                found.append((own.end(), content, _OWN_OF))
    # "titled 'Printer jam' saying the printer is jammed": quoted words end where their quotes
    # do (the span reader has them); the words passed on are the next marker's
    unquoted = [item for item in found if text[item[0] : item[0] + 1] not in _QUOTES]
    if not unquoted:
        return _quoted_speech(text, found)
    start, takers, marker = min(unquoted, key=lambda item: item[0])
    by_verb = marker is None
    end = len(text)
    searched = marker in (_ABOUT, _SEARCH, _FIND)
    if marker is _ABOUT and "," in text[start:]:
        end = text.index(",", start)
    if marker is _NAMING:
        # "a folder called reports inside /home/ana/docs": where it goes is no part of its name
        where = _PLACED_AT.search(text, start)
        end = where.start() if where is not None else end
        token = re.match(r"[A-Za-z0-9][\w.\-/:]*[\w]", text[start:end])
        if token is not None and re.search(r"[\d/_\-.:]", token.group()):
            # "a branch called feature/login off develop", "a VM named ml-worker-01, ...": a
            # name written as one token ends where the token does
            end = start + token.end()
    if marker in (_SEARCH, _FIND):
        results = _RESULTS_SAID.search(text, start)
        end = results.start() if results is not None else end
    # the parameters bound already count too: "news about the Olympics in English" ends
    # before the language an enum took
    others = [p for p in (*params, *bound) if p is not takers[0]]
    if searched and any(is_place_param(p) or p.name_words & LANGUAGE_NAMES for p in others):
        # "news on Bitcoin in US" for a tool with a region too: the place is the region's;
        # "in German" is the language's
        other = re.search(r"\s+(?:in|from|at|near)\s+(?=[A-Z])", text[start:end])
        end = start + other.start() if other else end
    if searched:
        # "news about the election with a limit of 3", "red sneakers in the shoes category":
        # another parameter named ends the topic
        names = {word for p in others for word in p.name_words}
        for joint in re.finditer(
            r"\s+(?:with|and|at|using|in|from)\s+(?:(?:a|an|the)\s+)?((?:[\w\-]+\s+){0,2}[\w\-]+)",
            text[start:end],
        ):
            if any(singular(word.lower()) in names for word in joint.group(1).split()):
                end = start + joint.start()
                break
    for stop in _END.finditer(text, start):
        before = re.search(r"(\w+)$", text[: stop.start()])
        if stop.group().startswith(".") and before and before.group(1).lower() in TITLES:
            continue  # "Dr. Lee": a title's period ends no sentence
        end = min(end, stop.start())
        break
    if by_verb and re.match(r"[?!]\s+(?:from|into|to|in)\s+[A-Z][a-z]+\b", text[end:]):
        # "Translate Hello, how are you? from English to French": the languages after the
        # question mark say where the words passed on end; they are words, not values.
        end, by_verb = end + 1, False
    if marker in (_FIND, _SEARCH):
        # "Find videos of cats playing piano" to search_videos: the tool's own things, then
        # what they are of ("search for 10 videos of cats": the count is a value of its own)
        own = re.match(r"(?:\d+\s+)?([A-Za-z]+)\s+(?:of|about|on|for|with|featuring)\s+",
                       text[start:end])
        if own is not None and singular(own.group(1).lower()) in verbs:
            start += own.end()
    if text[start : start + 1] in _QUOTES:
        return None  # "titled 'Roe v. Wade'": quoted, the quotes say where it ends
    said = text[start:end].rstrip(" ,;:'\"")
    tail = _TAIL.search(said) if by_verb or marker is _SAY else None
    said = said[: tail.start()] if tail else said  # "how are you into French"
    return takers[0], said, start, start + len(said), by_verb


def _quoted_speech(
    text: str, found: Sequence[tuple[int, list[Param], re.Pattern[str] | None]]
) -> tuple[Param, str, int, int, bool] | None:
    """The quoted words a marker of speech introduces, for the content parameter.

    "Send a message to John saying 'Meet me at 5'": the quotes are the message's, whatever
    other parameter quoted text alone would suit.
    """
    spoken = [item for item in found if item[2] in (_SPEECH, _COLON)]
    if not spoken:
        return None
    start, takers, _ = min(spoken, key=lambda item: item[0])
    quoted = next((found for found in find_quoted(text) if found[2] == start), None)
    if quoted is None:
        return None
    _, inner, _, end = quoted
    return takers[0], inner, start, end, False


def trim_when(
    said: str, start: int, atoms: Sequence[tuple[Span, int]], *, when_taken: bool = True,
    length_taken: bool = False,
) -> str:
    """The passed-on words without a time, day or bound said after them.

    "water the plants at 6pm": the time is the reminder's, not the text's; "guitar lessons
    under 10 minutes": the bound is a value of its own. Without ``when_taken`` (no other
    parameter takes a time or a date) a time stays in the words: "Meeting moved to 3pm".
    With ``length_taken`` (another parameter counts minutes or hours), "call mom in 45
    minutes" passes on "call mom".
    """
    end = start + len(said)
    for span, _ in sorted(atoms, key=lambda item: -item[0].start):
        if not start < span.start < end or span.end < end - 1:
            continue
        head = said[: span.start - start]
        if span.kind in {"time", "date", "datetime"}:
            if not when_taken:
                continue
            cut = re.search(
                r"\s+(?:at|on|by|before|after|for|every|each|since|until|till|from)?\s*$", head
            )
        elif span.kind in {"number", "money", "percent"}:
            # "guitar lessons under 10 minutes", "hotels below $200": a bound of its own
            cut = re.search(r"\s+(?:(?:with|having|that\s+have)\s+)?"
                            r"(?:under|over|below|above|within|less\s+than|more\s+than"
                            r"|at\s+(?:least|most)|up\s+to|no\s+more\s+than)\s*$", head)
            if cut is None and length_taken and str(span.unit or "").lower() in DURATION_UNITS:
                cut = re.search(r"\s+(?:in|after|for)\s*$", head)  # "call mom in 45 minutes"
            if cut is None:
                continue
        else:
            continue
        said = head[: cut.start()] if cut else head
        end = start + len(said)
    return said


# "subject: Release, body: v2 is out.": a parameter's name, a colon, its words.
# The name opens the request or follows a comma: "about the NBA league: the record ..." is no
# field but a list announced.
_FIELD = re.compile(r"(?:^\s*|[,;(\n]\s*|[.!?]\s+)([A-Za-z][\w\-]*)\s*:\s+(?=\S)")
# "a note titled Ideas with body build a treehouse": "with", a text parameter's name, its words.
_WITH_FIELD = re.compile(
    r"\b(?:with|and)\s+(?:the\s+|a\s+)?([A-Za-z][\w\-]*)\s+"
    r"(?!(?:of|to|for|in|on|at|and|is|as|that|which|from|by|it|them)\b)(?=[A-Za-z'\"])",
    re.I,
)
_FIELD_END = re.compile(
    r"\s*[,;]\s*[A-Za-z][\w\-]*\s*:\s|[.!?](?:\s|$)|\n|\s*;\s|,?\s+(?:and\s+)?then\b"
)


def bind_named_fields(
    text: str,
    params: Sequence[Param],
    atoms: Sequence[tuple[Span, int]],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
    used: set[int],
) -> None:
    """Bind the words written after a parameter's own name and a colon, to the next field.

    "Send an email to team@corp.com, subject: Release, body: v2 is out": the subject is
    "Release", the body "v2 is out". Only free-text parameters, named by their whole name
    or its last word; the atoms inside are used.
    """
    by_name: dict[str, Param] = {}
    for param in params:
        if param.kind != "string" or param.enum or param.closed or param.name in values:
            continue
        words = _name_words(param)
        for key in {param.name.lower(), words[-1] if words else ""} - {""}:
            by_name.setdefault(key, param)
    fields = [(m, False) for m in _FIELD.finditer(text)]
    fields += [(m, True) for m in _WITH_FIELD.finditer(text)]
    for match, said_with in sorted(fields, key=lambda item: item[0].start()):
        named = by_name.get(match.group(1).lower())
        if named is None or named.name in values:
            continue
        if said_with and not _takes(named, _CONTENT_NAMES | (TITLE_NAMES - {"name"})):
            # "with size large" is an allowed value's business, "with name John Doe in New
            # York" a name's: no words passed on
            continue
        start = match.end()
        stop = _FIELD_END.search(text, start)
        end = stop.start() if stop is not None else len(text)
        if said_with:
            # "with body build a treehouse and pin it": the words end at the next step
            joint = re.search(r"\s+(?:and|with)\s+", text[start:end])
            end = start + joint.start() if joint is not None else end
            speech = _SPEECH.search(text, start, end)  # "with subject Lunch saying ..."
            end = speech.start() if speech is not None else end
            if not _takes(named, _CONTENT_NAMES):
                # "with label Gym at 6 am": a title ends before what is said of when or where
                place = re.search(r"\s+(?:at|on|in|for|by|from|to)\s+", text[start:end])
                end = start + place.start() if place is not None else end
        said = text[start:end].strip().strip("'\"“”")
        if not said:
            continue
        values[named.name], evidence[named.name] = [said], 2.0
        used.update(i for i, (span, _) in enumerate(atoms) if start <= span.start < end)


def bind_said_content(
    text: str,
    params: Sequence[Param],
    atoms: Sequence[tuple[Span, int]],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
    used: set[int],
    verbs: AbstractSet[str] = frozenset(),
    *, shown: bool = False,
) -> None:
    """Bind the passed-on words (:func:`said_content`); the atoms they hold are used."""
    free = [p for p in params if p.name not in values]
    found = said_content(text, free, verbs, shown=shown,
                         bound=[p for p in params if p.name in values])
    if found is None:
        return
    param, said, start, end, by_verb = found
    if any(i in used and span.start <= start < span.end for i, (span, _) in enumerate(atoms)):
        return  # "header X-Api-Key: abc123": the words after the colon are a pair's value
    if text[start : start + 1] in _QUOTES:
        values[param.name] = [said]
        evidence[param.name] = 2.0
        used.update(i for i, (span, _) in enumerate(atoms) if start <= span.start < end)
        return
    when_taken = any(
        other is not param and (other.name_words & DATE_WORDS or asks_date_form(other.schema)
                                or asks_clock_form(other.schema))
        for other in params
    )
    length_taken = any(
        other is not param and other.kind in {"integer", "number"}
        and bool((other.name_words | other.description_words) & _LENGTH_WORDS)
        for other in params
    )
    said = trim_when(said, start, atoms, when_taken=when_taken,
                     length_taken=length_taken).strip()
    if shown:
        said = _only_what_is_searched(said, values, verbs)
    if not said or len(said.split()) > 60:
        return
    end = start + len(said)
    if by_verb and any(start <= span.start < end for span, _ in atoms):
        return  # "Get 5 latest news on Bitcoin": after a plain verb, values are values
    # "tag it travel and documents": a list of words said is a list's items
    values[param.name] = [re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", said)] \
        if param.kind == "array" else [said]
    evidence[param.name] = 2.0
    used.update(i for i, (span, _) in enumerate(atoms) if start <= span.start < end)
    site = _SEARCH.search(text)
    if site is not None and site.end() == start:
        # "search GitHub for ...": the site searched is no value of the search
        used.update(i for i, (span, _) in enumerate(atoms)
                    if site.start() <= span.start < site.end())


# How results are ranked, said before what is searched: "the latest technology news".
_RANKING_WORDS = frozenset(
    "latest newest recent new best top good great cheap cheapest popular trending".split()
)


def _only_what_is_searched(said: str, values: dict[str, list[Any]], own: AbstractSet[str]) -> str:
    """A search's words less how results are ranked or filtered and the tool's own noun.

    "the newest vegetarian lasagna recipes" to find_recipe(query, diet): "lasagna"; the
    ranking word is no query, "vegetarian" is the diet's value, "recipes" the tool's own.
    """
    given = {str(v).lower() for said_values in values.values() for v in said_values
             if isinstance(v, str)}
    words = said.split()
    while len(words) > 1 and (words[0].lower() in _RANKING_WORDS or words[0].lower() in given):
        words = words[1:]
    if len(words) > 1 and singular(words[-1].lower()) in own:
        words = words[:-1]
    return " ".join(words)


# Words of a parameter that counts a length of time ("delay_minutes", "duration").
_LENGTH_WORDS = frozenset("minute minutes hour hours second seconds delay duration".split())


def _takes(param: Param, names: AbstractSet[str]) -> bool:
    """A free-text parameter named by one of ``names`` (its name's last word)."""
    if param.kind != "string" or param.enum or param.closed or param.identifier:
        return False
    words = _name_words(param)
    return bool(words) and words[-1] in names


def _name_words(param: Param) -> list[str]:
    """A parameter's name as lower-case words, camel case split ("targetLanguage")."""
    return re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", param.name).lower())


def _named_by_verb(said: str, params: Sequence[Param], titles: list[Param]) -> list[Param]:
    """Who "tag it travel" or "Call it focus." names: the parameter named for the verb.

    Without one, "call", "name" and "title" name the title; "tag" and "label" name nothing.
    """
    verb = said.split()[0].lower()
    own = [p for p in params if verb in p.name_words]
    return own or (titles if verb in {"call", "name", "title"} else [])


def names_by_pronoun(text: str) -> bool:
    """Whether a clause names what was asked for before: "Call it focus.", "label it gym"."""
    match = _NAMING.search(text)
    return match is not None and re.search(r"\s(?:it|them)\b", match.group()) is not None


# A file pattern parameter: named so, or described as a glob / wildcard ("'*.ext'").
_PATTERN_NAMES = frozenset("pattern glob mask wildcard".split())
_GLOB_DESCRIBED = re.compile(r"\bglob|\bwildcard|\*\.\w", re.I)
# ".md files", "the .csv ones": an extension said with its dot, as the file kind.
_GLOB = re.compile(r"(?<![^\s'\"(])\*{1,2}(?:/\*)?\.[A-Za-z0-9]{1,6}\b")
_EXTENSION = re.compile(r"(?<![\w*/\\.])\.([A-Za-z][A-Za-z0-9]{0,5})\b(?![\w/\\.])")


def bind_file_pattern(
    text: str, params: Sequence[Param], values: dict[str, list[Any]],
    evidence: dict[str, float],
) -> None:
    """"Find all .md files in /docs" to ``search_files(path, pattern)``: the pattern is *.md.

    A free-text parameter for a file pattern (by its name, or a description that speaks of
    globs or shows '*.ext') takes the one file extension said with its dot, written as a
    glob; a glob said whole ("*.pdf", "**/*.py") is taken as written.
    """
    open_ = [p for p in params if p.name not in values and p.kind == "string" and not p.enum
             and (set(_name_words(p)) & _PATTERN_NAMES
                  or _GLOB_DESCRIBED.search(str(p.schema.get("description") or "")))]
    globs = {m.group() for m in _GLOB.finditer(text)}
    said = globs or {f"*.{m.group(1)}" for m in _EXTENSION.finditer(text)}
    if len(open_) == 1 and len(said) == 1:
        values[open_[0].name], evidence[open_[0].name] = [said.pop()], 2.0
