"""Intent parsing below the ``parse_intent`` node: a request becomes a tree of sub-intents.

Two parsers share one interface, `IntentParser` (Z-Space §3.2):

- `nodes.parsing.rules.RuleIntentParser` is deterministic and offline (the embedded default);
  it splits a request with `nodes.parsing.splitting`, answers chit-chat with
  `nodes.parsing.chitchat` and finds the output format with `nodes.parsing.formats`.
- `nodes.parsing.llm.LLMIntentParser` asks a chat model for structured output and checks its
  literal values against the request; it can fall back to the rule parser.
"""

from __future__ import annotations

from typing import Any, Protocol

from nodes.state import Intent

__all__ = ["IntentParseError", "IntentParser", "require_text"]


class IntentParseError(ValueError):
    """A request could not be parsed into an intent; the message says what to do."""


class IntentParser(Protocol):
    """Anything that turns a request into an `Intent`."""

    def parse(self, request: str) -> Intent:
        """Parse one request."""
        ...


def require_text(request: Any) -> None:
    """Raise `IntentParseError` unless ``request`` is a string (every parser's first check)."""
    if not isinstance(request, str):
        raise IntentParseError(
            f"the request must be text, got {type(request).__name__}; pass the user's message"
        )
