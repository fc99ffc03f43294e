"""Clauses that go on with an earlier clause's read instead of asking something new.

"... the distance in miles from New York to Los Angeles, and then from Los Angeles to Miami":
the second clause names no operation and shares no word with the tool, yet asks the first
clause's question again with values of its own (:func:`continue_earlier_read`). "I need the
weather at my destination. Can you tell me the forecast for Phoenix, AZ on 2023-04-14?": the
second clause says the first one's read again, more fully (:func:`complete_earlier_read`).
Reads only: a write is never repeated or extended on such evidence; only a clause that names
a parameter of the call before it and gives its value adds to a write
(:func:`add_named_argument`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from nodes.planning.binding import required_params
from nodes.planning.clause_calls import (
    continued_read,
    goes_on_from_before,
    last_read,
    says_own_value,
    source_key,
)
from nodes.planning.draft import PlanDraft
from nodes.planning.request_spans import extract_spans
from nodes.planning.said_content import TITLE_NAMES, names_by_pronoun
from nodes.planning.value_cues import bound_side
from nodes.state import ArgSource, PlannedCall, SubIntent
from stores.catalog.model import Catalog, ToolSpec
from stores.language.identifiers import split_words

# Binds a call of a tool for a clause (a dry run): its calls (auxiliary ones, then the
# core call) and the required inputs nobody gave.
BindCall = Callable[[SubIntent, ToolSpec], tuple[list[PlannedCall], list[str]]]


def borrowed(source: ArgSource) -> bool:
    """Whether an argument was read from elsewhere in the request, not from its clause."""
    return str(source.get("origin", "")).startswith(("elsewhere:", "request:"))


def continue_earlier_read(
    draft: PlanDraft,
    sub: SubIntent,
    catalog: Catalog,
    says_operation: Callable[[SubIntent], bool],
    bind: BindCall,
) -> tuple[ToolSpec, list[PlannedCall]] | None:
    """The earlier clause's read, called again with this clause's own values, or None.

    What the clause does not say itself stays as the earlier call had it ("in miles"; "the
    same, but for a sample size of 150"). A clause whose words do not go on from the one
    before (a statement) continues it only when it says every required value itself.
    """
    continued = continued_read(sub, draft, catalog, says_operation)
    if continued is None:
        return None
    earlier, spec = continued
    calls, missing = bind(sub, spec)
    if not calls or not says_own_value(calls[-1]):
        return None
    if not goes_on_from_before(sub) and (missing or any(
        borrowed(calls[-1]["args"][param]) for param in required_params(spec)
    )):
        return None
    core = calls[-1]
    _keep_earlier_values(earlier, core)
    if any(param not in core["args"] for param in missing):
        return None
    return spec, calls


def complete_earlier_read(
    draft: PlanDraft, sub: SubIntent, catalog: Catalog, bind: BindCall
) -> bool:
    """Fold a clause no tool fits into the earlier read it says again, more fully.

    Its own values must agree with the earlier call's and name one of them again (the same
    subject); the new ones are added to that call, and the clause is covered by it. A clause
    about something else ("the population of Rome" after "the weather in Paris") agrees on
    nothing and stays unanswered.
    """
    last = last_read(sub, draft, catalog)
    if last is None:
        return False
    host, spec = last
    calls, _ = bind(sub, spec)
    own = {
        param: source for param, source in (calls[-1]["args"] if calls else {}).items()
        if str(source.get("origin", "")).startswith(("span:", "entity:"))
    }
    same = [p for p in own if p in host["args"]]
    if not same or any(source_key(host["args"][p]) != source_key(own[p]) for p in same):
        return False
    for param, source in own.items():
        host["args"].setdefault(param, source)
    draft.decide(sub["id"], "covered", tool=spec.id, completes=host["call_id"])
    return True


def _number_key(value: object) -> str:
    """A value as compared across readings: 200 and 200.0 are one number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def add_named_argument(
    draft: PlanDraft, sub: SubIntent, catalog: Catalog, bind: BindCall,
    says_operation: Callable[[SubIntent], bool] | None = None,
) -> bool:
    """Fold a clause no tool fits that names one more argument of the call before it.

    "Send $50 to John and write 'dinner' as the note": the second clause names the note of
    the first clause's call and gives it; nothing else it says disagrees with that call. The
    value is the user's own for a parameter the user named, so a write takes it too. A value
    the parameter allows, said outright in a clause that asks for nothing ("Economy
    class."), names it as well; "Then cancel my order in fahrenheit." asks for something else.
    """
    cores = [call for call in draft.calls if call["role"] == "core"]
    if not cores:
        return False
    host = cores[-1]
    spec = catalog.tools.get(host["tool_id"])
    if spec is None:
        return False
    calls, _ = bind(sub, spec)
    own = {
        param: source for param, source in (calls[-1]["args"] if calls else {}).items()
        if str(source.get("origin", "")).startswith(("span:", "entity:", "text"))
    }
    said = set(re.findall(r"[a-z]+", sub["text"].lower()))
    allowed_named = says_operation is not None and not says_operation(sub)
    if names_by_pronoun(sub["text"]):
        said |= TITLE_NAMES  # "Call it focus.": the name or title of what came before
    # "Nothing above 200 dollars a night." names the upper end of max_price by its words.
    spans = extract_spans(sub["text"])
    bounds = {_number_key(span.value) for span in spans}
    new = {param: source for param, source in own.items()
           if param not in host["args"] and (
               # "Economy class, 2 passengers.": an allowed value said names its parameter
               source.get("origin") == "text" and allowed_named
               or set(split_words(param.lower())) & said
               or (_number_key(source.get("value")) in bounds
                   and any(bound_side(sub["text"], span, param) == 1 for span in spans))
           )}
    # "Put it under the name Smith": the value the named parameter takes is no other
    # parameter's ("Smith" as the restaurant) too.
    # ("Cash on delivery.": "Cash" read as a topping too is the payment's word, any case.)
    named = {source_key(source).lower() for source in new.values()}
    if not new or any(source_key(host["args"][p]) != source_key(source)
                      for p, source in own.items()
                      if p in host["args"] and source_key(source).lower() not in named):
        return False
    host["args"].update(new)
    draft.decide(sub["id"], "covered", tool=spec.id, completes=host["call_id"])
    return True


_SAID_SAME = re.compile(r"\b(?:the\s+same|likewise)\b", re.I)


def inherit_said_same(draft: PlanDraft, sub: SubIntent, core: PlannedCall) -> None:
    """Keep the earlier call's values in a clause that says "the same" of the same read.

    "... vegan restaurants in Los Angeles open until at least 22:00, and then do the same for
    San Francisco": the second clause calls the first one's tool with a place of its own;
    what it does not say itself (the closing hour) stays as the first call had it, as
    :func:`continue_earlier_read` keeps it for a clause that names no operation. Reads only:
    a write is never extended on such evidence.
    """
    if core.get("side_effect", True) or not _SAID_SAME.search(sub["text"]):
        return
    earlier = [c for c in draft.calls if c["role"] == "core" and c["tool_id"] == core["tool_id"]
               and c["sub_intent_id"] != sub["id"]]
    if earlier:
        _keep_earlier_values(earlier[-1], core)


def _keep_earlier_values(earlier: PlannedCall, core: PlannedCall) -> None:
    """Give ``core`` the earlier call's literal values it does not say itself (in place)."""
    for param, source in earlier["args"].items():
        mine = core["args"].get(param)
        if "from_call" not in source and (mine is None or borrowed(mine)):
            inherited = source.copy()
            inherited["origin"] = "elsewhere:continued"
            core["args"][param] = inherited
