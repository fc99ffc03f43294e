"""synthesize: the answer from the request, the trace and the tool data (template or LLM).

``synthesize`` — Reads: intent, plan, results, gaps, token_ledger, model_answer.
Writes: answer, messages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.state import CallResult, ZState, answered_directly
from stores.secrets import MASKED_RUN, mask_secret_text, secrets_in_text

KEY_HINTS = ("id", "status", "name", "number", "total", "amount", "price", "quantity", "code")
MAX_FIELDS = 6


def summarize_output(output: Any, limit: int = 160) -> str:
    """A short, readable digest of a tool's output: identifiers and status first."""
    if isinstance(output, Mapping):
        keys = sorted(
            output,
            key=lambda k: (not any(h in str(k).lower() for h in KEY_HINTS), list(output).index(k)),
        )
        parts = []
        for key in keys:
            value = output[key]
            if isinstance(value, Mapping | list):
                continue
            parts.append(f"{key}={value}")
            if len(parts) >= MAX_FIELDS:
                break
        text = ", ".join(parts) or json.dumps(output, ensure_ascii=False, default=str)
    elif isinstance(output, list):
        text = f"{len(output)} item(s)" + (f": {summarize_output(output[0], 80)}" if output else "")
    else:
        text = str(output)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trace_rows(state: ZState) -> list[dict[str, Any]]:
    """One row per planned call, in plan order, with its outcome."""
    results: Mapping[str, CallResult] = state.get("results") or {}
    texts = {s["id"]: s["text"] for s in state["intent"]["sub_intents"]}
    rows = []
    for call in state.get("plan") or []:
        result = results.get(call["call_id"])
        rows.append(
            {
                "call_id": call["call_id"],
                "sub_intent": texts.get(call["sub_intent_id"], ""),
                "role": call["role"],
                "tool": call["tool_id"],
                "status": result["status"] if result else "not run",
                "output": result["output"] if result else None,
                "error": result.get("error") if result else None,
                "replayed": bool(result and result.get("replayed")),
            }
        )
    return rows


def render_answer(state: ZState, output_format: str) -> str:
    """The templated answer in ``md`` (a table), ``json`` or ``text`` (a narrative)."""
    rows = trace_rows(state)
    direct = [
        s.get("answer") or ""
        for s in state["intent"]["sub_intents"]
        if answered_directly(state, s)
    ]
    gaps = list(state.get("gaps") or [])
    ledger = state.get("token_ledger") or {}
    if output_format == "json":
        return json.dumps(
            {
                "request": state["intent"]["request"],
                "calls": rows,
                "answers": direct,
                "gaps": gaps,
                "tokens": ledger,
            },
            ensure_ascii=False,
            default=str,
        )
    if output_format == "text":
        sentences = [a for a in direct if a]
        for row in rows:
            if row["status"] == "ok":
                sentences.append(f"{row['tool']} returned {summarize_output(row['output'])}.")
            else:
                sentences.append(f"{row['tool']} {row['status']}: {row['error']}.")
        sentences.extend(f"Not done: {gap}." for gap in gaps)
        return " ".join(sentences) or "There was nothing to do."
    lines: list[str] = []
    if direct:
        lines.extend(a for a in direct if a)
    if rows:
        lines.append("| # | step | tool | status | result |")
        lines.append("|---|---|---|---|---|")
        for number, row in enumerate(rows, start=1):
            result = (
                summarize_output(row["output"]) if row["status"] == "ok" else row["error"] or ""
            )
            status = row["status"] + (" (replayed)" if row["replayed"] else "")
            step = (
                row["sub_intent"] if row["role"] == "core" else f"(lookup for) {row['sub_intent']}"
            )
            lines.append(
                f"| {number} | {_cell(step)} | `{row['tool']}` | {status} | {_cell(result)} |"
            )
    if gaps:
        lines.append("")
        lines.extend(f"**Not done:** {gap}" for gap in gaps)
    if not lines:
        lines.append("There was nothing to do.")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


async def synthesize(
    state: ZState, runtime: Runtime[Context], *, chat_model_factory: Any = None
) -> dict[str, Any]:
    """Write the answer (template offline; a chat model when one is configured).

    The answer is also appended to ``messages``.
    """
    context = resolve_context(runtime)
    output_format = state["intent"].get("output_format") or context.output_format
    answer = render_answer(state, output_format)
    model = chat_model_factory(context) if chat_model_factory else None
    model_answer = state.get("model_answer") or ""
    if model_answer and output_format != "json":
        # The planning model wrote the answer from the results; failures are still stated.
        gaps = state.get("gaps") or []
        answer = model_answer + (
            "\n\n**Not done:**\n" + "\n".join(f"- {gap}" for gap in gaps) if gaps else ""
        )
    elif model is not None and output_format == "text":
        from nodes.prompts import SYNTHESIS_PROMPT

        trace = json.dumps(trace_rows(state), ensure_ascii=False, default=str)[:12000]
        try:
            reply = await model.ainvoke(
                SYNTHESIS_PROMPT.format(
                    request=state["intent"]["request"],
                    trace=trace,
                    gaps="; ".join(state.get("gaps") or []),
                )
            )
            answer = str(reply.content) or answer
        except Exception as exc:  # noqa: BLE001 - the template answer stands on any model failure
            answer += f"\n\n(model synthesis failed: {type(exc).__name__})"
    request = str(state["intent"].get("request") or "")
    if secrets_in_text(request) or MASKED_RUN in request:
        answer += (
            "\n\nNote: the request contained what looks like a credential. It is masked "
            "(********) in checkpoints and in this answer; give credentials through "
            "ZSPACE_SECRET_<PARAMETER> or the MCP server's env instead."
        )
    answer = mask_secret_text(answer)
    return {"answer": answer, "messages": [AIMessage(answer)]}
