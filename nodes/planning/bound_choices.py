"""How the rule planner weighs a candidate's dry-run binding, and the pick it makes.

The values of the user's a call consumes (:func:`consumed_values`: an entity by its name, a
span by what was said, so two tools' parameters taking the same words count it once), the
values that only name another candidate (:func:`naming_other_tools`), and a read the request
fills completely instead of a best read that would have to ask
(:func:`complete_read_instead`). :class:`BoundChoice` is the pick.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nodes.planning.clause_calls import planned_already
from nodes.planning.schema_binder import content_words
from nodes.state import ArgSource, PlannedCall
from stores.catalog.model import ToolSpec
from stores.language.keywords import lemmatize

__all__ = [
    "BoundChoice", "complete_read_instead", "consumed_values", "naming_other_tools",
    "restating_choice",
]


@dataclass(frozen=True)
class BoundChoice:
    """The decider's pick for a sub-intent: the core tool, its score and its bound calls."""

    spec: ToolSpec
    score: float
    calls: list[PlannedCall]
    missing: list[str]


def _value_key(source: ArgSource) -> str:
    """What a value of the user's is known by across candidates.

    An entity by its name ("account"); a span by what was said, since another tool's
    parameter may take the same words under another name ("'fix typo'" as a commit's message
    or as a revision to show).
    """
    origin = str(source.get("origin", ""))
    if origin.startswith("span:") and isinstance(source.get("value"), bool):
        # "I'm talkative, get nervous easily": each flag is a thing said of its own, not
        # one "True" however many parameters the words set.
        return origin
    if origin.startswith("span:"):
        return f"said:{source.get('value')!r}"
    return origin.split(":", 1)[-1]


def _value_keys(source: ArgSource) -> set[str]:
    """:func:`_value_key`, with a list or an object built from what was said known by its items.

    ``paths: [a, b]`` uses both paths another tool takes one call each; ``entities: [{name:
    "Carol", entityType: "person"}]`` uses the "Carol" that another tool takes as ``name``:
    gathered into a list or an object, the user's values are still the same ones.
    """
    value = source.get("value")
    if not str(source.get("origin", "")).startswith("span:") or not isinstance(
        value, list | dict
    ):
        return {_value_key(source)}
    keys: set[str] = set()
    for leaf in _leaves(value):
        keys.add(f"said:{leaf!r}")
    return keys or {_value_key(source)}


def _leaves(value: Any) -> list[Any]:
    """The scalar values inside a list or an object (empty strings left out)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, str | int | float) and not isinstance(value, bool) and value != "":
        return [value]
    return []


def naming_other_tools(calls: Sequence[PlannedCall], others: Sequence[set[str]]) -> set[str]:
    """Keys of a call's values that are, word for word, another tool's own name."""
    keys: set[str] = set()
    for call in calls:
        for source in call["args"].values():
            value = source.get("value")
            words = content_words(value) if isinstance(value, str) else set()
            if words and any(words <= other for other in others):
                keys.add(_value_key(source))
    return keys


def _user_values(choice: BoundChoice) -> set[str]:
    """The values of the user's a choice's core call consumes, as written."""
    return {
        repr(source.get("value"))
        for source in choice.calls[-1]["args"].values()
        if str(source.get("origin", "")).startswith(("entity:", "request:", "span:"))
    } if choice.calls else set()


def complete_read_instead(
    best: BoundChoice, choices: Sequence[tuple[tuple[float, int], BoundChoice]]
) -> BoundChoice | None:
    """A read the request fills completely, instead of a best read that would have to ask.

    "Show the last 3 commits in /srv/repo": ``git_show`` has the verb but needs a revision
    nobody gave; ``git_log`` takes the repository and the 3. A question is asked only when a
    value can come from nowhere, so another candidate that reads too, needs nothing more and
    uses every value the best one uses (and at least one) is called instead; the best of
    them. Writes never trade places this way: a write asked for is asked about.
    """
    if not best.missing or best.spec.side_effect is not False:
        return None
    wanted = _user_values(best)
    fitting = [
        (key, choice) for key, choice in choices
        if not choice.missing and choice.spec.side_effect is False
        and (used := _user_values(choice)) and used >= wanted
    ]
    return max(fitting, key=lambda item: item[0])[1] if fitting else None


def restating_choice(
    text: str,
    best: BoundChoice,
    choices: Sequence[tuple[tuple[float, int], BoundChoice]],
    planned: Sequence[PlannedCall],
) -> BoundChoice | None:
    """For a clause of borrowed values only, the candidate that is an earlier call again.

    "I want to book a suite for 3 nights in Hilton New York. Can you find the pricing for
    me?": the second clause says no value of its own; every value its best candidate takes
    comes from the first clause. Of its candidates the one that, so bound, is the first
    clause's call says the same thing again (and is covered by it); another tool fed the
    same borrowed words (a car rental "suite") is no question the user asked.
    """
    if not _borrows_everything(best):
        return None
    ranked = sorted(choices, key=lambda item: item[0], reverse=True)
    for _, choice in ranked:
        if choice.missing or not _borrows_everything(choice):
            continue
        # "... also calculate the total balance": a clause that names the other tool's own
        # words ("balance") asks that tool, whatever values it borrows.
        if not said_name_words(text, best.spec.name) <= said_name_words(text, choice.spec.name):
            continue
        if planned_already(choice.calls[-1], planned) is not None:
            return choice
    return None


def said_name_words(text: str, name: str) -> set[str]:
    """The words of a tool's name the text says (by their lemma)."""
    said = {lemmatize(word) for word in content_words(text)} | content_words(text)
    return {word for word in content_words(re.sub(r"[._/\-]", " ", name))
            if word in said or lemmatize(word) in said}


def _borrows_everything(choice: BoundChoice) -> bool:
    """Whether a choice's core call takes values, every one from another clause."""
    if not choice.calls or not choice.calls[-1]["args"]:
        return False
    return all(str(source.get("origin", "")).startswith(("elsewhere:", "request:"))
               for source in choice.calls[-1]["args"].values())


def consumed_values(calls: Sequence[PlannedCall]) -> tuple[set[str], set[str]]:
    """Keys of the user's values a call consumes directly, and through its lookups."""
    direct: set[str] = set()
    through: set[str] = set()
    for call in calls:
        for source in call["args"].values():
            origin = source.get("origin", "")
            if origin.startswith(("entity:", "request:", "span:")) or origin in {
                "text",
                "clarification",
            }:
                (direct if call["role"] == "core" else through).update(_value_keys(source))
    return direct, through
