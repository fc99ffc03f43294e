"""Fill a tool's missing ``summary``, ``entity_tags`` and ``capability_tags``.

Offline, tags are derived deterministically from the tool's name tokens, parameter names and
description phrases through the domain lexicon. With a chat model, Z-Space's way is used: the
model writes them, and answers are cached by the tool's content hash so a re-index asks again
only for tools that changed.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from stores.catalog.model import Catalog, ToolSpec
from stores.language.keywords import STOPWORDS, lemmatize, tokenize
from stores.language.lexicon import Lexicon

MAX_TAGS = 6
SUMMARY_CHARS = 200
# Raise when derive_tags changes: tools enriched by an older derivation are derived again.
DERIVATION_VERSION = 2


class ToolTags(BaseModel):
    """Structured output asked of a chat model for one tool."""

    summary: str = Field(description="One sentence: what the tool does, for whom.")
    entity_tags: list[str] = Field(description="Business objects the tool reads or writes.")
    capability_tags: list[str] = Field(description="Operations it performs, as verbs.")


def derive_tags(spec: ToolSpec, lexicon: Lexicon) -> tuple[str, list[str], list[str]]:
    """Return ``(summary, entity_tags, capability_tags)`` derived without a model.

    The name says what the tool does by its first word, or by its last when the first is no
    operation ("read_file": the file is no "file a complaint"; "user_delete"). The
    description says it by the verbs of its sentences and names things in its first
    sentence only (:func:`_description_words`: "Returns the list of directories" returns no
    refund). With no thing the lexicon knows, the name's other words are the entity tags.
    """
    name_words = [lemmatize(w) for w in tokenize(spec.name)]
    param_words = [
        lemmatize(w)
        for param in (spec.input_schema.get("properties") or {})
        for w in tokenize(str(param))
    ]
    verbs, nouns = _description_words(spec.indexed_description()[:600])
    capabilities: list[str] = []
    entities: list[str] = []
    for word in _name_verbs(name_words, lexicon) + verbs:
        operation = lexicon.canonical(word, "operation")
        if operation and operation not in capabilities:
            capabilities.append(operation)
    for word in name_words + param_words + nouns:
        obj = lexicon.canonical(word, "object")
        if obj and obj not in entities:
            entities.append(obj)
    if not entities:
        entities = [
            w
            for w in dict.fromkeys(name_words)
            if w not in STOPWORDS and not lexicon.canonical(w, "operation") and len(w) > 2
            and not w.isdigit()
        ]
    return _summary(spec), entities[:MAX_TAGS], capabilities[:MAX_TAGS]


# Words after which the next word says what is done ("Move or rename", "can move", "to read").
_BEFORE_VERBS = frozenset("to can will may must or and then".split())


def _name_verbs(words: list[str], lexicon: Lexicon) -> list[str]:
    """The words of a tool's name that may say its operation: the first, else the last."""
    said = [w for w in words if lexicon.canonical(w, "operation")]
    if not said:
        return []
    if words[0] in said:
        return [words[0]]
    return [words[-1]] if words[-1] in said else said[:1]


def _description_words(text: str) -> tuple[list[str], list[str]]:
    """A description's words that may say an operation, and those that may name a thing.

    A sentence says what is done by its first word ("Read the complete contents", "Returns
    the list") and by a word after "to", a modal or "or" ("Move or rename", "Can move"); a
    thing is named in the first sentence, what the tool does, after its first word (later
    sentences tell of formats and errors: "provides detailed error messages" is about no
    message the tool handles).
    """
    verbs: list[str] = []
    nouns: list[str] = []
    sentences = [s for s in re.split(r"(?<=[.!?:;])\s+|\n+", text) if s.strip()]
    for number, sentence in enumerate(sentences):
        words = tokenize(sentence)
        for position, word in enumerate(words):
            lemma = lemmatize(word)
            if position == 0 or words[position - 1] in _BEFORE_VERBS:
                verbs.append(lemma)
            elif number == 0:
                nouns.append(lemma)
    return verbs, nouns


def _summary(spec: ToolSpec) -> str:
    description = spec.description.strip()
    if description:
        first = re.split(r"(?<=[.!?])\s", description, maxsplit=1)[0]
        return first[:SUMMARY_CHARS]
    params = ", ".join(list(spec.input_schema.get("properties") or {})[:6])
    readable = " ".join(tokenize(spec.name))
    return f"{readable} ({params})" if params else readable


def enrichment_fingerprint(lexicon: Lexicon | None = None) -> str:
    """Names what offline enrichment depends on: the derivation and the lexicon's terms.

    Tools enriched under the same fingerprint from the same record need not be enriched again.
    """
    lexicon = lexicon or Lexicon.default()
    return _stable_fingerprint([DERIVATION_VERSION, lexicon.fingerprint()])


def _stable_fingerprint(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def enrich_catalog(catalog: Catalog, lexicon: Lexicon | None = None) -> int:
    """Fill missing fields of every tool offline; returns how many tools changed."""
    lexicon = lexicon or Lexicon.default()
    changed = 0
    for spec in catalog.tools.values():
        if spec.summary and spec.entity_tags and spec.capability_tags:
            continue
        if spec.known("enriched"):
            continue  # read back from the catalog store, enriched under this fingerprint
        summary, entities, capabilities = derive_tags(spec, lexicon)
        spec.summary = spec.summary or summary
        spec.entity_tags = spec.entity_tags or entities
        spec.capability_tags = spec.capability_tags or capabilities
        changed += 1
    return changed


def enrich_catalog_with_model(
    catalog: Catalog, chat_model: Any, cache_path: Path, lexicon: Lexicon | None = None
) -> dict[str, int]:
    """Ask a chat model for missing fields, cached by content hash; offline rules as fallback.

    A tool whose model answer fails validation twice keeps the offline derivation, so one bad
    answer never blocks indexing.

    Returns:
        Counts: ``asked``, ``cached``, ``failed``.
    """
    from stores.llm import invoke_structured

    cache: dict[str, dict[str, Any]] = {}
    if cache_path.is_file():
        cache = json.loads(cache_path.read_text())
    counts = {"asked": 0, "cached": 0, "failed": 0}
    for spec in catalog.tools.values():
        if spec.summary and spec.entity_tags and spec.capability_tags:
            continue
        key = spec.content_hash()
        answer = cache.get(key)
        if answer is None:
            counts["asked"] += 1
            prompt = (
                "Describe this tool for a search index. Reply with a one-sentence summary, "
                "the business objects it handles (entity_tags) and the operations it performs "
                "(capability_tags).\n<tool>\n"
                + json.dumps(
                    {
                        "name": spec.name,
                        "description": spec.indexed_description(),
                        "parameters": list(spec.input_schema.get("properties") or {}),
                    },
                    ensure_ascii=False,
                )
                + "\n</tool>"
            )
            try:
                parsed = invoke_structured(chat_model, ToolTags, prompt)
            except (ValidationError, ValueError):
                counts["failed"] += 1
                parsed = None
            if parsed is not None:
                answer = parsed.model_dump()
                cache[key] = answer
        else:
            counts["cached"] += 1
        if answer:
            spec.summary = spec.summary or answer["summary"][:SUMMARY_CHARS]
            spec.entity_tags = spec.entity_tags or answer["entity_tags"][:MAX_TAGS]
            spec.capability_tags = spec.capability_tags or answer["capability_tags"][:MAX_TAGS]
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache_path.write_text(json.dumps(cache, ensure_ascii=False))
    enrich_catalog(catalog, lexicon)
    return counts
