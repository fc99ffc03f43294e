"""How one clause's calls relate to the calls other clauses of the request already planned.

A clause said to come after another waits for its calls; a clause whose call another clause
already makes, or only adds an argument to, is covered by it; the question asked for a value
no clause gives, while the clauses that do not need it keep their calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from nodes.planning.binding import schema_properties
from nodes.planning.draft import PlanDraft
from nodes.state import ArgSource, PlannedCall, SubIntent
from stores.catalog.model import Catalog, ToolSpec
from stores.language.identifiers import singular, split_words


def follow_said_steps(sub: SubIntent, core: PlannedCall, draft: PlanDraft) -> None:
    """A clause said to come after another ("then", a numbered step) waits for its calls."""
    for earlier in sub.get("after") or []:
        waited = [c["call_id"] for c in draft.calls if c["sub_intent_id"] == earlier]
        core["depends_on"] = sorted({*core["depends_on"], *waited})


# "The ticker is AAPL", "my zip code is 94110": a parameter's value stated as a fact.
_STATED = re.compile(
    r"\b(?:the|my|its|our|your|his|her|their)\s+((?:[a-z]+\s+){0,2}[a-z]+)\s+"
    r"(?:is|are|should\s+be|=|:)\s+",
    re.I,
)


def stated_outright(text: str, params: Sequence[str]) -> set[str]:
    """The parameters a clause states the value of by name ("The ticker is AAPL.")."""
    stated: set[str] = set()
    for match in _STATED.finditer(text):
        said = {singular(word) for word in match.group(1).lower().split()}
        stated |= {p for p in params if set(split_words(p.lower())) <= said}
    return stated


def completes_earlier_call(
    cores: Sequence[PlannedCall], planned: Sequence[PlannedCall],
    stated: AbstractSet[str] = frozenset(),
) -> str | None:
    """Merge a clause's one call into an earlier call of the same tool it only adds to.

    The earlier call must agree on every argument both have, and share one, unless it is a
    read that takes none; the arguments it lacks are added to it. A value the clause
    ``stated`` by the parameter's name ("Get me the price of Apple. The ticker is AAPL.")
    corrects the earlier one instead of disagreeing. Returns the earlier call's id, or None
    when there is no such call.
    """
    if len(cores) != 1:
        return None
    core = cores[0]
    for call in reversed(planned):
        if call["role"] != "core" or call["tool_id"] != core["tool_id"]:
            continue
        if call["sub_intent_id"] == core["sub_intent_id"]:
            return None
        shared = set(call["args"]) & set(core["args"])
        extra = set(core["args"]) - set(call["args"])
        # A read said bare first ("I'd like to watch a movie.") and then with its values
        # ("Find me a Comedy with James Corden") is one read.
        bare = not call["args"] and not call.get("side_effect", True)
        differ = {p for p in shared
                  if source_key(call["args"][p]) != source_key(core["args"][p])}
        corrected = {p for p in differ & stated
                     if str(core["args"][p].get("origin", "")).startswith("span:")}
        if not (extra or corrected) or not (shared or bare) or differ - corrected:
            return None
        for param in extra | corrected:
            call["args"][param] = core["args"][param]
        return str(call["call_id"])
    return None


def bare_repeat(core: PlannedCall, planned: Sequence[PlannedCall]) -> PlannedCall | None:
    """An earlier call of the same read that a call taking no arguments only says again.

    "Find me a Comedy movie. I want to watch a movie.": the second clause asks nothing new.
    """
    if core["args"] or core.get("side_effect", True):
        return None
    return next(
        (call for call in planned
         if call["role"] == "core" and call["tool_id"] == core["tool_id"]), None
    )


def source_key(source: ArgSource) -> str:
    """What an argument is, whatever found it: its literal value or the output it reads."""
    if "from_call" in source:
        return f"{source['from_call']}.{source.get('field')}"
    return repr(source.get("value"))


def planned_already(core: PlannedCall, planned: Sequence[PlannedCall]) -> PlannedCall | None:
    """Another clause's core call with this tool and these literal arguments, if any."""
    mine = {k: repr(v.get("value")) for k, v in core["args"].items() if "from_call" not in v}
    if len(mine) != len(core["args"]):
        return None
    return next(
        (
            call
            for call in planned
            if call["role"] == "core"
            and call["tool_id"] == core["tool_id"]
            and call["sub_intent_id"] != core["sub_intent_id"]
            and {k: repr(v.get("value")) for k, v in call["args"].items()} == mine
        ),
        None,
    )


def restated_call(core: PlannedCall, planned: Sequence[PlannedCall]) -> PlannedCall | None:
    """Another clause's core call that ``core`` only says again, completed with it; or None.

    "Check the weather for Austin, TX in fahrenheit? I need the weather in Austin": the
    second clause names the same tool and no value of its own that the first call lacks or
    says otherwise; a place said more fully ("Austin" then "Austin, TX") is the same place,
    and the fuller words stay. Literal values only: a call that reads another call's output
    is never taken for a restatement.
    """
    for call in planned:
        if (
            call["role"] == "core"
            and call["sub_intent_id"] != core["sub_intent_id"]
            and _absorb_restatement(call, core)
        ):
            return call
    return None


def merge_restated_sets(cores: Sequence[PlannedCall]) -> list[PlannedCall]:
    """One clause's calls without those that only say another of them again, more briefly.

    "What's the weather in Austin? I mean the weather in Austin, TX" reads two argument sets
    that name one place: one call, with the fuller words.
    """
    kept: list[PlannedCall] = []
    for core in cores:
        if not any(_absorb_restatement(other, core) for other in kept):
            kept.append(core)
    return kept


def _absorb_restatement(call: PlannedCall, core: PlannedCall) -> bool:
    """Whether ``core`` says ``call`` again; if so ``call`` takes its fuller or extra values."""
    if call["tool_id"] != core["tool_id"] or any(
        "from_call" in source for source in (*call["args"].values(), *core["args"].values())
    ):
        return False
    theirs = call["args"]
    # What the clause says itself; a leftover number it guessed or a value it took from
    # another clause ("area" 5 beside "rooms as 5") is no value of its own to disagree with.
    mine = {p: source for p, source in core["args"].items() if not _borrowed(source)}
    mine = mine or dict(core["args"])  # a clause of borrowed values only says them again
    if any(p in theirs and not _same_value(theirs[p], mine[p]) for p in mine):
        return False
    if not set(mine) & set(theirs) or (set(mine) - set(theirs) and set(theirs) - set(mine)):
        return False  # each says something the other does not: two asks
    for param, source in mine.items():
        if param not in theirs or _fuller(source.get("value"), theirs[param].get("value")):
            theirs[param] = source
    return True


def _borrowed(source: ArgSource) -> bool:
    """Whether a value is a guess or another clause's, not what its own clause said."""
    origin, value = str(source.get("origin", "")), source.get("value")
    # "text" is also an enum value the clause names: only a bare number there is a guess.
    leftover = origin == "text" and isinstance(value, int | float) and not isinstance(value, bool)
    return leftover or origin.startswith("elsewhere:")


def _same_value(first: ArgSource, second: ArgSource) -> bool:
    """Whether two literal values name one thing: equal, or one a place said more fully."""
    one, other = first.get("value"), second.get("value")
    if _value_key(first) == _value_key(second):
        return True
    return _fuller(one, other) or _fuller(other, one)


def _fuller(value: Any, than: Any) -> bool:
    """Whether ``value`` is ``than`` with a qualifier after a comma ("Austin, TX", "Austin")."""
    if not isinstance(value, str) or not isinstance(than, str) or not than.strip():
        return False
    return value.lower().startswith(than.lower() + ",") and len(value) > len(than) + 1


# A clause that goes on with the one before it starts with a preposition (after "and",
# "then", ...: "and then from Los Angeles to Miami"), a relative pronoun or a participle
# ("which was opened in 2018", "filed in Ohio"), or refers back to it ("the same",
# "instead").
_ELLIPTIC = re.compile(
    r"^\W*(?:(?:and|then|also|but|or|finally|next|plus|lastly|after\s+that)\b[\s,]*)*"
    r"(?:from|to|for|in|at|with|between|on|of|by|near|into|via|what\s+about|how\s+about|"
    r"which|that|who|whose|where|[a-z]{3,}ed)\b",
    re.I,
)
_BACK_REFERENCE = re.compile(r"\b(?:the\s+same|instead|again)\b", re.I)


def continued_read(
    sub: SubIntent, draft: PlanDraft, catalog: Catalog, says_operation: Callable[[SubIntent], bool]
) -> tuple[PlannedCall, ToolSpec] | None:
    """The read an operation-less clause goes on with: the last earlier core call and its tool.

    "... from New York to Los Angeles and then from Los Angeles to Miami": the second clause
    names no operation and no tool's words, yet asks the first one's question again with
    values of its own. Only a read (``side_effect`` False) among this clause's retrieved
    candidates is continued; the caller still binds it and keeps it only when every
    required value binds and the clause says one of them itself (:func:`says_own_value`),
    and, unless its words go on from the clause before (:func:`goes_on_from_before`), says
    every required value itself: "John chose 36 and 48, Mary 60 and 96" gives the numbers
    asked for, "I am doing research on Apple Inc." is no concert booking.
    """
    return None if says_operation(sub) else last_read(sub, draft, catalog)


def last_read(
    sub: SubIntent, draft: PlanDraft, catalog: Catalog
) -> tuple[PlannedCall, ToolSpec] | None:
    """The last core call planned so far and its tool, if that tool is a retrieved read.

    A read (``side_effect`` False) among the clause's retrieved candidates; else None.
    """
    earlier = [c for c in draft.calls if c["role"] == "core"]
    retrieved = {c["tool_id"] for c in draft.request.candidates.get(sub["id"], [])}
    if not earlier or earlier[-1]["tool_id"] not in retrieved:
        return None
    spec = catalog.tools.get(earlier[-1]["tool_id"])
    return (earlier[-1], spec) if spec is not None and spec.side_effect is False else None


def goes_on_from_before(sub: SubIntent) -> bool:
    """Whether a clause's words go on from the clause before it (:data:`_ELLIPTIC`)."""
    return bool(_ELLIPTIC.match(sub["text"]) or _BACK_REFERENCE.search(sub["text"]))


def says_own_value(call: PlannedCall) -> bool:
    """Whether one of the call's arguments was said by its own clause."""
    return bool(_own_and_borrowed(call)[0])


def clarifying_question(sub: SubIntent, spec: ToolSpec, param: str) -> str:
    """The question for a value of ``spec`` the clause needs and nobody gave."""
    described = (schema_properties(spec).get(param) or {}).get("description")
    hint = f" ({described})" if described else ""
    return (
        f"To {sub['text'].strip().rstrip('.')!r} I need a value for '{param}'{hint} "
        f"of {spec.id}. What should it be?"
    )


def settle_waiting(
    draft: PlanDraft, waiting: Sequence[tuple[SubIntent, str]], catalog: Catalog
) -> None:
    """Cover, ask for or state the clauses that miss a value, keeping the others' calls.

    A waiting clause whose tool another clause calls is covered by that call ("Can you
    calculate the force in both scenarios?"). For the rest, the first still unasked value
    becomes the plan's question; a value already asked and not given is a gap. The clauses
    that do not need the answer keep their calls, so they run while the user is asked: only
    a clause referring to an asked one, or a write said to come after it, waits (with every
    call that needs its calls); nothing is planned on a guessed value.
    """
    called = {c["tool_id"] for c in draft.calls if c["role"] == "core"}
    asked: set[str] = set()
    for sub, tool in waiting:
        if tool in called:
            draft.decide(sub["id"], "covered", tool=tool)
            continue
        param = str((draft.decisions.get(sub["id"]) or {}).get("missing", ["value"])[0])
        if f"{sub['id']}.{param}" in draft.request.clarifications:
            draft.gaps.append(f"{sub['text']}: no usable value for '{param}' of {tool}")
            draft.decide(sub["id"], "gap", tool=tool)
            continue
        asked.add(sub["id"])
        if draft.question is None and tool in catalog.tools:
            draft.question = {
                "sub_intent": sub["id"],
                "param": param,
                "tool_id": tool,
                "question": clarifying_question(sub, catalog.tools[tool], param),
            }
    _hold_what_waits_for(draft, asked)


def _hold_what_waits_for(draft: PlanDraft, asked: set[str]) -> None:
    """Drop the calls that must wait for an asked clause, and the calls needing them.

    A clause referring to an asked one waits; a clause only said to come after it ("then",
    "after that") waits when it changes something (the said order of writes matters), while
    its reads run.
    """
    held = set(asked)
    for sub in draft.request.intent["sub_intents"]:
        if sub["id"] in held:
            continue
        writes = any(
            c["side_effect"] for c in draft.calls if c["sub_intent_id"] == sub["id"]
        )
        waits_for = sorted(
            held & {*sub["depends_on"], *((sub.get("after") or []) if writes else [])}
        )
        if waits_for:
            held.add(sub["id"])
            draft.decide(sub["id"], "clarify_intent", waits_for=waits_for)
    dropped = {c["call_id"] for c in draft.calls if c["sub_intent_id"] in held - asked}
    for call in draft.calls:  # in plan order: a call comes after the calls it needs
        if set(call["depends_on"]) & dropped:
            dropped.add(call["call_id"])
    draft.calls[:] = [c for c in draft.calls if c["call_id"] not in dropped]
    for sub_id in held:
        draft.core_by_sub.pop(sub_id, None)


# Where an argument's value came from (ArgSource origin prefixes): the clause's own words, or
# another part of the request read because the clause lacked it.
_OWN_ORIGINS = ("span:", "entity:", "clarification")
_BORROWED_ORIGINS = ("elsewhere:", "request:")


def fold_fragments(draft: PlanDraft, says_operation: Callable[[SubIntent], bool]) -> None:
    """Fold a clause that only sets the scene for another clause's call into that call.

    "I'm planning a trip and I'm interested in mountains. I'm in Tokyo and want the 5
    tallest mountains within 200 km": the first clause picks the same tool as the second but
    takes most of its values from elsewhere in the request. A clause's one call is such a
    fragment when it borrows more values than it says itself, another clause calls the same
    tool with values of its own for everything it borrowed, and none of its own values
    contradicts that call; its own values that call lacks are added to it, and the clause is
    covered. A clause that says its own different value ("then with an acceleration of 3")
    keeps its call; a plain lower-case word it was read to say ("I'm planning a trip" as a
    location) is no such value. Likewise a clause that names no operation of its own
    (``says_operation``) and every value of which an earlier clause's call already read from
    it is a continuation of that clause, and covered by its call. A call another clause makes too
    (``PlanDraft.shared``: "the area of three circles, where the first has a radius of 5
    ...") is never folded away.
    """
    for call in list(draft.calls):
        mine = [c for c in draft.calls if c["sub_intent_id"] == call["sub_intent_id"]]
        if mine != [call] or call["role"] != "core" or _needed_by_others(call, draft.calls) \
                or call["call_id"] in draft.shared:
            continue
        own, borrowed = _own_and_borrowed(call)
        if len(borrowed) <= len(own):
            continue
        host = _host_of(call, own, borrowed, draft.calls, draft.request.intent["sub_intents"])
        if host is None:
            continue
        for param in own:
            host["args"].setdefault(param, call["args"][param])
        _cover(draft, call, host)
    subs = list(draft.request.intent["sub_intents"])
    for call in list(draft.calls):
        # "the displacement of a car at 20 m/s and then accelerates at 10 m/s^2 for 5 s":
        # the second clause only continues the first, whose call already took its values.
        mine = [c for c in draft.calls if c["sub_intent_id"] == call["sub_intent_id"]]
        if mine != [call] or call["role"] != "core" or _needed_by_others(call, draft.calls) \
                or call["call_id"] in draft.shared:
            continue
        sub = next(s for s in subs if s["id"] == call["sub_intent_id"])
        if says_operation(sub):
            continue
        earlier = {s["id"] for s in subs[: subs.index(sub)]}
        said = {_value_key(call["args"][p]) for p in _own_and_borrowed(call)[0]}
        host = next(
            (
                other
                for other in draft.calls
                if other["sub_intent_id"] in earlier
                and other["role"] == "core"
                and said
                and said <= _borrowed_values(other)
            ),
            None,
        )
        if host is not None:
            _cover(draft, call, host)
    for call in list(draft.calls):
        _complete_the_call_before(draft, call, subs, says_operation)


def _complete_the_call_before(
    draft: PlanDraft,
    call: PlannedCall,
    subs: Sequence[SubIntent],
    says_operation: Callable[[SubIntent], bool],
) -> None:
    """Fold a clause that only gives values for an earlier clause's call of the same tool.

    "... another case with the number '678', opened in 2019, and filed in the California
    court?", "I need to plot a sine wave. [...] I want the amplitude to be 1.5": the later
    clause names no operation; what it says itself either fills parameters the earlier call
    lacks or agrees with it, or says again what that call only borrowed from elsewhere. A
    value of the earlier clause's own that it says otherwise ("in Boston. And in Denver?"),
    or a whole set of values of its own, makes it another call.
    """
    mine = [c for c in draft.calls if c["sub_intent_id"] == call["sub_intent_id"]]
    if mine != [call] or call["role"] != "core" or _needed_by_others(call, draft.calls) \
            or call["call_id"] in draft.shared:
        return
    sub = next(s for s in subs if s["id"] == call["sub_intent_id"])
    own = _own_and_borrowed(call)[0]
    if says_operation(sub) or not own:
        return
    earlier = {s["id"] for s in subs[: subs.index(sub)]}
    hosts = [c for c in draft.calls if c["sub_intent_id"] in earlier and c["role"] == "core"
             and c["tool_id"] == call["tool_id"]]
    if not hosts:
        return
    host = hosts[-1]
    if len([c for c in draft.calls if c["sub_intent_id"] == host["sub_intent_id"]]) != 1:
        return
    host_own = _own_and_borrowed(host)[0]
    differs = {p for p in own & set(host["args"])
               if _value_key(host["args"][p]) != _value_key(call["args"][p])}
    if differs & host_own or (differs and own >= set(host["args"])):
        return  # its own values say another set: "Ann picked 12 and 18, Bo 35 and 49"
    for param in own:
        host["args"].setdefault(param, call["args"][param])
    _cover(draft, call, host)


def _cover(draft: PlanDraft, call: PlannedCall, host: PlannedCall) -> None:
    """Drop a clause's one call: the clause is covered by ``host``."""
    draft.calls.remove(call)
    draft.core_by_sub.pop(call["sub_intent_id"], None)
    draft.decide(call["sub_intent_id"], "covered", tool=call["tool_id"],
                 completes=host["call_id"])


def _value_key(source: ArgSource) -> str:
    """A value compared across calls: numbers by magnitude (10 and 10.0 are one value)."""
    value = source.get("value")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(float(value))
    return repr(value)


def _borrowed_values(call: PlannedCall) -> set[str]:
    """The values a call read from elsewhere in the request."""
    borrowed = _own_and_borrowed(call)[1]
    return {_value_key(call["args"][p]) for p in borrowed}


def _own_and_borrowed(call: PlannedCall) -> tuple[set[str], set[str]]:
    """A call's arguments the clause said itself, and those read from elsewhere."""
    own: set[str] = set()
    borrowed: set[str] = set()
    for param, source in call["args"].items():
        origin = str(source.get("origin", ""))
        if origin.startswith(_OWN_ORIGINS) or "from_call" in source:
            own.add(param)
        elif origin.startswith(_BORROWED_ORIGINS):
            borrowed.add(param)
    return own, borrowed


def _host_of(
    fragment: PlannedCall,
    own: set[str],
    borrowed: set[str],
    planned: Sequence[PlannedCall],
    subs: Sequence[SubIntent],
) -> PlannedCall | None:
    """Another clause's call of the same tool that says the fragment's borrowed values.

    A borrowed value the host's own clause says but the host does not use ("paid $5,000,000
    ... might increase it to $6,000,000") is information the host dropped: no host then.
    """
    texts = {s["id"]: s["text"] for s in subs}
    for call in planned:
        if (
            call["role"] != "core"
            or call["tool_id"] != fragment["tool_id"]
            or call["sub_intent_id"] == fragment["sub_intent_id"]
        ):
            continue
        host_own, host_borrowed = _own_and_borrowed(call)
        # An allowed value its clause names ("compounded quarterly") is the host's own too.
        host_own |= {p for p, source in call["args"].items() if source.get("origin") == "text"}
        if len(host_borrowed) >= len(host_own) or not borrowed <= host_own:
            continue
        if any(
            p in call["args"] and source_key(call["args"][p]) != source_key(fragment["args"][p])
            and not _plain_word(fragment["args"][p].get("value"))
            for p in own
        ):
            continue
        text = texts.get(call["sub_intent_id"], "")
        if any(
            source_key(call["args"][p]) != source_key(fragment["args"][p])
            and _said_in(fragment["args"][p].get("value"), text)
            for p in borrowed
        ):
            continue
        return call
    return None


def _plain_word(value: Any) -> bool:
    """Whether a value is one lower-case word of the clause ("planning"), no name or number.

    Such a value, read where the clause says nothing of its own, does not stand against
    another clause's call that says the parameter ("Tokyo").
    """
    return isinstance(value, str) and re.fullmatch(r"[a-z]+", value) is not None


def _said_in(value: Any, text: str) -> bool:
    """Whether a value is written in a text (numbers also with thousands separators)."""
    if isinstance(value, list):
        return bool(value) and all(_said_in(item, text) for item in value)
    plain = re.sub(r"(?<=\d),(?=\d{3})", "", text).lower()
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        number = f"{value:g}" if isinstance(value, float) else str(value)
        return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", plain) is not None
    return str(value).lower() in plain


def _needed_by_others(call: PlannedCall, planned: Sequence[PlannedCall]) -> bool:
    return any(call["call_id"] in c["depends_on"] for c in planned)


def repeat_over_referent(
    sub: SubIntent, core: PlannedCall, planned: Sequence[PlannedCall]
) -> list[PlannedCall]:
    """One call per value of the clause it refers to, for a value it borrowed from there.

    "The rainfall in Lisbon in 1990 and 2000; also the temperature there in those years":
    the second clause refers to the first (``depends_on``) and reads its year from
    elsewhere in the request; the first clause made one call per year, so the second does
    too. A value the clause says itself is never repeated over.
    """
    borrowed = {
        param: source
        for param, source in core["args"].items()
        if str(source.get("origin", "")).startswith("elsewhere:")
    }
    for referent in sub["depends_on"] if borrowed else []:
        theirs = [c for c in planned if c["sub_intent_id"] == referent and c["role"] == "core"]
        if len(theirs) < 2 or any(c["tool_id"] != theirs[0]["tool_id"] for c in theirs):
            continue
        for param, source in borrowed.items():
            for their_param in theirs[0]["args"]:
                values = [c["args"].get(their_param, {}).get("value") for c in theirs]
                if repr(values[0]) != repr(source.get("value")) or None in values \
                        or len({repr(v) for v in values}) < 2:
                    continue
                cores: list[PlannedCall] = []
                for number, value in enumerate(values):
                    repeated = PlannedCall(**core)
                    if number:
                        repeated["call_id"] = f"{core['call_id']}{number + 1}"
                    repeated["args"] = {**core["args"], param: {**source, "value": value}}
                    cores.append(repeated)
                return cores
    return [core]
