"""Binding a parameter whose value is an object, or an array of objects, from a request.

"create an entity Alice of type person" for ``create_entities(entities: [{name, entityType,
observations: [string]}])``: the object's properties are bound from the request like any
parameter (:func:`nodes.planning.schema_binder.bind_schema` on the item's schema), with two
readings of their own:

- The container's noun is context, not a cue: in the items of ``entities`` the word "entity"
  says which object is meant, so it is dropped from the properties' names (``entityType``
  reads as "type") and "an entity Alice" does not make "Alice" the type.
- A property's own name right before a word gives it that word ("of type person").
- A property saying what kind of thing the object is (``entityType``, ``kind``) takes the
  noun before "named" or "called" ("a person named Carol").

A required property nobody gave: an array becomes empty when its schema allows it (no
``minItems`` above 0; "observations" of a new entity may be none) and the request said two
of the object's properties at least (an observation of "Carol" with no contents, all that
"add a person named Carol" would give ``add_observations``, says nothing); anything else
leaves the parameter unbound, so the planner asks for it instead of inventing it. An object is built
only from what the request says: with no property bound from the text, nothing is built.
Only required parameters are built this way (an optional object stays out unless asked).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from nodes.planning.param_fit import Param
from stores.language.identifiers import singular, split_words
from stores.language.keywords import STOPWORDS, lemmatize

# ``bind_schema`` itself, passed in by the schema binder (it imports this module).
SchemaBinder = Callable[..., Any]


def bind_object_parameters(
    text: str, params: Sequence[Param], values: dict[str, list[Any]], bind: SchemaBinder
) -> None:
    """Fill each required object (or array-of-objects) parameter still unbound in ``values``."""
    for param in params:
        if param.name in values or not param.required:
            continue
        if param.kind == "array" and isinstance(param.schema.get("items"), Mapping):
            item, many = param.schema["items"], True
        elif param.kind == "object":
            item, many = param.schema, False
        else:
            continue
        if not isinstance(item.get("properties"), Mapping) or not item["properties"]:
            continue
        built = build_object(text, item, param.name, bind)
        if built is not None:
            values[param.name] = [[built]] if many else [built]


def build_object(
    text: str, schema: Mapping[str, Any], container: str, bind: SchemaBinder
) -> dict[str, Any] | None:
    """The object the request describes for ``schema``, or None when it cannot be built."""
    properties: Mapping[str, Any] = schema["properties"]
    required = [str(p) for p in schema.get("required") or [] if p in properties]
    noun = _noun(container)
    short = {name: _without(name, noun) for name in properties}
    renamed = {
        "type": "object",
        "properties": {short[name]: spec for name, spec in properties.items()},
        "required": [short[name] for name in required],
    }
    if len(set(short.values())) < len(short):
        renamed = dict(schema)  # dropping the noun would merge two properties
        short = {name: name for name in properties}
    # A property's own name right before a word is the strongest cue there is: read first,
    # so the joint assignment cannot give that word (or its neighbour) to another property.
    built: dict[str, Any] = {}
    taken: set[str] = set()
    for name in properties:
        spec = properties[name]
        if isinstance(spec, Mapping) and spec.get("type") == "string":
            word = _word_after_name(text, short[name], taken)
            if word is not None:
                built[name] = word
                taken.add(word.lower())
    for name, value in _statement_parts(text, properties, short).items():
        if name not in built and str(value).lower() not in taken:
            built[name] = value
            taken.add(str(value).lower())
    for name in properties:
        spec = properties[name]
        if name in built or short[name] not in _KIND_NAMES:
            continue
        if isinstance(spec, Mapping) and spec.get("type") == "string":
            kind = _kind_before_name(text, noun, taken)
            if kind is not None:
                built[name] = kind
                taken.add(kind.lower())
    binding = bind(text, renamed, bound=[short[name] for name in built])
    found = binding.sets[0] if binding.sets else {}
    for name in properties:
        value = found.get(short[name])
        if name not in built and value is not None and str(value).lower() not in taken:
            built[name] = value
    if not built:
        return None
    said = len(built)
    for name in required:
        if name in built:
            continue
        spec = properties[name]
        if (isinstance(spec, Mapping) and spec.get("type") == "array" and not spec.get("minItems")
                and said > 1):
            built[name] = []
        else:
            return None
    return built


# A property that says what kind of thing the object is ("entityType" read as "type").
_KIND_NAMES = frozenset({"type", "kind", "category", "class"})
_KIND_BEFORE_NAME = re.compile(r"\b([A-Za-z][\w\-]*)\s+(?:named|called)\s+\S")


def _kind_before_name(text: str, noun: str, taken: set[str]) -> str | None:
    """The kind a request gives a thing it names ("a person named Carol" → person).

    Not the container's own noun ("an entity named Dana" says no type of entity).
    """
    for match in _KIND_BEFORE_NAME.finditer(text):
        word = match.group(1)
        lowered = word.lower()
        if lowered in STOPWORDS or lowered in taken or lemmatize(singular(lowered)) == noun:
            continue
        return word
    return None


# "Remember that Bob likes coffee", "record that Alice works at Acme": what is stated, after
# a verb of keeping and "that", its subject a name.
_STATEMENT = re.compile(
    r"\bthat\s+(?P<subject>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)\s+(?P<rest>[a-z][^.!?;]*?)\s*[.!?]?$"
)
_ENDS_WITH_NAME = re.compile(
    r"^(?P<relation>[a-z][\w\s\-']*?)\s+(?P<object>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)$"
)
_STARTS = frozenset({"from", "source", "subject", "start"})
_ENDS = frozenset({"to", "target", "object", "end"})


def _statement_parts(
    text: str, properties: Mapping[str, Any], short: Mapping[str, str]
) -> dict[str, Any]:
    """An object's properties read from a statement the request makes about a name.

    "that Alice works at Acme" for a relation (``from``, ``to``, ``relationType``): Alice,
    Acme and "works at"; "that Bob likes coffee" for an observation (``entityName``, a list
    of ``contents``): Bob and ["likes coffee"]. Nothing when the request states nothing or
    the object has no place for what it states.
    """
    found = _STATEMENT.search(text.strip())
    if found is None:
        return {}
    subject, rest = found.group("subject"), found.group("rest").strip()
    strings = {n for n, spec in properties.items()
               if isinstance(spec, Mapping) and spec.get("type") == "string"}
    texts = {n for n, spec in properties.items()
             if isinstance(spec, Mapping) and spec.get("type") == "array"
             and isinstance(spec.get("items"), Mapping) and spec["items"].get("type") == "string"}
    starts = [n for n in strings if short[n] in _STARTS]
    ends = [n for n in strings if short[n] in _ENDS]
    relation = _ENDS_WITH_NAME.match(rest)
    if starts and ends and relation is not None:
        kinds = [n for n in strings if n not in starts + ends]
        if len(kinds) == 1:
            return {starts[0]: subject, ends[0]: relation.group("object"),
                    kinds[0]: relation.group("relation")}
        return {}
    names = [n for n in strings if short[n] == "name" or short[n].endswith("_name")]
    if len(names) == 1 and len(texts) == 1:
        return {names[0]: subject, next(iter(texts)): [rest]}
    return {}


def _noun(container: str) -> str:
    words = split_words(container)
    return lemmatize(singular(words[-1].lower())) if words else ""


def _without(name: str, noun: str) -> str:
    """The property's name without the container's noun (``entityType`` → ``type``)."""
    words = [w for w in split_words(name) if lemmatize(singular(w.lower())) != noun]
    return "_".join(w.lower() for w in words) if words and noun else name


def _word_after_name(text: str, name: str, taken: set[str]) -> str | None:
    """The word right after the property's name in the text ("of type person" → person)."""
    wanted = [w.lower() for w in split_words(name)]
    if not wanted:
        return None
    words = list(re.finditer(r"[A-Za-z][\w'\-]*", text))
    for index in range(len(words) - len(wanted)):
        said = [lemmatize(singular(w.group().lower())) for w in words[index : index + len(wanted)]]
        if said != [lemmatize(singular(w)) for w in wanted]:
            continue
        after = words[index + len(wanted)]
        value = after.group()
        if value.lower() in STOPWORDS or value.lower() in taken:
            continue
        token = re.match(r"\S+", text[after.start() :])
        if token is not None and len(token.group().rstrip(",.;:!?)")) > len(value):
            return None  # "email john.doe@example.com": a typed value, the binder's to read
        return value
    return None


def bind_free_pairs(
    params: Sequence[Param],
    atoms: Sequence[tuple[Any, int]],
    values: dict[str, list[Any]],
    evidence: dict[str, float],
    used: set[int],
) -> None:
    """Pairs said as ``KEY=value`` or ``Key: value`` for an object of free keys, in place.

    "with DEPLOY_ENV=staging" for ``variables`` ("Pipeline variables as key/value pairs"),
    "with header X-Api-Key: abc123" for ``headers``: an object parameter whose schema names
    no properties takes the pairs whose key is no other parameter's name, as one object.
    """
    free = [p for p in params if p.kind in {"object", "dict"} and p.name not in values
            and not (p.schema.get("properties") or {})]
    if len(free) != 1:
        return  # which of several free objects a pair belongs to is not said
    names = {_key(p.name) for p in params}
    pairs = [(i, span) for i, (span, _) in enumerate(atoms)
             if i not in used and span.kind == "keyvalue" and span.key
             and _key(str(span.key)) not in names and _written_as_key(span)]
    if not pairs:
        return
    values[free[0].name] = [{str(span.key): span.value for _, span in pairs}]
    evidence[free[0].name] = 1.0
    used.update(i for i, _ in pairs)


def _written_as_key(span: Any) -> bool:
    """A pair written with "=", or a key no plain word is: "DEPLOY_ENV", "X-Api-Key".

    ("... by doing the following: 1) ...": a lower-case word before a colon is prose.)
    """
    return "=" in str(span.text) or re.search(r"[A-Z0-9_\-]", str(span.key)) is not None


def _key(name: str) -> str:
    return re.sub(r"[\W_]+", "", name).lower()
