"""A scripted OpenAI-compatible chat server on loopback: the model path tested and measured offline.

It speaks ``POST /v1/chat/completions`` (plain JSON and ``stream: true`` server-sent events)
with tool calls, the way ``ChatOpenAI`` expects. Each reply comes from a script: a list of
:class:`Reply` consumed in order, or a function of the request body. Every request body is
kept in ``requests`` so a test can assert what the model was shown (tools offered, messages).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer of the model.

    Attributes:
        content: the text (None with tool calls only).
        tool_calls: ``(name, arguments)`` pairs; arguments a dict, or raw text sent as is.
        raw: a whole response body to send instead (garbage tests), or ``None``.
        delay_s: seconds to wait before answering (time-out tests).
        status: the HTTP status (500 for a failing endpoint).
        usage: prompt and completion tokens reported; None counts them with o200k_base
            (the messages and tools sent, and the reply), as a real endpoint would.
    """

    content: str | None = None
    tool_calls: Sequence[tuple[str, Any]] = ()
    raw: str | None = None
    delay_s: float = 0.0
    status: int = 200
    usage: tuple[int, int] | None = (11, 7)


Script = Sequence[Reply] | Callable[[dict[str, Any]], Reply]


@dataclass
class ScriptedServer:
    """The running server: its base URL, the requests it got, and the rest of its script."""

    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    script: Any = None
    usage: list[tuple[int, int]] = field(default_factory=list)

    def offered_tools(self, index: int = -1) -> list[str]:
        """Names of the tools offered in request ``index``."""
        return [tool["function"]["name"] for tool in self.requests[index].get("tools") or []]


def _message(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{uuid.uuid4().hex[:10]}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for name, args in reply.tool_calls
        ]
    return message


def _usage(reply: Reply, body: dict[str, Any]) -> tuple[int, int]:
    """The reply's token usage: scripted, or counted like a real endpoint counts it."""
    if reply.usage is not None:
        return reply.usage
    from stores.retrieval.tokens import count_tokens

    sent = json.dumps({"messages": body.get("messages"), "tools": body.get("tools")})
    answered = json.dumps(_message(reply))
    return count_tokens(sent), count_tokens(answered)


def _completion(reply: Reply, model: str, usage: tuple[int, int]) -> dict[str, Any]:
    prompt, completion = usage
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{
            "index": 0,
            "message": _message(reply),
            "finish_reason": "tool_calls" if reply.tool_calls else "stop",
        }],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }


def _chunks(reply: Reply, model: str, usage: tuple[int, int]) -> Iterator[dict[str, Any]]:
    base = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion.chunk",
            "created": int(time.time()), "model": model}
    message = _message(reply)
    delta: dict[str, Any] = {"role": "assistant", "content": message["content"] or ""}
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    for index, call in enumerate(message.get("tool_calls") or []):
        tool_delta = {"index": index, "id": call["id"], "type": "function",
                      "function": {"name": call["function"]["name"],
                                   "arguments": call["function"]["arguments"]}}
        yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [tool_delta]},
                                    "finish_reason": None}]}
    finish = "tool_calls" if reply.tool_calls else "stop"
    prompt, completion = usage
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
           "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                     "total_tokens": prompt + completion}}


def _handler(server: ScriptedServer, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet test output
            return

        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            try:
                self._answer()
            except (BrokenPipeError, ConnectionResetError):
                return  # the client gave up (a time-out test): nobody to answer

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send_error(404, "only /v1/chat/completions is served")
                return
            with lock:
                server.requests.append(body)
                script = server.script
                if callable(script):
                    reply = script(body)
                elif script:
                    reply = script.pop(0)
                else:
                    reply = Reply(status=500, raw='{"error": {"message": "script exhausted"}}')
            if reply.delay_s:
                time.sleep(reply.delay_s)
            model = str(body.get("model") or "scripted")
            if reply.raw is not None or reply.status != 200:
                payload = (reply.raw or "{}").encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                return
            usage = _usage(reply, body)  # counted once, for answered requests only
            with lock:
                server.usage.append(usage)
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in _chunks(reply, model, usage):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                return
            payload = json.dumps(_completion(reply, model, usage)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextmanager
def scripted_openai_server(script: Script) -> Iterator[ScriptedServer]:
    """Serve ``script`` on a free loopback port for the duration of the ``with`` block."""
    state = ScriptedServer(base_url="", script=list(script) if not callable(script) else script)
    lock = threading.Lock()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state, lock))
    httpd.daemon_threads = True
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, name="scripted-openai", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
