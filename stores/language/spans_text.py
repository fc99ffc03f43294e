"""Textual spans of a request: quoted text, URLs, e-mails, paths, identifiers, JSON, names.

Each finder returns ``(kind, value, start, end)`` candidates; `stores.language.spans` ranks
them against the numbers and dates and keeps the ones that do not overlap a stronger span.
Word lists here are English function words and request verbs (language), never a domain's.
Lookarounds use ASCII classes, not a word class: a Chinese character next to a value
("读取/tmp/a.txt", "数量是3") is not part of it.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from functools import lru_cache
from typing import Any

from stores.language.keywords import STOPWORDS
from stores.language.spans_numbers import (
    DURATION_UNITS,
    MEASURE_UNITS,
    currency_before,
    is_measure_unit,
    unit_after,
)

Candidate = tuple[str, Any, int, int]

# --- quoted -----------------------------------------------------------------------------------

_QUOTED = re.compile(
    r""""(?P<dq>[^"\n]+)"
    | (?<![A-Za-z0-9'’])'(?P<sq>(?:[^'\n]|(?<=[A-Za-z])'(?=[a-z]))+)'(?![A-Za-z0-9])
    | “(?P<cdq>[^”\n]+)”
    | ‘(?P<csq>[^’\n]+)’
    | `(?P<bt>[^`\n]+)`
    | 「(?P<cn1>[^」\n]+)」
    | 『(?P<cn2>[^』\n]+)』
    | 《(?P<cn3>[^》\n]+)》""",
    re.VERBOSE,
)


def find_quoted(text: str) -> list[Candidate]:
    """Text inside '…', "…", “…”, ‘…’, `…`, 「…」, 『…』, 《…》 (value without the quotes)."""
    found: list[Candidate] = []
    whole = text.strip().rstrip(".!?。！？ ")
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        if match.group() == whole and " " in inner.strip():
            # A request wrapped in quotes as a whole: its values are inside.
            found.extend(_shifted(find_quoted(inner), match.start() + 1))
            continue
        if inner.strip():
            found.append(("quoted", inner, match.start(), match.end()))
    return found


def _shifted(candidates: list[Candidate], offset: int) -> list[Candidate]:
    return [(kind, value, start + offset, end + offset) for kind, value, start, end in candidates]


# --- urls, e-mails, paths ---------------------------------------------------------------------

_URL = re.compile(
    r"(?<![A-Za-z0-9_])(?:(?:https?|ftp|wss?|file)://|www\.)[^\s<>\"'`，。、）)\]}]+"
    # A bare domain: "example.com", "Foodnetwork.com/recipes".
    r"|(?<![A-Za-z0-9_.@/-])[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*"
    r"\.(?:com|org|net|edu|gov|io|ai|dev|app|info|biz|co|uk|de|fr|jp|cn|ru|in|us|eu)"
    r"(?![A-Za-z0-9@-])(?:/[^\s<>\"'`，。、）)\]}]*)?",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
                    r"\.[A-Za-z]{2,}(?![A-Za-z0-9])")  # fmt: skip
_FILE_EXTENSIONS = (
    "txt|md|rst|csv|tsv|json|jsonl|yaml|yml|toml|ini|cfg|conf|xml|html?|css|js|ts|tsx|jsx|py"
    "|ipynb|java|c|h|cpp|hpp|cs|go|rs|rb|php|sh|bat|ps1|sql|db|sqlite|log|pdf|docx?|xlsx?"
    "|pptx?|odt|png|jpe?g|gif|svg|bmp|webp|ico|mp3|mp4|wav|avi|mov|mkv|zip|tar|gz|tgz|bz2|7z"
    "|rar|exe|dll|so|dmg|apk|iso|bin|dat|parquet|pkl|npy|env|lock|tex|bib|epub"
)
_PATH = re.compile(
    rf"""(?<![A-Za-z0-9_/:.~\\-])(?:
      (?:~|\.{{1,2}})?/[A-Za-z0-9_.@+~-]+(?:/[A-Za-z0-9_.@+~-]*)*
    | [A-Za-z]:\\[^\s"'<>|*?，。]*
    | [A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.@-]+)*/[A-Za-z0-9_@-][A-Za-z0-9_.@-]*\.(?:{_FILE_EXTENSIONS})
    | [A-Za-z0-9_-][A-Za-z0-9_.-]*\.(?:{_FILE_EXTENSIONS})
    )(?![A-Za-z0-9_])""",
    re.VERBOSE | re.IGNORECASE,
)
_TRAILING_PUNCTUATION = ".,;:!?"
# "/", "3/4/5", a command switch "/s", initials "D.C": not paths.
_NOT_A_PATH = re.compile(r"[~.]?/|[\d/.]+|/[A-Za-z]|(?:[A-Z]\.)+[A-Za-z]")


# "Asia/Tokyo", "America/New_York", "America/Argentina/Buenos_Aires": capitalized words
# joined by "/" (time-zone names and the like) are one identifier, not two names.
_REGION_NAME = re.compile(
    r"(?<![A-Za-z0-9_/.-])[A-Z][A-Za-z]+(?:_[A-Z][A-Za-z]+)*"
    r"(?:/[A-Z][A-Za-z]+(?:_[A-Z][A-Za-z]+)*)+(?![A-Za-z0-9_/])"
)


def is_region_name(raw: str) -> bool:
    """Whether a slashed token is a region's name ("Europe/Berlin"), not a file or a repo."""
    return _REGION_NAME.fullmatch(raw) is not None


# "*.pdf", "report-??.csv", "src/**/*.py": glob patterns are path-like values.
_GLOB = re.compile(r"(?<![\w*?/.-])[\w./-]*[*?][\w.*?/-]*\.[A-Za-z][A-Za-z0-9]*(?![\w*?])")


def find_urls_emails_paths(text: str) -> list[Candidate]:
    """URLs (``https://…``, ``www.…``), e-mail addresses, file paths, globs, region names."""
    found: list[Candidate] = [
        ("identifier", m.group(), m.start(), m.end()) for m in _REGION_NAME.finditer(text)
    ]
    found += [("path", m.group(), m.start(), m.end()) for m in _GLOB.finditer(text)]
    for kind, pattern in (("url", _URL), ("email", _EMAIL), ("path", _PATH)):
        for match in pattern.finditer(text):
            raw = match.group().rstrip(_TRAILING_PUNCTUATION)
            if kind == "path" and _NOT_A_PATH.fullmatch(raw):
                continue
            if raw:
                found.append((kind, raw, match.start(), match.start() + len(raw)))
    return found


_FILE_NAME = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def value_kind_words(text: str) -> list[str]:
    """What the text's paths, URLs and e-mail addresses are, in the words schemas use.

    "What's in /srv/notes.txt?" shares no word with ``read_file(path)``, and the path's own
    words ("srv", "notes", "txt") pull toward whatever else mentions notes: "file" (a name
    with an extension) or "path" says what kind of value the request carries. A file is not
    said to be a path too: every tool of a file server takes one, and the word pulls toward
    those whose descriptions say it most (listings, searches), not toward reading the file.
    """
    words: list[str] = []
    for kind, raw, _start, _end in find_urls_emails_paths(text):
        if kind == "path":
            words.append("file" if _FILE_NAME.search(raw) else "path")
        elif kind in {"url", "email"}:
            words.append(kind)
    return list(dict.fromkeys(words))


# What a value is, said in words for an embedding model.
_VALUE_WORDS = {"url": "the web page", "email": "the e-mail"}
_NAMED_BEFORE = re.compile(r"\b(?:file|folder|directory|dir|path|page|url|site|website|link"
                           r"|e-?mail)\s*:?\s*$", re.I)


@lru_cache(maxsize=2048)
def values_as_kinds(text: str) -> str:
    """The text with its paths, URLs and e-mail addresses said as the kind of thing each is.

    "When was /tmp/x7/notes.txt last modified?" asks what "When was the file last
    modified?" asks: the letters of a path (a random temporary folder, a user's own names)
    say nothing of what is asked. A value named right before ("the file /tmp/a.txt") is
    said once. Cached: the planner asks it of one request once per candidate tool.
    """
    found = sorted(
        (c for c in find_urls_emails_paths(text) if c[0] in {"path", "url", "email"}),
        key=lambda c: c[2],
    )
    if not found:
        return text
    parts: list[str] = []
    at = 0
    for kind, raw, start, end in found:
        if start < at:
            continue
        before = text[at:start]
        parts.append(before)
        if not _NAMED_BEFORE.search(before):
            if kind == "path":
                parts.append("the file" if _FILE_NAME.search(raw) else "the folder")
            else:
                parts.append(_VALUE_WORDS[kind])
        at = end
    parts.append(text[at:])
    return re.sub(r"\s{2,}", " ", "".join(parts)).strip()


# "How big is notes.txt?" asks for a size, in the word a schema uses for it.
_HOW_ASKS = {
    "big": "size", "large": "size", "small": "size", "long": "length", "old": "age",
    "far": "distance", "heavy": "weight", "tall": "height", "high": "height", "deep": "depth",
    "wide": "width", "fast": "speed",
}
_HOW = re.compile(r"\bhow\s+(" + "|".join(_HOW_ASKS) + r")\b", re.I)


def asked_attribute_words(text: str) -> list[str]:
    """The attribute a "how <adjective>" question asks for ("How big is X?": size)."""
    return list(dict.fromkeys(_HOW_ASKS[m.group(1).lower()] for m in _HOW.finditer(text)))


def without_paths(text: str) -> str:
    """The text with its file paths taken out ("/tmp/pytest-266/first-hour0/docs" names no tool).

    A path's own words say where, not what to do; a URL keeps its words ("github").
    """
    for kind, _raw, start, end in sorted(find_urls_emails_paths(text), key=lambda f: -f[2]):
        if kind == "path":
            text = f"{text[:start]} {text[end:]}"
    return " ".join(text.split())


# --- identifiers ------------------------------------------------------------------------------

_TOKEN = re.compile(r"(?<![A-Za-z0-9_.#/@-])#?[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?")
_NOT_ID_SUFFIXES = frozenset(
    {"st", "nd", "rd", "th", "am", "pm", "k", "x"}
    | {u for u in MEASURE_UNITS | set(DURATION_UNITS) if u.isascii()}
)
_NUMBER_WITH_SUFFIX = re.compile(r"(\d+(?:\.\d+)?)-?([A-Za-z]+)")
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][-+]?\d+")


_DOTTED = re.compile(r"(?<![A-Za-z0-9_.])v?\d+(?:\.\d+){2,}(?![A-Za-z0-9_]|\.\d)")


def find_identifiers(text: str) -> list[Candidate]:
    """Id-like tokens: ``ORD-2024-001``, ``A12B``, ``#123456`` (as "123456"), ``000042``.

    Digit runs count from 5 digits (or 3 with a leading zero). The value is the string as
    written, leading zeros kept.
    """
    # IP addresses and versions: "192.168.1.1", "v1.2.3".
    found: list[Candidate] = [
        ("identifier", m.group(), m.start(), m.end()) for m in _DOTTED.finditer(text)
    ]
    for match in _TOKEN.finditer(text):
        raw = match.group()
        start, end = match.start(), match.end()
        if text[end : end + 1] == "." and text[end + 1 : end + 2].isdigit():
            continue  # "12345.67" is a decimal number
        if text[end : end + 1] == "@" or text[end : end + 1] == "/":
            continue
        if raw.startswith("#"):
            if any(c.isdigit() for c in raw):
                found.append(("identifier", raw[1:], start, end))
            continue
        if not any(c.isdigit() for c in raw):
            continue
        if _is_identifier(raw, text, start):
            found.append(("identifier", raw, start, end))
    return found


_ARRAY_ITEMS = re.compile(r"[-+\d.,\s]*")


def _in_array(text: str, start: int, end: int) -> bool:
    """Whether digits at [start, end) sit in a bracketed array of numbers."""
    before = text[max(0, start - 200) : start]
    opening = before.rfind("[")
    closing = text.find("]", end, end + 200)
    return (
        opening >= 0
        and closing >= 0
        and _ARRAY_ITEMS.fullmatch(before, opening + 1) is not None
        and _ARRAY_ITEMS.fullmatch(text, end, closing) is not None
    )


def _is_identifier(raw: str, text: str, start: int) -> bool:
    if raw.isdigit():
        if start >= 2 and text[start - 1] == "," and text[start - 2].isdigit() and len(raw) == 3:
            return False  # a group of "1,000,000"
        end = start + len(raw)
        if currency_before(text, start) is not None or unit_after(text, end) is not None:
            return False  # "$15000", "25000 km": an amount
        if _in_array(text, start, end):
            return False  # "[-50000, 10000, 15000]": numbers of an array
        return len(raw) >= 5 or (raw.startswith("0") and len(raw) >= 3)
    if any(c.isalpha() for c in raw):
        with_suffix = _NUMBER_WITH_SUFFIX.fullmatch(raw)
        if with_suffix and (
            with_suffix.group(2).lower() in _NOT_ID_SUFFIXES
            or is_measure_unit(with_suffix.group(2))
        ):
            return False
        if re.fullmatch(r"\d+(?:\.\d+)?-[a-z]+", raw):
            return False  # "15-character", "5-star": a number before a word
        return not _SCIENTIFIC.fullmatch(raw)
    # Digits joined by "-" or "_": a code when long ("555-123-4567"), a range when short ("3-4").
    groups = re.split(r"[-_]", raw)
    return len(groups) >= 3 or sum(len(g) for g in groups) >= 5


# --- JSON -------------------------------------------------------------------------------------


def find_json(text: str) -> list[Candidate]:
    """JSON objects (and Python dict literals), and arrays holding objects or arrays.

    An array of plain values ("[1, 2, 3]", "['a', 'b']") is left to the list finder, which
    keeps the spans of its items.
    """
    found: list[Candidate] = []
    if "}" not in text and "]" not in text:
        return found
    position = 0
    # Each failed open scans to the end of the text: a budget keeps a text of many unclosed
    # brackets linear instead of quadratic.
    budget = 4 * len(text) + 4096
    while True:
        start = _next_open(text, position)
        if start < 0 or budget <= 0:
            return found
        end = _matching_close(text, start)
        budget -= (end if end > 0 else len(text)) - start
        if end < 0:
            position = start + 1
            continue
        raw = text[start:end]
        value = _load_literal(raw)
        nested = raw.startswith("[") and isinstance(value, list)
        if isinstance(value, dict) or (nested and any(isinstance(v, dict | list) for v in value)):
            found.append(("json", value, start, end))
            position = end
        else:
            position = start + 1


def _next_open(text: str, position: int) -> int:
    braces = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
    return min(braces) if braces else -1


def _matching_close(text: str, start: int) -> int:
    depth = 0
    quote = ""
    index = start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return -1


def _load_literal(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        pass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "[1h30m]" would print a SyntaxWarning
            return ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


# --- names ------------------------------------------------------------------------------------

_CAPITALISED = re.compile(
    r"(?<![A-Za-z0-9_'’-])"
    r"(?:(?:[A-Z]\.){2,}|[A-Z][a-z]+(?:['’-](?![st]\b)[A-Za-z]+)*|[A-Z]{2,}|[A-Z]\."
    r"|[A-Z][a-z]*[A-Z][a-z]+)"
    r"(?![A-Za-z0-9_])"
)
_NAME_CONNECTORS = frozenset("of de del della la le van von da di du der den bin al y".split())
# Words that start requests or are too common to be a name on their own (English, not a domain).
_COMMON_WORDS = frozenset(
    "find get show list create make book send read write set calculate compute tell give"
    " search look add update delete remove cancel check order buy place open close start stop"
    " run fetch retrieve convert translate play call email post put move copy rename upload"
    " download schedule reserve pay transfer plan help please can could would should will what"
    " how where when who which why is are do does did i the a an my this that these those"
    " then also and or but if after before next first last today tomorrow yesterday yes no"
    " true false ok okay hi hello hey thanks thank note id ids name names number"
    " monday tuesday wednesday thursday friday saturday sunday january february march april"
    " may june july august september october november december"
    " mr mrs ms dr additionally furthermore moreover lastly finally however besides meanwhile"
    " firstly secondly thirdly also otherwise instead sure".split()
)


_REGION = re.compile(r", ((?:[A-Z]\.){2,}|[A-Z]{2}(?![A-Za-z0-9]))")


def find_names(text: str) -> list[Candidate]:
    """Capitalised proper names.

    Runs of capitalised words ("New York City", "Taylor Swift", "Bank of America"), with a
    two-letter region after a comma ("Boston, MA"); a single word only when it is not at the
    start of a sentence and not a common word.
    """
    words = list(_CAPITALISED.finditer(text))
    found: list[Candidate] = []
    index = 0
    while index < len(words):
        run = [words[index]]
        stop = index + 1
        while stop < len(words):
            if re.fullmatch(r"(?:[A-Z]\.){2,}", run[-1].group()):
                break  # "Liverpool F.C. Include ...": the dot may end the sentence
            gap = text[run[-1].end() : words[stop].start()]
            if gap == " ":
                run.append(words[stop])
                stop += 1
                continue
            connector = gap.strip()
            if (
                gap.startswith(" ")
                and gap.endswith(" ")
                and connector in _NAME_CONNECTORS
                and gap.count(" ") == 2
            ):
                run.append(words[stop])
                stop += 1
                continue
            break
        index = stop
        # Leading request verbs and function words are not part of a name ("Find Taylor Swift").
        while run and run[0].group().lower() in _COMMON_WORDS:
            run = run[1:]
        while run and run[-1].group().lower() in _COMMON_WORDS:
            run = run[:-1]
        if not run:
            continue
        start, end = run[0].start(), run[-1].end()
        if len(run) == 1:
            word = run[0].group()
            low = word.lower().rstrip(".")
            if low in STOPWORDS or low in _COMMON_WORDS or len(low) < 2:
                continue
            if _at_sentence_start(text, start) and not _LIST_FOLLOWS.match(text, run[0].end()):
                continue
        region = _REGION.match(text, end)
        if region is not None:
            end = region.end()
        value = text[start:end]
        found.append(("name", value, start, end))
    return found


# A capitalised word at the start of a sentence is a name when a list of names follows it
# ("Paris, London and Tokyo are ...").
_LIST_FOLLOWS = re.compile(r"(?:,| and| or) (?!I\b)[A-Z]")


def _at_sentence_start(text: str, start: int) -> bool:
    before = text[max(0, start - 12) : start].rstrip(" \t\"'“‘(")
    if not before and start > 12:
        before = text[:start].rstrip(" \t\"'“‘(")
    return not before or before[-1] in ".!?\n:;。！？；："


# --- booleans ---------------------------------------------------------------------------------

_BOOLEAN = re.compile(r"(?<![A-Za-z0-9_])(true|false|yes|no)(?![A-Za-z0-9_])", re.IGNORECASE)
_BOOLEAN_LEADS = re.compile(r"(?:=|:|\bto|\bas|\bis|\bbe|\bequals?)\s*$", re.IGNORECASE)
_YES_NO_LEADS = re.compile(r"(?:=|:|\bto|\bas|\bequals?)\s*$", re.IGNORECASE)


def find_booleans(text: str) -> list[Candidate]:
    """Booleans written as a value.

    "true"/"false"/"yes"/"no" after "=", ":", "to", "as" (and "is", "be" for true/false), as in
    ``verbose=true`` or "set notifications to false".
    """
    found: list[Candidate] = []
    for match in _BOOLEAN.finditer(text):
        word = match.group(1).lower()
        before = text[max(0, match.start() - 12) : match.start()]
        leads = _BOOLEAN_LEADS if word in {"true", "false"} else _YES_NO_LEADS
        if leads.search(before):
            found.append(("boolean", word in {"true", "yes"}, match.start(), match.end()))
    return found
