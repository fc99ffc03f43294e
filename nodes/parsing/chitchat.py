"""Chit-chat the rule parser answers without a tool: greetings, thanks, help, arithmetic.

The greeting and the capability answer describe the domain: they come from the domain
vocabulary (``stores/language/data/vocabulary.yaml``).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stores.language.vocabulary import domain_vocabulary

_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|greetings|good\s+(?:morning|afternoon|evening|day)|howdy)"
    r"(?:\s+(?:there|all|team|bot|zspace))?[\s!.,]*$",
    re.I,
)
_THANKS = re.compile(
    r"^(?:(?:ok(?:ay)?|great|cool|awesome|perfect|nice|good|fine)[\s,!.]*)?"
    r"(?:thanks?(?:\s+you)?|thx|ty|cheers|much\s+appreciated)(?:\s+(?:a\s+lot|so\s+much|very"
    r"\s+much))?[\s!.]*$|^(?:ok(?:ay)?|great|cool|awesome|perfect|bye|goodbye)[\s!.]*$",
    re.I,
)
_CAPABILITY = re.compile(
    r"^(?:what\s+(?:can|do)\s+you\s+do|who\s+are\s+you|what\s+are\s+you|help|how\s+do\s+(?:you|"
    r"i)\s+use\s+(?:you|this)|what\s+(?:tools|services)\s+do\s+you\s+(?:have|offer)|"
    r"how\s+can\s+you\s+help(?:\s+me)?)[\s?!.]*$",
    re.I,
)
_DEFINITION = re.compile(
    r"^(?:what\s+is|what's|whats|what\s+are|what\s+does)\s+(?:an?\s+)?([a-z][a-z\s-]{0,30}?)"
    r"(?:\s+mean)?\s*\?*$",
    re.I,
)
_ARITHMETIC_LEAD = re.compile(
    r"^(?:what\s+is|what's|whats|how\s+much\s+is|calculate|compute|evaluate|solve)\s+", re.I
)
_ARITHMETIC_WORDS = [
    (re.compile(r"\bmultiplied\s+by\b|\btimes\b|×", re.I), "*"),
    (re.compile(r"\bdivided\s+by\b|÷", re.I), "/"),
    (re.compile(r"\bplus\b", re.I), "+"),
    (re.compile(r"\bminus\b", re.I), "-"),
    (re.compile(r"(?<=\d)\s*x\s*(?=\d)", re.I), "*"),
    (re.compile(r"\^"), "**"),
]
_ARITHMETIC_TEXT = re.compile(r"[\d\s.+\-*/()%]+")

THANKS_ANSWER = "You're welcome!"

_BINARY_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            raise ValueError("exponent too large")
        return float(_BINARY_OPERATORS[type(node.op)](left, right))
    raise ValueError("not arithmetic")


def _arithmetic_answer(clause: str) -> str | None:
    """Answer "what is 2+2" / "calculate 3 times 4"; None if the clause is not arithmetic."""
    body = _ARITHMETIC_LEAD.sub("", clause.strip()).rstrip("?!. =")
    for pattern, replacement in _ARITHMETIC_WORDS:
        body = pattern.sub(replacement, body)
    if not body or not _ARITHMETIC_TEXT.fullmatch(body) or not re.search(r"\d", body):
        return None
    if not re.search(r"\d\s*(?:[+\-*/%]|\*\*)\s*[\d(]", body):
        return None
    try:
        value = _evaluate(ast.parse(body.strip(), mode="eval"))
    except ZeroDivisionError:
        return f"{body.strip()} is undefined (division by zero)."
    except (SyntaxError, ValueError, OverflowError, RecursionError):
        return None
    shown = str(int(value)) if value.is_integer() else f"{value:.10g}"
    return f"{body.strip()} = {shown}"


@dataclass(frozen=True)
class ChitChat:
    """A clause that needs no tool, and its canned answer (None for a definition question)."""

    kind: str  # greeting, thanks, capability, arithmetic, definition
    answer: str | None


def chit_chat(clause: str) -> ChitChat | None:
    """Read a clause as a greeting, thanks, a capability question, arithmetic or a definition."""
    text = " ".join(clause.strip().split())
    if not text:
        return None
    if _GREETING.match(text):
        return ChitChat("greeting", domain_vocabulary().greeting_answer)
    if _THANKS.match(text):
        return ChitChat("thanks", THANKS_ANSWER)
    if _CAPABILITY.match(text):
        return ChitChat("capability", domain_vocabulary().capability_answer)
    arithmetic = _arithmetic_answer(text)
    if arithmetic is not None:
        return ChitChat("arithmetic", arithmetic)
    definition = _DEFINITION.match(text)
    if definition and re.match(r"^what\s+(?:is|are|does)\s+an?\s|^what's\s+an?\s", text, re.I):
        return ChitChat("definition", None)
    return None
