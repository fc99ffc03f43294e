"""A small ticket service with its OpenAPI 3.0 document, served on loopback for the tests.

Standard library only (``http.server`` in a thread). It checks an API key sent in the
``X-API-Key`` header, keeps tickets in memory, records every request it receives (method, path,
query, headers, body) and can be told to fail a route a few times (``fail``), so the tests see
what zspace actually sent over the wire.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

API_KEY_HEADER = "X-API-Key"


def ticket_document(base_url: str) -> dict[str, Any]:
    """The service's OpenAPI 3.0 document (components, $ref, enums, arrays, security)."""
    ticket_id = {"name": "ticket_id", "in": "path", "required": True,
                 "description": "The ticket's id.", "schema": {"type": "string"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Ticket Desk", "version": "1.0",
                 "description": "Support tickets: open, find, change and close them."},
        "servers": [{"url": base_url}],
        "security": [{"apiKey": []}],
        "paths": {
            "/tickets": {
                "post": {
                    "operationId": "open_ticket",
                    "summary": "Open a new support ticket with a title and a priority",
                    "tags": ["ticket"],
                    "parameters": [{"name": "Idempotency-Key", "in": "header",
                                    "schema": {"type": "string"}}],
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/NewTicket"}}}},
                    "responses": {"201": {"description": "created", "content": {
                        "application/json": {"schema": {
                            "$ref": "#/components/schemas/Ticket"}}}}},
                },
                "get": {
                    "operationId": "search_tickets",
                    "summary": "Search support tickets by text and status",
                    "tags": ["ticket"],
                    "parameters": [
                        {"name": "q", "in": "query", "description": "Text to search for.",
                         "schema": {"type": "string"}},
                        {"name": "status", "in": "query", "schema": {
                            "type": "string", "enum": ["open", "closed"]}},
                        {"name": "limit", "in": "query",
                         "schema": {"type": "integer", "minimum": 1, "maximum": 50}},
                        {"name": "title", "in": "query", "description": "Exact title.",
                         "schema": {"type": "string"}},
                        {"name": "maxResults", "in": "query", "schema": {"type": "integer"}},
                    ],
                    "responses": {"200": {"description": "found"}},
                },
            },
            "/tickets/{ticket_id}": {
                "parameters": [ticket_id],
                "get": {
                    "operationId": "get_ticket",
                    "summary": "Get one support ticket by its id",
                    "tags": ["ticket"],
                    "responses": {"200": {"description": "the ticket"},
                                  "404": {"description": "no such ticket"}},
                },
                "put": {
                    "operationId": "update_ticket",
                    "summary": "Update a support ticket's title or status",
                    "tags": ["ticket"],
                    "requestBody": {"content": {"application/json": {"schema": {
                        "type": "object", "properties": {
                            "subject": {"type": "string"},
                            "status": {"type": "string", "enum": ["open", "closed"]}}}}}},
                    "responses": {"200": {"description": "updated"}},
                },
                "delete": {
                    "operationId": "remove_ticket",
                    "summary": "Remove a support ticket for good",
                    "tags": ["ticket"],
                    "responses": {"204": {"description": "removed"}},
                },
            },
            "/health": {
                "get": {
                    "operationId": "service_health",
                    "summary": "Check that the ticket service is healthy",
                    "security": [],
                    "responses": {"200": {"description": "ok"}},
                },
            },
        },
        "components": {
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "in": "header", "name": API_KEY_HEADER}},
            "schemas": {
                "NewTicket": {
                    "type": "object",
                    "required": ["subject"],
                    "properties": {
                        "subject": {"type": "string", "description": "What the ticket is about."},
                        "priority": {"type": "string", "enum": ["low", "normal", "high"],
                                     "default": "normal"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "id": {"type": "string", "readOnly": True},
                    },
                },
                "Ticket": {
                    "allOf": [{"$ref": "#/components/schemas/NewTicket"}, {
                        "type": "object",
                        "properties": {"id": {"type": "string"},
                                       "status": {"type": "string"}}}],
                },
            },
        },
    }


@dataclass
class TicketService:
    """The running service: its URL, its key, what it received, and failures to inject."""

    base_url: str
    api_key: str
    tickets: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def document_url(self) -> str:
        """Where the service serves its OpenAPI document."""
        return f"{self.base_url}/openapi.json"


def _handler(service: TicketService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def _send(self, status: int, body: Any = None) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            if data:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _handle(self, method: str) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            route = parts.path
            with service.lock:
                service.requests.append({
                    "method": method, "path": route, "query": parse_qs(parts.query),
                    "headers": dict(self.headers.items()), "body": body})
                failures = service.fail.get((method, route))
                if failures:
                    self._send(failures.pop(0), {"message": "injected failure"})
                    return
            if route == "/openapi.json":
                self._send(200, ticket_document(service.base_url))
                return
            if route == "/health":
                self._send(200, {"ok": True})
                return
            if self.headers.get(API_KEY_HEADER) != service.api_key:
                self._send(401, {"message": "missing or wrong API key"})
                return
            segments = [unquote(s) for s in route.strip("/").split("/")]
            with service.lock:
                self._route(method, segments, parse_qs(parts.query), body)

        def _route(self, method: str, segments: list[str], query: dict[str, list[str]],
                   body: Any) -> None:
            tickets = service.tickets
            if segments == ["tickets"] and method == "POST":
                ticket_id = f"T-{len(tickets) + 1:03d}"
                ticket = {"id": ticket_id, "status": "open", "priority": "normal",
                          "tags": [], **(body or {})}
                tickets[ticket_id] = ticket
                self._send(201, ticket)
            elif segments == ["tickets"] and method == "GET":
                text = (query.get("q") or [""])[0].lower()
                status = (query.get("status") or [None])[0]
                limit = int((query.get("limit") or ["50"])[0])
                found = [t for t in tickets.values()
                         if text in t["subject"].lower() and status in (None, t["status"])]
                self._send(200, {"tickets": found[:limit], "count": len(found)})
            elif len(segments) == 2 and segments[0] == "tickets":
                ticket = tickets.get(segments[1])
                if ticket is None:
                    self._send(404, {"message": f"no ticket {segments[1]}"})
                elif method == "GET":
                    self._send(200, ticket)
                elif method == "PUT":
                    ticket.update(body or {})
                    self._send(200, ticket)
                elif method == "DELETE":
                    del tickets[segments[1]]
                    self._send(204)
                else:
                    self._send(405, {"message": "method not allowed"})
            else:
                self._send(404, {"message": "no such route"})

        def do_GET(self) -> None:  # noqa: N802
            self._handle("GET")

        def do_POST(self) -> None:  # noqa: N802
            self._handle("POST")

        def do_PUT(self) -> None:  # noqa: N802
            self._handle("PUT")

        def do_DELETE(self) -> None:  # noqa: N802
            self._handle("DELETE")

    return Handler


@contextmanager
def ticket_service(api_key: str = "tk-live-4f9a2c7e1b") -> Iterator[TicketService]:
    """Serve the ticket service on a free loopback port for the length of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(TicketService("", api_key)))
    host, port = server.server_address[:2]
    service = TicketService(f"http://127.0.0.1:{port}", api_key)
    server.RequestHandlerClass = _handler(service)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
