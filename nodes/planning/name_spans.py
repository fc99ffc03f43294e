"""Names in a request: capitalised runs read as one name ("Taylor Swift", "New York City").

The span reader's (:mod:`nodes.planning.request_spans`) scan of names, after numbers, dates,
quoted text and addresses took their stretches: a run of capitalised words not at a sentence's
start ("Maroon 5", "S&P 500", "Dr. Jane Smith", "5th Avenue"), without a request verb that
opens the request ("Invite Anna Lee") or the speaker after it ("Tell Mark I'm late"), a title
opened by a function word with its small words ("To Kill a Mockingbird"), a day said by its
name as a date. English grammar only: no domain's words.
"""

from __future__ import annotations

import re

from stores.language.places import place_written_lower
from stores.language.spans import Span
from stores.language.units import unit_of

TITLES = frozenset("mr mrs ms dr prof st".split())
# Days said by their names.
DAY_NAMES = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
NOT_NAMES = frozenset(
    """id ids i i'm i'd i've a an the what what's which who how when where why is are can could
    would
    should will please find get calculate compute give tell show list let me my we our you
    your it its this that these those and or but if for in on at of to with by from also then
    now ok okay do does did use using retrieve fetch provide search check create
    make add set update delete book order play plot predict identify determine generate
    yesterday today tomorrow tonight
    it's that's there's here's he's she's we're they're you're i'll we'll you'll he'll she'll
    they'll we've you've they've we'd you'd he'd she'd they'd""".split()
)
# A subtitle after a colon: capitalized words, joined by small words ("of the").
_SUBTITLE = re.compile(
    r":\s(?:[A-Z][\w'’&\-]*|\d+)(?:\s+(?:(?:of|the|and|a|an|in|on|to|for)\s+)*"
    r"(?:[A-Z][\w'’&\-]*|\d+))*"
)
# What may follow a title: an end, a stop, or a small word ("... at AMC", "... tonight").
_AFTER_TITLE = re.compile(
    r"\s*(?:[,.;!?)'\"]|(?:at|in|on|for|from|to|and|or|by|with|is|was|tonight|today|"
    r"tomorrow)\b|$)",
    re.I,
)
# Words that say a field's value follows their colon ("Subject: Hello"), no title.
_FIELD_WORDS = frozenset(
    "subject title name note message re body text status priority type location date time"
    " from to cc".split()
)


def _may_have_subtitle(name: str) -> bool:
    """Whether a name before a colon may have a subtitle (it is no field's word)."""
    return name.lower() not in _FIELD_WORDS


_INTERJECTIONS = frozenset("oh ah hey hi hello well yeah yes wow hmm um uh btw".split())
_AFTER_INTERJECTIONS = frozenset(
    "and so also i no wait please thanks one another my can could actually just".split()
)
# "5th Avenue", "42nd Street": an ordinal written before a capital word is part of its name.
_ORDINAL_BEFORE = re.compile(r"(?<![\w.])\d+(?:st|nd|rd|th)\s+$", re.I)
# Greetings and verbs a request starts with that are names elsewhere ("Text Maria that ...",
# "on Switch", "play Hey Jude").
_LEADING_VERBS = frozenset(
    """hi hello hey
    send text email message remind schedule call cancel remove turn switch open close start
    stop pause resume translate convert look notify post share upload download save ping
    find show get tell ask invite add play book give buy order reserve create set put list
    check fetch read delete update rename move copy follow block thank visit write search""".split()
)
# Function words that, capitalised inside a sentence, open a title ("a room at The Plaza",
# "Who wrote To Kill a Mockingbird?"); the small words such a title keeps lower-case (not
# "in" nor "at": "The Plaza in New York" is two names).
_TITLE_LEADS = frozenset({"The", "A", "An", "To", "In", "Of", "On", "For", "With"})
_TITLE_WORDS = frozenset({"a", "an", "the", "of", "to", "with", "on", "for", "and"})
_SPEAKER = frozenset({"I", "I'm", "I'd", "I've", "I'll"})
CONNECTORS = frozenset({"of", "de", "la", "del", "van", "von", "da", "the", "and", "&", "du"})


def is_free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether no span taken so far overlaps ``start``-``end``."""
    return all(end <= a or start >= b for a, b in taken)



def add_span(spans: list[Span], taken: list[tuple[int, int]], span: Span) -> None:
    """Keep a span and mark its stretch of text taken."""
    spans.append(span)
    taken.append((span.start, span.end))



# A number, maybe with a unit word after it, right before a word ("25 degrees Celsius").
_MEASURED = re.compile(r"\d[\d.,]*\s*(?:[A-Za-z°]+\s+)?$")


# What may follow a possessive that names a place of its own ("at Luigi's.", "from Domino's to").
_STANDS_ALONE = re.compile(
    r"\s*(?:[.,;:!?)]|$|(?:to|in|on|at|for|with|and|or|from|near|tonight|today|tomorrow)\b)"
)


def scan_names(text: str, spans: list[Span], taken: list[tuple[int, int]]) -> None:
    """Capitalized runs ("Taylor Swift", "New York City", "Maroon 5") not at a sentence start."""
    words = list(re.finditer(r"[A-Za-z][\w'’&.\-]*[\w]|[A-Za-z]|\d+", text))
    index = 0
    while index < len(words):
        word = words[index]
        raw = word.group()
        sentence_start = (
            not text[: word.start()].strip() or text[: word.start()].rstrip()[-1:] in ".?!"
        )
        following = words[index + 1] if index + 1 < len(words) else None
        # "a room at The Plaza": a capital "The" inside a sentence starts the name it leads.
        leads_name = (
            raw in _TITLE_LEADS and not sentence_start and following is not None
            and following.group()[:1].isupper()
            and not text[word.end() : following.start()].strip()
        )
        # "iPhone 15", "eBay": a brand written with its capital second is a name too.
        capital = (raw[:1].isupper() or re.match(r"[a-z]+[A-Z][A-Za-z]", raw) is not None) and (
            raw.lower().replace("’", "'") not in NOT_NAMES
            and not (sentence_start and raw.lower() in _LEADING_VERBS)
            or leads_name
            # "A, B and C": a capital letter listed with other letters is a label.
            or re.match(r"[A-Z](?:\s*,\s*|\s+(?:and|or)\s+)[A-Z]\b", text[word.start() :])
            is not None
        )
        # "298K": a letter written against a number is its unit, not a name.
        glued = word.start() > 0 and text[word.start() - 1].isdigit()
        # "Oh and cc my boss", "Hey, ...": an interjection, unless a name goes on from it
        # ("Hey Jude").
        interjection = raw.lower() in _INTERJECTIONS and (
            following is None or bool(text[word.end() : following.start()].strip())
            or following.group().lower() in _AFTER_INTERJECTIONS
        )
        if not capital or glued or interjection or not is_free(taken, word.start(), word.end()):
            index += 1
            continue
        if raw.lower() in DAY_NAMES:
            # "on Wednesday", "today is Monday": a day said by its name, not a place or a
            # person; before a date ("Saturday, July 8th 2028") it only names that date's day.
            glue = re.match(r"[,\s]+(?:the\s+)?", text[word.end() :])
            after = word.end() + (glue.end() if glue else 0)
            if not any(span.kind == "date" and span.start == after for span in spans):
                add_span(spans, taken, Span("date", raw, raw, word.start(), word.end()))
            index += 1
            continue
        stop = index + 1
        while stop < len(words):
            nxt = words[stop].group()
            gap = text[words[stop - 1].end() : words[stop].start()]
            if gap == ". " and stop == index + 1 and raw.lower() in TITLES and nxt[:1].isupper():
                stop += 1  # "Mr. X", "Dr. Jane Smith": a title is part of the name
                continue
            if gap.strip() not in {"", "-", "&"} or not is_free(
                taken, words[stop].start(), words[stop].end()
            ):
                break
            trailing_digit = (
                nxt.isdigit()
                and len(nxt) <= 2
                and re.match(
                    # ("Inside Out 2 playing": a verb in -ing counts nothing)
                    r"\s*(?:[,.;!?)]|(?:and|or|for|in|on|at|with|by|from|to|[a-z]{2,}ing)\b|$)",
                    text[words[stop].end() :],
                )
                is not None
            )
            # "S&P 500": a name written with "&" keeps the number after it.
            indexed = nxt.isdigit() and stop == index + 1 and "&" in raw
            if (nxt[:1].isupper() and nxt.replace("’", "'") not in _SPEAKER) or trailing_digit \
                    or indexed:
                stop += 1  # "Tell Mark Smith I'm late": the speaker is no part of the name
            elif (
                (nxt.lower() in CONNECTORS - {"and"}
                 # "To Kill a Mockingbird": a title led by a function word keeps its own
                 or (leads_name and raw != "The" and nxt in _TITLE_WORDS))
                and stop + 1 < len(words)
                and words[stop + 1].group()[:1].isupper()
            ):
                stop += 2
            else:
                break
        if stop == index + 1 and _MEASURED.search(text[: word.start()]) and unit_of(raw):
            index += 1  # "25 degrees Celsius", "300 Kelvin": the measure's unit, no name
            continue
        linked = stop > index + 1 and words[index + 1].group().lower() == "the"
        if sentence_start and (stop == index + 1 or linked) and not (
            stop == index + 1 and place_written_lower(raw) is not None
        ):
            # "Forecast the S&P 500": the first word of a sentence is no name's first word,
            # unless it is a country or a large city ("Beijing weather today?").
            index += 1
            continue
        start, end = word.start(), words[stop - 1].end()
        ordinal = _ORDINAL_BEFORE.search(text[:start])
        if ordinal is not None and not sentence_start:
            # The ordinal was read as a number first: it is the name's first word instead.
            spans[:] = [s for s in spans if not (s.kind == "number" and s.start == ordinal.start())]
            taken[:] = [t for t in taken if t[0] != ordinal.start()]
            start = ordinal.start()
        if text[end - 2 : end].lower() in {"'s", "’s"} and not _STANDS_ALONE.match(text, end):
            end -= 2  # "Ronaldo's matches": the name is Ronaldo; "a table at Luigi's" is Luigi's
        subtitle = _SUBTITLE.match(text, end)
        if subtitle is not None and _may_have_subtitle(text[start:end]) and is_free(
            taken, end, subtitle.end()
        ) and len(subtitle.group().split()) >= 3 and _AFTER_TITLE.match(text, subtitle.end()):
            # "Dune: Part Two", "Zelda: Breath of the Wild": a title and its subtitle
            end = subtitle.end()
            while stop < len(words) and words[stop].start() < end:
                stop += 1
        surface = text[start:end]
        add_span(spans, taken, Span("name", surface, surface, start, end))
        index = stop
