"""Parameters named in a list, then their values in a list: "its base and height as 6 and 10".

A request may name several parameters together and give their values after, in the same order
("the width and length are 3 and 5", "x and y of 4 and 5"). :func:`values_named_in_order`
pairs them one by one, the first name with the first value; only when every name is one
parameter's and there are as many values as names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nodes.planning.param_fit import Param, _word_match
from nodes.planning.request_spans import Span
from stores.language.identifiers import singular
from stores.language.keywords import lemmatize

# "base and height as", "width, length and depth are", "x and y of": names, a link, values.
_NAMED = re.compile(
    r"\b(?P<names>[A-Za-z]+(?:\s*,\s*[A-Za-z]+)*\s*,?\s+and\s+[A-Za-z]+)\s+"
    r"(?:as|are|of|be|equal\s+to|=|:)\s*$",
    re.I,
)


def values_named_in_order(
    text: str, found: Sequence[Span], params: Sequence[Param]
) -> dict[str, Span] | None:
    """Each named parameter with its value, or None when the request says no such pairing."""
    for span in found:
        if span.kind != "list":
            continue
        named = _NAMED.search(text[max(0, span.start - 80) : span.start])
        if named is None:
            continue
        words = [w for w in re.split(r"\s*,\s*|\s+and\s+|\s+", named.group("names")) if w]
        chosen: list[Param] = []
        for word in words:
            lemma = lemmatize(singular(word.lower()))
            matching = [p for p in params if _word_match(lemma, p.name_words) and p not in chosen]
            if len(matching) != 1:
                break
            chosen.append(matching[0])
        if len(chosen) == len(words) == len(span.items) >= 2:
            return {param.name: item for param, item in zip(chosen, span.items, strict=True)}
    return None
