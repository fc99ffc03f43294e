"""The HTTP backend: calls the catalog's OpenAPI tools as HTTP requests (httpx).

A tool ingested from an OpenAPI document carries its HTTP binding in
``annotations["zspace_http"]`` (:mod:`stores.catalog.openapi`): method, path, base URL, where
each argument goes and which credentials the call needs, by reference. :class:`HttpBackend`
builds the request from the validated arguments (path parameters substituted and URL-encoded,
query, headers, cookies, a JSON or form body), adds the credentials read from the environment
at call time (registered as secrets, so they are scrubbed from every output and error, and
never enter the catalog, state or logs), sends the idempotency key as the header the operation
declares, and turns the response into data (JSON parsed, text kept, size-capped). An HTTP
error status becomes a :class:`HttpStatusError` carrying the status (the executor classifies
4xx as permanent, 5xx as transient); only idempotent methods are retried by the executor.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

from stores.catalog.model import ToolSpec
from stores.catalog.openapi import HTTP_BINDING_KEY
from stores.errors import ToolNotImplemented
from stores.secrets import SECRETS

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"})
"""Methods RFC 9110 defines as idempotent: repeating them has the effect of doing them once."""
MAX_RESPONSE_BYTES = 4_000_000


class HttpStatusError(Exception):
    """The service answered with an error status; ``status_code`` drives the retry decision."""

    def __init__(self, status_code: int, method: str, path: str, message: str) -> None:
        super().__init__(f"HTTP {status_code} from {method} {path}: {message}")
        self.status_code = status_code


class MissingCredentials(PermissionError):
    """None of the credential alternatives of an operation is configured."""


def http_binding(spec: ToolSpec) -> dict[str, Any] | None:
    """The tool's HTTP binding, or None when it is not an HTTP tool."""
    binding = spec.annotations.get(HTTP_BINDING_KEY)
    return binding if isinstance(binding, dict) else None


class HttpBackend:
    """Runs catalog tools that carry an HTTP binding (implements ``ToolBackend``)."""

    def __init__(
        self,
        *,
        timeout_s: float = 30.0,
        environ: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Configure the backend.

        Args:
            timeout_s: Connect/read time-out of one request (the executor's deadline also holds).
            environ: Where credentials are read from (default: the process environment).
            transport: An httpx transport (tests); default: the network.
        """
        self.timeout_s = timeout_s
        self._environ = environ
        self._transport = transport

    def retry_safe(self, spec: ToolSpec) -> bool:
        """Whether repeating the call cannot double its effect (an idempotent method)."""
        binding = http_binding(spec)
        return binding is not None and str(binding.get("method")).upper() in IDEMPOTENT_METHODS

    async def call(
        self, spec: ToolSpec, args: dict[str, Any], idempotency_key: str | None
    ) -> Any:
        """Send the request and return the response body as data.

        Raises:
            ToolNotImplemented: the tool has no HTTP binding or no base URL.
            MissingCredentials: the operation needs credentials that are not configured.
            HttpStatusError: the service answered 4xx/5xx.
            ConnectionRefusedError / ConnectionError / TimeoutError: transport failures.
        """
        binding = http_binding(spec)
        if binding is None:
            raise ToolNotImplemented(f"tool {spec.id!r} has no HTTP binding")
        base_url = str(binding.get("base_url") or "")
        if not base_url:
            raise ToolNotImplemented(
                f"tool {spec.id!r}: its OpenAPI document names no server; re-index it with "
                "`zspace index --openapi SPEC --base-url URL`"
            )
        method = str(binding["method"]).upper()
        path = str(binding["path"])
        query: list[tuple[str, str | int | float | bool | None]] = []
        headers: dict[str, str] = {}
        cookies: dict[str, str] = {}
        for parameter in binding.get("parameters") or []:
            arg, name, location = parameter["arg"], parameter["name"], parameter["in"]
            if arg not in args or args[arg] is None:
                continue
            value = args[arg]
            if location == "path":
                path = path.replace("{" + name + "}", quote(_text(value), safe=""))
            elif location == "query":
                values = value if isinstance(value, list) else [value]
                query.extend((name, _text(item)) for item in values)
            elif location == "header":
                headers[name] = _text(value)
            elif location == "cookie":
                cookies[name] = _text(value)
        if idempotency_key is not None and binding.get("idempotency_header"):
            headers[str(binding["idempotency_header"])] = idempotency_key
        self._add_credentials(spec, binding, headers, query, cookies)
        content: dict[str, Any] = {}
        body = binding.get("body")
        if isinstance(body, dict):
            if body.get("mode") == "flat":
                payload: Any = {name: args[name] for name in body.get("fields") or []
                                if name in args}
                send = bool(payload) or method not in ("GET", "HEAD", "DELETE")
            else:
                payload = args.get(str(body.get("arg")))
                send = payload is not None
            if send:
                media = str(body.get("content_type") or "application/json")
                if "json" in media or media == "*/*":
                    content["content"] = json.dumps(payload, ensure_ascii=False).encode("utf-8")
                    headers["Content-Type"] = (
                        media if media != "*/*" else "application/json")
                else:
                    content["data"] = {k: _text(v) for k, v in (payload or {}).items()}
        headers.setdefault("Accept", "application/json, text/plain;q=0.9, */*;q=0.5")
        url = base_url.rstrip("/") + "/" + path.lstrip("/")
        try:
            async with httpx.AsyncClient(
                timeout=self.timeout_s, transport=self._transport, cookies=cookies or None
            ) as client:
                request = client.build_request(method, url, params=query, headers=headers,
                                               **content)
                response = await client.send(request, stream=True)
                try:
                    raw, truncated = await _read_capped(response)
                finally:
                    await response.aclose()
        except httpx.ConnectError as exc:
            raise ConnectionRefusedError(
                f"cannot connect to {base_url} for {method} {binding['path']}: {exc}"
            ) from exc
        except httpx.TimeoutException as exc:
            raise TimeoutError(
                f"{method} {binding['path']} did not answer within {self.timeout_s:g} s"
            ) from exc
        except httpx.TransportError as exc:
            raise ConnectionError(f"{method} {binding['path']} failed: {exc}") from exc
        data = _decode(raw, response.headers.get("content-type", ""))
        if response.status_code >= 400:
            raise HttpStatusError(response.status_code, method, str(binding["path"]),
                                  _error_message(data, response.reason_phrase))
        if truncated:
            text = data if isinstance(data, str) else json.dumps(data)
            return {"status": response.status_code, "truncated": True, "text": text}
        if data in ("", None):
            return {"status": response.status_code}
        return data

    def _add_credentials(
        self, spec: ToolSpec, binding: Mapping[str, Any], headers: dict[str, str],
        query: list[tuple[str, str | int | float | bool | None]], cookies: dict[str, str],
    ) -> None:
        alternatives = binding.get("auth") or []
        if not alternatives:
            return
        environ = os.environ if self._environ is None else self._environ
        missing: list[str] = []
        for alternative in alternatives:
            values = {ref["env"]: environ.get(ref["env"], "") for ref in alternative}
            absent = [name for name, value in values.items() if not value]
            if absent:
                missing.extend(name for name in absent if name not in missing)
                continue
            for ref in alternative:
                value = values[ref["env"]]
                SECRETS.add(value)
                if ref["type"] == "bearer":
                    headers["Authorization"] = f"Bearer {value}"
                elif ref["type"] == "basic":
                    token = base64.b64encode(value.encode("utf-8")).decode("ascii")
                    SECRETS.add(token)
                    headers["Authorization"] = f"Basic {token}"
                elif ref["in"] == "header":
                    headers[ref["name"]] = value
                elif ref["in"] == "query":
                    query.append((ref["name"], value))
                else:
                    cookies[ref["name"]] = value
            return
        raise MissingCredentials(
            f"tool {spec.id!r} needs credentials: set the environment variable "
            f"{' or '.join(missing)} (the security scheme's value; it is read at call time "
            "and never stored)"
        )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


async def _read_capped(response: httpx.Response) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            return b"".join(chunks)[:MAX_RESPONSE_BYTES], True
    return b"".join(chunks), False


def _decode(raw: bytes, content_type: str) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if "json" in content_type.lower() or text[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _error_message(data: Any, reason: str) -> str:
    if isinstance(data, dict):
        for key in ("message", "detail", "error", "title", "error_description"):
            if data.get(key):
                value = data[key]
                return (value if isinstance(value, str) else json.dumps(value))[:1000]
        return json.dumps(data)[:1000]
    text = str(data or "").strip()
    return text[:1000] or reason or "(no message)"
