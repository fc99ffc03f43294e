"""What a parameter's schema says of the form its value takes, read from the schema alone.

A string that must be an e-mail address, a URL or a path (:func:`written_form`); a value a
naming verb introduces (:func:`named_by_verb`); an enum of actions whose value the request
names by a synonym (:func:`operation_option`). The schema binder's type fit and cues use them
(:mod:`nodes.planning.param_fit`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from stores.language.keywords import tokenize
from stores.language.lexicon import Lexicon

# How a schema says which written form a string takes: JSON Schema's ``format``, or a word of
# the parameter's name or description. A span of that form fits it better than any other
# string ("an email to Andy at andy@x.ai" for the recipient's email address).
_SCHEMA_FORMS = {"email": "email", "idn-email": "email", "uri": "url", "url": "url", "iri": "url",
                 "uri-reference": "url"}
_FORM_NAME_WORDS = (
    ("email", frozenset({"email", "mail"})),
    ("url", frozenset({"url", "uri", "link", "endpoint", "website", "webpage"})),
    ("path", frozenset({"path", "directory", "folder", "filepath", "dir"})),
)
_FORM_DESCRIPTIONS = (
    ("email", re.compile(r"\be-?mail address", re.I)),
    ("url", re.compile(r"\b(?:url|uri)s?\b", re.I)),
    ("path", re.compile(r"\b(?:file|directory|folder)\s+path\b|\bpath\s+(?:to|of)\b", re.I)),
)
FORM_FIT = 1.5
OTHER_FORM_FIT = 0.5
# A verb of naming right before a value says it is a name or a title: "my speaker named
# 'ue boom'", "an article titled 'AI today'".
_NAMING_VERBS = {"named": "name", "called": "name", "titled": "title", "entitled": "title"}


def written_form(name_words: AbstractSet[str], schema: Mapping[str, Any]) -> str | None:
    """The written form ("email", "url", "path") the parameter's schema asks for, if any."""
    form = _SCHEMA_FORMS.get(str(schema.get("format") or "").lower())
    if form is not None:
        return form
    for form, words in _FORM_NAME_WORDS:
        if name_words & words:
            return form
    description = str(schema.get("description") or "")
    return next((form for form, said in _FORM_DESCRIPTIONS if said.search(description)), None)


def named_by_verb(text: str, start: int, param_name: str) -> bool:
    """Whether a naming verb right before ``start`` says the value is the parameter's name."""
    verb = re.search(r"(\w+)\s*[:\"'“`]?\s*$", text[:start])
    noun = _NAMING_VERBS.get(verb.group(1).lower()) if verb else None
    return noun is not None and noun in param_name.lower()  # "name" is no content word


def operation_option(text: str, options: Sequence[str]) -> str | None:
    """The enum value that names, in other words, the operation the text asks for.

    "Remove the 'ravi' task" for a parameter allowing ``add``, ``delete`` and ``update``:
    the lexicon (a data file) reads "remove" and ``delete`` as one operation. Only for a
    parameter whose values name two or more distinct operations (an action to perform), and
    only when the text asks for exactly one of them: a status ``open`` is no "create".
    """
    lexicon = Lexicon.default()
    by_operation: dict[str, list[str]] = {}
    for option in options:
        canonical = lexicon.canonical(option.replace("_", " "), "operation")
        if canonical is not None:
            by_operation.setdefault(canonical, []).append(option)
    if len(by_operation) < 2:
        return None
    asked = {
        match.canonical
        for match in lexicon.find_terms(tokenize(text))
        if match.kind == "operation" and match.canonical in by_operation
    }
    if len(asked) != 1:
        return None
    named = by_operation[asked.pop()]
    return named[0] if len(named) == 1 else None
