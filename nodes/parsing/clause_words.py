"""Where a clause's words stand: masked values, possessors, prepositions, pointing words.

Token-level helpers of the rule intent parser (`nodes.parsing.rules`), and what a question of
a past deed asks ("When was it modified?"); English grammar only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nodes.parsing.splitting import DETERMINERS, PREPOSITIONS
from stores.language.lexicon import TermMatch

__all__ = [
    "after_preposition",
    "asks_of_the_past",
    "demonstrative",
    "is_masked_token",
    "mask",
    "possessors",
    "relative_clause_start",
    "rewrite_give_me",
    "summary_ask",
]


def mask(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Replace value spans by a neutral token so their words are not read as terms."""
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        pieces.append(text[cursor:start])
        pieces.append(" 0 ")
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def is_masked_token(tokens: Sequence[str], match: TermMatch) -> bool:
    """Whether a lexicon match covers a masked value (see :func:`mask`)."""
    return any(t == "0" for t in tokens[match.start : match.stop])


GIVE_ME_PATTERN = re.compile(
    r"\b(?:give|send|get|bring|fetch|show)\s+me\b(?!\s+(?:a|an|one|some|new|another|\d+)\s+"
    r"(?!list\b|summary\b|overview\b|report\b|breakdown\b|copy\b|view\b))",
    re.I,
)


def rewrite_give_me(text: str) -> str:
    """Read "give me the order details" as "show ...": it asks to see, not to issue."""
    return GIVE_ME_PATTERN.sub("show", text)


def possessors(
    text: str, spans: Sequence[tuple[int, int, str]], objects: Sequence[TermMatch]
) -> list[TermMatch]:
    """Objects followed by a possessive and another object: the user in "user 42's wallet".

    Chinese marks the possessor with 的: the user in "用户 7 的购物车" (user 7's cart).
    """
    found: list[TermMatch] = []
    for current, following in zip(objects, objects[1:], strict=False):
        between = text[spans[current.stop - 1][1] : spans[following.start][0]]
        if re.fullmatch(r"\s*(?:0\s*|\S+)?['’]s\s+|\s*(?:0\s*)?的\s*", between):
            found.append(current)
    return found


def after_preposition(
    tokens: Sequence[str], index: int, prepositions: frozenset[str] | set[str] = PREPOSITIONS
) -> bool:
    """Whether the object at ``index`` follows a preposition: "to the user's cart"."""
    position = index - 1
    while position >= 0 and index - position <= 5:
        token = tokens[position]
        if token in prepositions:
            return True
        if (
            token in DETERMINERS
            or token in {"s", "'s", "0"}
            or token.isdigit()
            or (token.isalpha() and index - position <= 3)
        ):
            position -= 1
            continue
        return False
    return False


def relative_clause_start(tokens: Sequence[str], objects: Sequence[TermMatch]) -> int:
    """Token index where "whose"/"who"/"that ..." after an object starts, else len(tokens)."""
    object_ends = {m.stop for m in objects}
    for index, token in enumerate(tokens):
        if token in {"whose", "who", "which", "where"} and index > 0:
            return index
        if token == "that" and index in object_ends:
            return index
    return len(tokens)


def demonstrative(tokens: Sequence[str]) -> bool:
    """Whether a clause points back: "that order", "the same user", "cancel that"."""
    for index, token in enumerate(tokens):
        if token in {"same", "said", "above", "aforementioned"}:
            return True
        if token in {"this", "that", "these", "those"}:
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            preceding = tokens[index - 1] if index > 0 else ""
            if preceding in {"so", "such"}:
                continue
            if token == "that" and index > 1 and tokens[index - 2] in {"a", "an", "the"}:
                continue  # "a recipe that uses chicken": a relative clause, no reference
            if following in {"", "one", "ones", "and", "too", "as", "then"} or following.isalpha():
                return True
    return False


# What a closing ask points back at: "these", "those", "all of this", "each of them".
_POINTS_BACK = re.compile(
    r"\b(?:these|those|all\s+(?:of\s+)?(?:this|that|these|those|them)|"
    r"each\s+of\s+(?:these|those|them)|the\s+above)\b",
    re.I,
)
_ASKING = re.compile(r"^(?:can|could|would|will)\s+you\b|^please\b|\?\s*$", re.I)
_FILLER_WORDS = frozenset(
    """can could would will you please kindly help me us for with the a an of all each
    these those this that them above i my our me""".split()
)


def summary_ask(text: str) -> bool:
    """Whether a clause only asks for what the clauses around it asked: "Can you solve these?".

    A question (or a "please ...") that points back ("these", "all of this") and says no
    value of its own: no digit, no quote, no name, at most two words beyond its pointing and
    asking words ("Could you please calculate these for me?", "Can you assist with these
    searches?").
    """
    stripped = text.strip()
    if not _ASKING.search(stripped) or not _POINTS_BACK.search(stripped):
        return False
    if re.search(r"\d|[\"“'‘]", stripped):
        return False
    words = re.findall(r"[A-Za-z][A-Za-z'’-]*", stripped)
    if any(w[0].isupper() and w not in {"I"} for w in words[1:]):
        return False
    return len([w for w in words if w.lower() not in _FILLER_WORDS]) <= 2


# A question of a past deed: the question word, then "was/did/has ..." or a past tense.
_PAST_QUESTION = re.compile(
    r"^\s*(?:(?:and|so|also)\s+)?(?:when|who|whom|what\s+(?:time|date|day|year)|which\s+\w+"
    r"|how\s+long\s+ago|at\s+what\s+time|since\s+when)\b"
    r"(?:[^?]*?\b(?P<aux>was|were|did|has|had|have)\b(?!\s+to\b))?",
    re.I,
)


def asks_of_the_past(text: str, verb: str) -> bool:
    """Whether a clause asks when or by whom something was done ("When was it modified?").

    The operation word is the deed asked about, after "was/has/did ..." ("When was it
    modified?", "What time was order 7 paid?", "When did Bob create it?"); "Who created the
    order?" asks with a past tense alone, and a question mark.
    """
    match = _PAST_QUESTION.match(text)
    if match is None:
        return False
    if match.group("aux") is not None:
        return True
    return text.rstrip().endswith("?") and re.search(r"ed$", verb.strip().lower()) is not None
