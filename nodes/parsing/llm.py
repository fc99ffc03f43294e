"""The LLM intent parser: a chat model's structured output, fact-checked against the request.

`LLMIntentParser` asks any LangChain chat model for an `IntentModel` (structured output with
bounded repair), then normalizes it through the lexicon and overrides literal values with
the rule extractor's, so a model cannot invent an id. It can fall back to another parser.
"""

from __future__ import annotations

from typing import Any, cast

from nodes.parsing import IntentParseError, IntentParser, require_text
from nodes.parsing.formats import detect_output_format
from nodes.prompts import INTENT_PARSE_PROMPT
from nodes.schemas import IntentModel
from nodes.state import Entities, Intent, SubIntent
from stores.language.entities import extract_entities
from stores.language.keywords import extract_keywords
from stores.language.lexicon import Lexicon
from stores.llm import MAX_REPAIRS, StructuredOutputError, invoke_structured

__all__ = ["LLMIntentParser"]


class LLMIntentParser:
    """Intent parser backed by a chat model's structured output.

    Args:
        chat_model: Any LangChain chat model (``with_structured_output`` is used when present).
        lexicon: Synonym lexicon for normalizing operations and targets; None uses the default.
        fallback: Parser used when the model fails (e.g. `RuleIntentParser`); its intent is
            marked ``parser="rules (llm failed: ...)"``. None raises `IntentParseError`.
        max_repairs: Repair rounds after an invalid answer.
    """

    name = "llm"

    def __init__(
        self,
        chat_model: Any,
        lexicon: Lexicon | None = None,
        fallback: IntentParser | None = None,
        max_repairs: int = MAX_REPAIRS,
    ) -> None:
        self.chat_model = chat_model
        self.lexicon = lexicon or Lexicon.default()
        self.fallback = fallback
        self.max_repairs = max_repairs

    def prompt(self, request: str) -> str:
        """The prompt sent to the model for ``request``."""
        safe = request.replace("</request>", "</ request>")
        return INTENT_PARSE_PROMPT.format(
            request=safe,
            operations=", ".join(sorted(self.lexicon.operations)),
            objects=", ".join(sorted(self.lexicon.objects)),
        )

    def parse(self, request: str) -> Intent:
        """Parse with the model; fall back or raise `IntentParseError` if it fails.

        Args:
            request: The user's request.

        Returns:
            The intent, ``parser="llm"`` (or the fallback's intent with a failure marker).

        Raises:
            IntentParseError: If the model gives no valid intent and there is no fallback.
        """
        require_text(request)
        try:
            model = invoke_structured(
                self.chat_model, IntentModel, self.prompt(request), self.max_repairs
            )
        except StructuredOutputError as exc:
            reason = f"no valid IntentModel after {exc.attempts} attempts"
            return self._fall_back(request, reason, exc)
        except Exception as exc:  # noqa: BLE001 - a model or network failure of any kind
            return self._fall_back(request, f"{type(exc).__name__}: {exc}"[:200], exc)
        return self.to_intent(request, model)

    def _fall_back(self, request: str, reason: str, exc: Exception) -> Intent:
        if self.fallback is None:
            raise IntentParseError(
                f"the LLM intent parser failed ({reason}); use a model that supports "
                "structured output, or pass fallback=RuleIntentParser()"
            ) from exc
        intent = self.fallback.parse(request)
        intent["parser"] = f"{intent.get('parser') or 'fallback'} (llm failed: {reason})"
        return intent

    def to_intent(self, request: str, model: IntentModel) -> Intent:
        """Turn a validated `IntentModel` into plain state data, normalized and fact-checked.

        Operations and targets go through the lexicon; literal values come from the rule
        extractor, and a value the model reports is kept only if the request contains it.

        Args:
            request: The request the model parsed.
            model: The model's answer.

        Returns:
            The intent, ``parser="llm"``.
        """
        literal = _Literals(request, self.lexicon)
        subs: list[SubIntent] = []
        for sub in model.sub_intents:
            operation = self._canonical(sub.operation, "operation")
            target = self._canonical(sub.target, "object")
            rule_named = extract_entities(sub.text, self.lexicon)["named"]
            entities: dict[str, Any] = {}
            for key, value in {**sub.entities, **rule_named}.items():
                clean_key = "_".join(str(key).lower().split())
                if clean_key and literal.contains(value):
                    entities[clean_key] = value
            for key, value in rule_named.items():
                if literal.contains(value):
                    entities["_".join(key.lower().split())] = value
            keywords = [k.lower().strip() for k in sub.keywords if k.strip()]
            keywords += extract_keywords(sub.text, self.lexicon, max_keywords=10)
            keywords = list(dict.fromkeys([*(k for k in (operation, target) if k), *keywords]))
            subs.append(
                SubIntent(
                    id=sub.id,
                    text=sub.text,
                    operation=operation,
                    target=target,
                    keywords=keywords,
                    entities=entities,
                    depends_on=list(sub.depends_on),
                    action=sub.action,
                    answer=sub.answer,
                    question=sub.question,
                )
            )
        rule_format, _ = detect_output_format(request)
        first = subs[0]
        return Intent(
            request=request,
            category=(model.category or "general").strip().lower() or "general",
            operation=first["operation"],
            target=first["target"],
            keywords=list(dict.fromkeys(k for s in subs for k in s["keywords"])),
            entities=cast(Entities, extract_entities(request, self.lexicon)),
            sub_intents=subs,
            parser=self.name,
            output_format=model.output_format or rule_format,
        )

    def _canonical(self, term: str, kind: str) -> str:
        term = term.strip().lower()
        if not term:
            return ""
        found = self.lexicon.canonical(term, "operation" if kind == "operation" else "object")
        return found or term


class _Literals:
    """Checks that a value the model reports is written in the request."""

    def __init__(self, request: str, lexicon: Lexicon) -> None:
        self.text = " ".join(request.lower().replace("_", " ").split())
        entities = extract_entities(request, lexicon)
        self.numbers = {float(n) for n in entities["numbers"]}
        self.numbers |= {float(a["value"]) for a in entities["amounts"]}
        self.numbers |= {float(v) for v in entities["named"].values() if isinstance(v, int | float)}

    def contains(self, value: Any) -> bool:
        if isinstance(value, bool) or value is None:
            return False
        if isinstance(value, int | float):
            number = float(value)
            return number in self.numbers or _number_text(number) in self.text
        if isinstance(value, str):
            needle = " ".join(value.lower().replace("_", " ").split())
            return bool(needle) and needle in self.text
        return False


def _number_text(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)
