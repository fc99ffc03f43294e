"""normalize: the lexicon's canonical terms for operations, objects and entity keys.

Reads: intent.
Writes: intent.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nodes.context import Context
from nodes.state import Intent, SubIntent, ZState
from stores.language.lexicon import Lexicon
from stores.language.vocabulary import domain_vocabulary, value_keys


def normalize_intent(intent: Intent, lexicon: Lexicon) -> Intent:
    """Return the intent with canonical operations, targets, keywords and entity keys.

    The rule parser already speaks the lexicon; an LLM parser may not ("place", "voucher").
    Keywords keep their surface form too when it differs, so FSWW and BM25 see both.
    """
    subs: list[SubIntent] = []
    for sub in intent["sub_intents"]:
        operation = lexicon.canonical(sub["operation"], "operation") or sub["operation"]
        target = lexicon.canonical(sub["target"], "object") or sub["target"]
        keywords: list[str] = []
        for word in [operation, target, *sub["keywords"]]:
            if not word:
                continue
            canonical = lexicon.canonical(word)
            keywords.extend([canonical, word] if canonical and canonical != word else [word])
        entities = {
            _canonical_key(key, lexicon): value
            for key, value in (sub.get("entities") or {}).items()
        }
        subs.append(
            {
                **sub,
                "operation": operation,
                "target": target,
                "keywords": list(dict.fromkeys(keywords)),
                "entities": entities,
            }
        )
    first = subs[0] if subs else None
    return {
        **intent,
        "sub_intents": subs,
        "operation": first["operation"] if first else intent["operation"],
        "target": first["target"] if first else intent["target"],
    }


def _canonical_key(key: str, lexicon: Lexicon) -> str:
    # Keys that are parameter names (with "_") stay as they are; single nouns are folded,
    # except nouns with an identifier space of their own ("account": an account number) and
    # the keys of values of a fixed kind ("tier" is a value, not the id of a membership).
    if "_" in key or key in domain_vocabulary().own_identifier_spaces or key in value_keys():
        return key
    return (lexicon.canonical(key, "object") or key).replace(" ", "_")


async def normalize(
    state: ZState, runtime: Runtime[Context], *, lexicon: Lexicon
) -> dict[str, Any]:
    """Fold synonyms into canonical terms.

    Reads: intent.
    Writes: intent.
    """
    return {"intent": normalize_intent(state["intent"], lexicon)}
