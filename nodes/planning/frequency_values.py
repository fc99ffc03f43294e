"""How often something happens, said by one word: "monthly" is 12 times a year.

A tool that compounds interest or repeats a payment often counts how many times a year it
happens ("The number of times that interest is compounded per year"). Users say it with an
adverb of frequency: "compounded quarterly", "with monthly compounding". :func:`frequency_values`
fills such a count, still unbound, when the request says exactly one frequency. "An annual
rate" says how a rate is quoted, not how often anything happens: adjectives are not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nodes.planning.param_fit import Param

__all__ = ["frequency_values"]

# Times a year, by the word that says how often ("monthly": every month).
_PER_YEAR = {
    "annually": 1, "yearly": 1, "semiannually": 2, "semi-annually": 2, "biannually": 2,
    "quarterly": 4, "monthly": 12, "fortnightly": 26, "biweekly": 26, "bi-weekly": 26,
    "weekly": 52, "daily": 365,
}
# A description that counts how often per year (or per period of the tool's own time unit).
_PER_PERIOD = re.compile(
    r"\bper\s+(?:year|annum|unit\s+(?:of\s+)?time|time\s+period|period)\b|\ba\s+year\b", re.I
)
_HOW_OFTEN = re.compile(r"\b(?:times|periods|frequency)\b", re.I)


def frequency_values(
    text: str, params: Sequence[Param], values: dict[str, list[Any]]
) -> None:
    """Fill an unbound count per year with the one frequency the request says."""
    said = {_PER_YEAR[w.lower()] for w in re.findall(r"[A-Za-z][A-Za-z\-]*", text)
            if w.lower() in _PER_YEAR}
    if len(said) != 1:
        return
    for param in params:
        if param.name in values or param.kind != "integer":
            continue
        description = str(param.schema.get("description") or "")
        if _PER_PERIOD.search(description) and _HOW_OFTEN.search(description):
            values[param.name] = [next(iter(said))]
