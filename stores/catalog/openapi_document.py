"""OpenAPI documents: reading, ``$ref`` resolution, validation and schema conversion.

The document half of OpenAPI ingestion (:mod:`stores.catalog.openapi` turns operations into
tools): :func:`read_openapi_document` reads a file or URL (JSON or YAML); :class:`Resolver`
follows ``$ref`` with ``referencing`` (into the document, or files and URLs it names) and cuts
cycles; :func:`validation_problems` runs ``openapi-spec-validator`` and files each problem
under the operation or component it is in, so only the operations it touches are quarantined;
:func:`to_json_schema` turns OpenAPI 2.0/3.0 schema objects into plain JSON Schema.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import yaml

from stores.catalog.model import CatalogError

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# OpenAPI-only schema keywords that JSON Schema does not know.
_OPENAPI_ONLY = frozenset({"nullable", "discriminator", "xml", "externalDocs", "example"})
_MAX_DEPTH = 40


class OperationRejected(Exception):
    """One operation cannot become a tool; the message says why."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(reason)
        self.field_name = field_name
        self.reason = reason




# ============================================================================ reading
def read_openapi_document(spec: str) -> tuple[dict[str, Any], str]:
    """Read an OpenAPI document from a file path or an http(s) URL.

    Returns:
        The parsed document and its base URI (for relative ``$ref`` and server URLs).

    Raises:
        CatalogError: it cannot be read, or it is neither JSON nor YAML mapping.
    """
    if urlsplit(spec).scheme in ("http", "https"):
        text = fetch_text(spec)
        base = spec
    else:
        path = Path(spec)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"cannot read OpenAPI document {spec}: {exc}") from exc
        base = path.resolve().as_uri()
    document = parse_text(text, spec)
    return document, base


def fetch_text(url: str) -> str:
    """Fetch a document over HTTP (only when the user gave a URL).

    Raises:
        CatalogError: the fetch failed.
    """
    import httpx

    try:
        response = httpx.get(url, timeout=30.0, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise CatalogError(f"cannot fetch OpenAPI document {url}: {exc}") from exc
    return response.text


def parse_text(text: str, where: str) -> dict[str, Any]:
    """Parse JSON, else YAML, into an object.

    Raises:
        CatalogError: neither, or not an object at the top level.
    """
    try:
        document = json.loads(text)
    except ValueError:
        try:
            document = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            raise CatalogError(f"{where} is neither JSON nor YAML: {exc}") from exc
    if not isinstance(document, dict):
        raise CatalogError(f"{where}: an OpenAPI document is an object at the top level")
    return document


# ============================================================================ $ref resolution
class Resolver:
    """Resolves ``$ref`` against the document (and files/URLs it names) with ``referencing``."""

    def __init__(self, document: dict[str, Any], base_uri: str) -> None:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self.base_uri = base_uri
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        registry: Any = Registry(retrieve=self._retrieve)  # type: ignore[call-arg]
        self.registry: Any = registry.with_resource(base_uri, resource)

    def _retrieve(self, uri: str) -> Any:
        from referencing import Resource
        from referencing.jsonschema import DRAFT202012

        if uri.startswith("file://"):
            text = Path(urlsplit(uri).path).read_text(encoding="utf-8")
        elif uri.startswith(("http://", "https://")):
            text = fetch_text(uri)
        else:
            raise OSError(f"cannot retrieve {uri!r}")
        return Resource.from_contents(parse_text(text, uri), default_specification=DRAFT202012)

    def lookup(self, base: str, ref: str) -> tuple[Any, str]:
        """Return what ``ref`` points to (seen from ``base``) and its absolute URI."""
        from referencing.exceptions import Unresolvable

        absolute = urljoin(base, ref)
        try:
            resolved = self.registry.resolver(base_uri=base).lookup(ref)
        except (Unresolvable, OSError, CatalogError) as exc:
            raise OperationRejected("$ref", f"$ref {ref!r} cannot be resolved: {exc}") from exc
        return resolved.contents, absolute

    def pointer_name(self, absolute: str) -> str:
        """``#/components/schemas/Pet`` for a ref into the document itself, else the URI."""
        document, fragment = urldefrag(absolute)
        return f"#{fragment}" if document == urldefrag(self.base_uri)[0] else absolute

    def deref(self, node: Any, base: str, used: set[str], stack: tuple[str, ...] = ()) -> Any:
        """Return ``node`` with every ``$ref`` replaced by its target (cycles cut).

        ``used`` collects the pointers followed, so problems found in a component can be
        charged to the operations that use it.
        """
        if len(stack) > _MAX_DEPTH:
            return {}
        if isinstance(node, list):
            return [self.deref(item, base, used, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            target, absolute = self.lookup(base, ref)
            name = self.pointer_name(absolute)
            used.add(name)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            if absolute in stack:
                # A recursive schema: one level is described, deeper levels are any object.
                return {"type": "object", "description": f"(recursive {name.rsplit('/', 1)[-1]})"}
            resolved = self.deref(target, urldefrag(absolute)[0] or base, used, (*stack, absolute))
            if isinstance(resolved, dict) and siblings:
                return {**resolved, **self.deref(siblings, base, used, stack)}
            return resolved
        return {key: self.deref(value, base, used, stack) for key, value in node.items()}


# ============================================================================ validation
def validation_problems(
    document: dict[str, Any], base_uri: str
) -> tuple[dict[tuple[str, ...], list[str]], list[str]]:
    """Validate the document; return problems keyed by location, and document-wide ones.

    Unresolvable ``$ref`` make the validator stop, so they are found first by a walk and
    replaced (in a copy) by empty schemas; every other problem comes from the validator.
    """
    from openapi_spec_validator.shortcuts import get_validator_cls

    resolver = Resolver(document, base_uri)
    problems: dict[tuple[str, ...], list[str]] = {}
    checked = copy.deepcopy(document)
    for location, ref in list(_refs(checked, ())):
        try:
            resolver.lookup(base_uri, ref)
        except OperationRejected as rejected:
            problems.setdefault(_problem_key(location), []).append(rejected.reason)
            _replace_at(checked, location, {})
    general: list[str] = []
    try:
        validator = get_validator_cls(checked)(checked, base_uri=base_uri)
        errors = list(validator.iter_errors())
    except Exception as exc:  # noqa: BLE001 - a validator crash must not stop ingestion
        general.append(f"the document could not be fully validated: {type(exc).__name__}: {exc}")
        return problems, general
    for error in errors:
        location = tuple(str(part) for part in getattr(error, "path", ()) or ())
        message = str(getattr(error, "message", error)).splitlines()[0][:300]
        where = "/".join(location) or "(root)"
        key = _problem_key(location)
        if key:
            problems.setdefault(key, []).append(f"{message} (at {where})")
        else:
            general.append(f"{message} (at {where})")
    return problems, general


def _refs(node: Any, location: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield location, ref
        for key, value in node.items():
            if key != "$ref":
                yield from _refs(value, (*location, str(key)))
    elif isinstance(node, list):
        for position, item in enumerate(node):
            yield from _refs(item, (*location, str(position)))


def _replace_at(document: Any, location: tuple[str, ...], value: Any) -> None:
    node = document
    for part in location[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if not location:
        return
    last = location[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


def _problem_key(location: Sequence[str]) -> tuple[str, ...]:
    """The operation (``paths/p/m``), path item (``paths/p``) or component a problem is in."""
    if len(location) >= 3 and location[0] == "paths" and location[2] in HTTP_METHODS:
        return tuple(location[:3])
    if len(location) >= 2 and location[0] == "paths":
        return tuple(location[:2])
    if len(location) >= 3 and location[0] == "components":
        return tuple(location[:3])
    if len(location) >= 2 and location[0] in ("definitions", "parameters", "responses"):
        return tuple(location[:2])
    return ()


def component_key(pointer: str) -> tuple[str, ...]:
    """The problem key of a ``#/components/...`` pointer (see :func:`validation_problems`)."""
    parts = tuple(part.replace("~1", "/").replace("~0", "~") for part in
                  pointer.lstrip("#").strip("/").split("/"))
    return _problem_key(parts)


# ============================================================================ schemas
def to_json_schema(schema: Any, *, nullable_keyword: bool, request: bool = True) -> Any:
    """Turn an OpenAPI (2.0/3.0) schema object into plain JSON Schema.

    ``nullable`` becomes a ``"null"`` type, ``example`` becomes ``examples``, OpenAPI-only
    keywords are dropped, Swagger's ``file`` type becomes a binary string, and in a request
    the ``readOnly`` properties (which a client never sends) are removed.
    """
    if isinstance(schema, list):
        return [to_json_schema(item, nullable_keyword=nullable_keyword, request=request)
                for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _OPENAPI_ONLY or key.startswith("x-"):
            continue
        if key == "properties" and isinstance(value, dict):
            converted[key] = {
                name: to_json_schema(sub, nullable_keyword=nullable_keyword, request=request)
                for name, sub in value.items()
                if not (request and isinstance(sub, dict) and sub.get("readOnly") is True)
            }
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            converted[key] = to_json_schema(value, nullable_keyword=nullable_keyword,
                                            request=request)
        else:
            converted[key] = value
    if converted.get("type") == "file":
        converted["type"], converted["format"] = "string", "binary"
    if "example" in schema and "examples" not in converted:
        converted["examples"] = [schema["example"]]
    if nullable_keyword and schema.get("nullable") is True and isinstance(converted.get("type"),
                                                                          str):
        converted["type"] = [converted["type"], "null"]
    if isinstance(converted.get("required"), list) and isinstance(converted.get("properties"),
                                                                   dict):
        kept = [name for name in converted["required"] if name in converted["properties"]]
        if kept:
            converted["required"] = kept
        else:
            converted.pop("required")
    return converted


def merged_object(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The schema as one object with properties (``allOf`` of objects merged), or None."""
    parts = [schema]
    if isinstance(schema.get("allOf"), list) and all(isinstance(p, dict) for p in schema["allOf"]):
        parts = [{k: v for k, v in schema.items() if k != "allOf"}, *schema["allOf"]]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in parts:
        if part.get("type", "object") != "object" or any(
            key in part for key in ("oneOf", "anyOf", "allOf")
        ) and part is not schema:
            return None
        properties.update(part.get("properties") or {})
        required.extend(r for r in part.get("required") or [] if r not in required)
    if not properties:
        return None
    return {"properties": properties, "required": required}
