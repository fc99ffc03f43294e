"""Values written in a form only one kind of parameter takes: evidence a request is about a tool.

"how many units of HD-2291-BLK do we have in WH-03?" for ``get_stock(sku, warehouse_id)``,
'post in #deployments: "v3.2.1 is live"' for ``post_message(channel, text)``: the words
and the meaning the small embedding model reads are far from the tool's (0.16-0.25), but the
request holds values that are written in a form few parameters take, and the tool has such a
parameter for each: an identifier (letters and digits) for an identifier parameter of what
the request says it identifies, a quoted text for a message, a note or a comment (a quoted
search term or title is said to many tools), a date said with its digits for a date or time, a
clock time for a time, a URL, an e-mail address or a path for the parameter whose schema asks
for that form. A name, a number or a day said relative to today ("tonight") tells nothing:
every request has them, and a question for another tool binds them as readily.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from nodes.planning.descriptions import asks_date_form
from nodes.planning.param_fit import DATE_WORDS, Param, content_words, describe_params
from nodes.planning.request_spans import extract_spans, is_relative_day
from nodes.planning.schema_binder import Binding
from nodes.planning.value_assignment import MESSAGE_NAMES
from nodes.planning.value_forms import holds_files, written_form
from stores.language.identifiers import identifier_base, split_words
from stores.language.spans import Span

# What a parameter's description says when it holds an identifier its name does not call one
# ("Stock keeping unit code of the product").
_ID_WORDS = frozenset("id identifier code unique number key uuid serial".split())
_SAYS_IDENTIFIER = re.compile(r"\b(?:id|ids|identifier|code|uuid|serial)\b", re.I)


def _dated(param: Param) -> bool:
    return bool(param.name_words & DATE_WORDS) or asks_date_form(param.schema)


def _holds_identifier(param: Param) -> bool:
    if param.kind != "string" or param.enum:
        return False
    return param.identifier or _SAYS_IDENTIFIER.search(
        str(param.schema.get("description") or "")
    ) is not None


def _holds_message(param: Param) -> bool:
    """A text a message or a note says ("text", "body", "comment"), not a search or a title.

    A quoted search term or title is said to many tools ("movies like 'Titanic'").
    """
    words = split_words(param.name)
    return (param.kind == "string" and not param.enum and bool(words)
            and words[-1].lower() in MESSAGE_NAMES)


def _said_of(param: Param, text: str) -> bool:
    """The request says what the identifier identifies.

    "units of HD-2291-BLK" for a stock keeping unit code, "game" for a game id (a tracking
    number is no title's id).
    """
    said = content_words(text)
    own = content_words(" ".join(split_words(identifier_base(param.name))))
    described = content_words(str(param.schema.get("description") or "")) - _ID_WORDS
    return bool(said & (own | described))


def _same(span: Span, value: Any) -> bool:
    return span.value == value or (
        isinstance(value, str) and isinstance(span.value, str)
        and span.value.strip() == value.strip()
    )


def _tells(span: Span, param: Param, value: Any, text: str) -> bool:
    """Whether ``span``, bound as ``value``, is written in the form ``param`` asks for."""
    if span.kind in {"date", "datetime"}:
        # The binder writes a date in the parameter's own form; a date said with its digits
        # ("Aug 10 2024", "2024-07-18"), not "tonight" or "next Friday".
        return (_dated(param) and isinstance(value, str) and not is_relative_day(span)
                and re.search(r"\d", span.text) is not None and re.search(r"\d", value) is not None)
    if not _same(span, value):
        return False
    if span.kind == "time":
        return _dated(param)
    if span.kind == "quoted":
        return _holds_message(param)
    if span.kind == "identifier":
        return _holds_identifier(param) and _said_of(param, text)
    if span.kind == "path":
        return holds_files(param.name_words, param.schema)
    if span.kind in {"url", "email"}:
        return written_form(param.name_words, param.schema) == span.kind
    return False


def telling_values(text: str, schema: Mapping[str, Any], bound: Binding) -> list[str]:
    """The parameters ``bound`` fills with a value written in the form each one asks for."""
    if not bound.sets:
        return []
    spans: list[Span] = []
    for span in extract_spans(text):
        spans.append(span)
        spans.extend(span.items or ())
    told: list[str] = []
    for param in describe_params(schema):
        value = bound.sets[0].get(param.name)
        if value is None:
            continue
        if any(_tells(span, param, value, text) for span in spans):
            told.append(param.name)
    return told
