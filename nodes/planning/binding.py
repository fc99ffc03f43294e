"""Binding a tool's arguments from what the user said (pure functions the planner uses).

Named entities are keyed by singular canonical nouns or parameter names (``account``,
``order``, ``quantity``, ``status``); a parameter matches a key when its name, or the object
it identifies (``account_number`` → ``account``, ``order_id`` → ``order``; the rule is
:mod:`stores.language.identifiers`), or the lexicon's canonical form of either, equals the key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from stores.catalog.model import IDEMPOTENCY_PARAM, ToolSpec
from stores.language.codes import value_as_described
from stores.language.date_formats import date_as_described, time_as_described
from stores.language.identifiers import identifier_base, is_identifier_name
from stores.language.lexicon import Lexicon
from stores.language.vocabulary import domain_vocabulary


def own_identifier_spaces() -> frozenset[str]:
    """Nouns that name an identifier space of their own (a section of the vocabulary file).

    "account 123456" is an account number, never a user id.
    """
    return domain_vocabulary().own_identifier_spaces


def required_params(spec: ToolSpec) -> list[str]:
    """The tool's required parameters the plan binds (the executor adds the idempotency key)."""
    return [p for p in spec.input_schema.get("required") or [] if p != IDEMPOTENCY_PARAM]


def schema_properties(spec: ToolSpec) -> dict[str, Any]:
    """The tool's parameters, by name, with their JSON Schemas."""
    return dict(spec.input_schema.get("properties") or {})


def identified_object(param: str) -> str:
    """The object a parameter identifies: ``order_id``, ``orderId`` → ``order``.

    ``""`` for a name that is no identifier, and for a bare ``id`` or ``number``, which say
    nothing of what they identify (a bare number of the request may fill those).
    """
    return identifier_base(param) if is_identifier_name(param) else ""


def plain_bases(param: str) -> list[str]:
    """A parameter's name, lower-cased, and the object it identifies (no lexicon)."""
    lowered = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", param).lower()
    return list(dict.fromkeys(base for base in (param, lowered, identified_object(param)) if base))


def param_bases(param: str, lexicon: Lexicon) -> list[str]:
    """Names under which a parameter's value may appear among the named entities."""
    bases = plain_bases(param)
    canonical = []
    for base in bases:
        if base in own_identifier_spaces():
            continue
        for kind in ("object", None):
            term = lexicon.canonical(base.replace("_", " "), kind)  # type: ignore[arg-type]
            if term:
                canonical.append(term.replace(" ", "_"))
    return list(dict.fromkeys(bases + canonical))


def coerce_to_schema(value: Any, schema: Mapping[str, Any]) -> Any:
    """Convert a literal to the parameter's JSON type when that is lossless enough.

    Strings of digits become integers for ``integer``; numbers become strings for
    ``string`` (ids like ``000042`` stay strings); enum values are matched loosely
    (case, spaces and hyphens versus underscores). An optional parameter written as
    ``anyOf: [{type: integer}, {type: null}]`` is coerced to its non-null option.
    """
    if "type" not in schema:
        options = [
            option
            for option in (schema.get("anyOf") or schema.get("oneOf") or [])
            if isinstance(option, Mapping) and option.get("type") not in (None, "null")
        ]
        if options:
            schema = {**options[0], **({"enum": schema["enum"]} if "enum" in schema else {})}
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    try:
        if kind == "integer" and not isinstance(value, bool):
            if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
                value = int(value.strip())
            elif isinstance(value, float) and value.is_integer():
                value = int(value)
        elif kind == "number" and isinstance(value, str):
            value = float(value.strip().lstrip("$¥€£"))
        elif kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            value = str(int(value)) if float(value).is_integer() else str(value)
        elif kind == "string" and isinstance(value, str) and schema.get("description"):
            # A date read as ISO goes in the order the description asks for ("MM-DD-YYYY").
            # A name goes as the code it asks for ("Berkeley, CA", "EUR").
            described = str(schema["description"])
            value = (date_as_described(value, described) or time_as_described(value, described)
                     or value_as_described(value, described) or value)
        elif kind == "boolean" and isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in {"true", "yes", "1"}:
                value = True
            elif lowered in {"false", "no", "0"}:
                value = False
    except ValueError:
        return value
    enum = schema.get("enum")
    if enum and value not in enum and isinstance(value, str):
        wanted = _enum_form(value)
        for option in enum:
            if isinstance(option, str) and _enum_form(option) == wanted:
                return option
    return value


def _enum_form(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def enum_mentioned(text: str, schema: Mapping[str, Any]) -> str | None:
    """The enum value a clause mentions ("to pending payment" → ``pending_payment``)."""
    enum = [option for option in schema.get("enum") or [] if isinstance(option, str)]
    lowered = " " + re.sub(r"[\s_\-]+", " ", text.lower()) + " "
    for option in sorted(enum, key=len, reverse=True):
        spoken = re.sub(r"[_\-]+", " ", option.lower())
        if re.search(rf"\b{re.escape(spoken)}\b", lowered):
            return option
    return None


def find_named_value(
    param: str, named: Mapping[str, Any], lexicon: Lexicon
) -> tuple[bool, Any, str]:
    """Look a parameter up among named entities.

    Returns:
        ``(found, value, key)``.
    """
    if not named:
        return False, None, ""
    lowered_named = {str(key).lower(): (key, value) for key, value in named.items()}
    bases = param_bases(param, lexicon)
    for base in bases:
        hit = lowered_named.get(base.lower())
        if hit is not None:
            return True, hit[1], str(hit[0])
    # A synonym of the parameter's noun ("voucher 7" for coupon_id).
    for lowered, (key, value) in lowered_named.items():
        if lowered in own_identifier_spaces():
            continue
        canonical = lexicon.canonical(lowered.replace("_", " "), "object")
        if canonical and canonical.replace(" ", "_") in bases:
            return True, value, str(key)
    return False, None, ""
