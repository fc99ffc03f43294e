"""OpenAPI services as a tool source: every operation of a document becomes a catalog tool.

:func:`load_openapi_catalog` reads an OpenAPI 3.0/3.1 or Swagger 2.0 document (a file or a
URL), checks it with ``openapi-spec-validator``, resolves its ``$ref`` with ``referencing``
and adds one tool per operation to a :class:`~stores.catalog.model.Catalog` under one agent
(the service). Each tool gets ONE JSON Schema over its path, query, header, cookie and body
parameters (a JSON object body is flattened to top-level arguments when no name clashes, else
it is one ``body`` argument), and an HTTP binding under ``annotations["zspace_http"]`` that
the executor's HTTP backend (:mod:`stores.execution.http`) follows: method, path, base URL,
where each argument goes, and the credentials the call needs *by reference* (the name of an
environment variable, never its value). GET and HEAD are read-only; every other method has a
side effect; DELETE is also destructive (it waits for a person's approval).

A bad operation (an unresolvable ``$ref``, a parameter without a schema, an operationId used
twice, a body zspace cannot send) is quarantined with the reason and the rest loads.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from stores.catalog.model import (
    DESTRUCTIVE_KEY,
    IDEMPOTENCY_PARAM,
    Catalog,
    CatalogError,
    QuarantinedTool,
)
from stores.catalog.openapi_document import (
    HTTP_METHODS,
    OperationRejected,
    Resolver,
    component_key,
    merged_object,
    read_openapi_document,
    to_json_schema,
    validation_problems,
)

HTTP_BINDING_KEY = "zspace_http"
"""The annotation holding how a tool is called over HTTP (read by the HTTP backend)."""

READ_ONLY_METHODS = frozenset({"get", "head", "options", "trace"})
IDEMPOTENCY_HEADER = "idempotency-key"
_ARG_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
# Headers OpenAPI says to ignore as parameters: the client sets them.
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})


@dataclass
class OpenApiLoadReport:
    """What :func:`load_openapi_catalog` did with one document."""

    source: str
    agent: str
    version: str
    base_url: str
    tools: int = 0
    quarantined: list[QuarantinedTool] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [
            f"OpenAPI {self.version} document {self.source}: agent {self.agent!r}, "
            f"{self.tools} tools, {len(self.quarantined)} quarantined, base URL "
            f"{self.base_url or '(none: give --base-url)'}"
        ]
        lines.extend(f"  quarantined: {entry}" for entry in self.quarantined)
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        lines.extend(f"  credentials: {entry}" for entry in self.credentials)
        return "\n".join(lines)


# ============================================================================ naming
def slugify(text: str, separator: str = "-") -> str:
    """Lower-case ASCII words joined by ``separator`` ("Swagger Petstore" → "swagger-petstore")."""
    words = re.findall(r"[A-Za-z0-9]+", text)
    return separator.join(word.lower() for word in words)[:64].strip(separator)


def operation_tool_name(operation: Mapping[str, Any], method: str, path: str) -> str:
    """The tool's name: the operationId when it is a valid name, else method + path slugified."""
    operation_id = operation.get("operationId")
    if isinstance(operation_id, str) and operation_id.strip():
        if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", operation_id):
            return operation_id
        return slugify(operation_id, "_") or slugify(f"{method} {path}", "_")
    return slugify(f"{method} {path}", "_")


def credential_variable(agent: str, scheme: str) -> str:
    """The default environment variable of a security scheme: ``ZSPACE_SECRET_<AGENT>_<SCHEME>``."""
    return "ZSPACE_SECRET_" + f"{slugify(agent, '_')}_{slugify(scheme, '_')}".upper()


# ============================================================================ ingestion
@dataclass
class _Document:
    raw: dict[str, Any]
    version: str
    swagger: bool
    base_uri: str
    resolver: Resolver
    agent: str
    base_url: str
    schemes: dict[str, dict[str, Any]]
    global_security: Any
    consumes: list[str]
    problems: dict[tuple[str, ...], list[str]]


def load_openapi_catalog(
    spec: str | Mapping[str, Any],
    *,
    catalog: Catalog | None = None,
    agent: str | None = None,
    base_url: str | None = None,
    environment: str | None = None,
    credentials: Mapping[str, str] | None = None,
    source: str | None = None,
) -> tuple[Catalog, OpenApiLoadReport]:
    """Add every operation of an OpenAPI document to a catalog as a tool of one agent.

    Args:
        spec: A file path or http(s) URL of the document, or the parsed document.
        catalog: The catalog to add to (default: a new one).
        agent: The service's agent id (default: the document's ``info.title``, slugified).
        base_url: Where calls go (default: the document's first server, resolved against the
            document's URL).
        environment: The environment tag of every tool (``test``, ``staging``, ``prod``).
        credentials: ``{security scheme name: environment variable}`` overriding the default
            variable :func:`credential_variable` names.
        source: How the report names the document (default: ``spec``).

    Returns:
        The catalog and a report (tools added, quarantined operations with reasons).

    Raises:
        CatalogError: the document cannot be read or is not OpenAPI 3.x / Swagger 2.0.
    """
    if isinstance(spec, Mapping):
        raw, base_uri = copy.deepcopy(dict(spec)), "urn:zspace:openapi"
        where = source or "(document)"
    else:
        raw, base_uri = read_openapi_document(spec)
        where = source or spec
    version = str(raw.get("openapi") or raw.get("swagger") or "")
    swagger = version.startswith("2")
    if not (version.startswith("3.") or version == "2.0"):
        raise CatalogError(
            f"{where} is not an OpenAPI 3.x or Swagger 2.0 document (its 'openapi'/'swagger' "
            f"field is {version or 'missing'})"
        )
    if not isinstance(raw.get("paths"), dict):
        raise CatalogError(f"{where}: the document has no 'paths' object")
    info: dict[str, Any] = raw["info"] if isinstance(raw.get("info"), dict) else {}
    agent_id = agent or slugify(str(info.get("title") or "")) or "openapi"
    problems, general = validation_problems(raw, base_uri)
    components: dict[str, Any] = (
        raw["components"] if isinstance(raw.get("components"), dict) else {}
    )
    schemes = raw.get("securityDefinitions") if swagger else components.get("securitySchemes")
    document = _Document(
        raw=raw, version=version, swagger=swagger, base_uri=base_uri,
        resolver=Resolver(raw, base_uri), agent=agent_id,
        base_url=base_url or _document_base_url(raw, swagger, base_uri),
        schemes=schemes if isinstance(schemes, dict) else {},
        global_security=raw.get("security"),
        consumes=list(raw.get("consumes") or []), problems=problems,
    )
    catalog = catalog if catalog is not None else Catalog()
    report = OpenApiLoadReport(where, agent_id, version, document.base_url, warnings=general)
    if not document.base_url:
        report.warnings.append("the document names no server: give --base-url")
    description = " ".join(
        str(part) for part in (info.get("title"), info.get("description")) if part
    )
    catalog.load_document(
        {"agents": [{"id": agent_id, "name": str(info.get("title") or agent_id),
                     "description": description[:2000], "category": "openapi",
                     "url": document.base_url}]},
        source=f"openapi:{agent_id}",
    )
    credentials = dict(credentials or {})
    unknown = sorted(set(credentials) - set(document.schemes) - {"*"})
    report.warnings.extend(
        f"credentials given for {name!r}, which is not a security scheme of the document"
        for name in unknown
    )
    operations = list(_operations(raw))
    ids: dict[str, list[str]] = {}
    for path, method, operation in operations:
        operation_id = operation.get("operationId")
        if isinstance(operation_id, str):
            ids.setdefault(operation_id, []).append(f"{method.upper()} {path}")
    used_schemes: set[str] = set()
    for path, method, operation in operations:
        label = operation_tool_name(operation, method, path)
        op_source = f"{where} {method.upper()} {path}"
        try:
            duplicates = ids.get(str(operation.get("operationId")), [])
            if len(duplicates) > 1:
                raise OperationRejected(
                    "operationId",
                    f"operationId {operation.get('operationId')!r} is used by "
                    f"{', '.join(duplicates)}; an operationId must be unique",
                )
            raw_tool = _operation_tool(document, path, method, operation, credentials,
                                       used_schemes)
        except OperationRejected as rejected:
            report.quarantined.append(
                QuarantinedTool(op_source, label, rejected.field_name, rejected.reason)
            )
            continue
        if environment is not None:
            raw_tool["environment"] = environment
        before = len(catalog.quarantined)
        if catalog.add_raw_tool(raw_tool, source=op_source) is None:
            report.quarantined.extend(catalog.quarantined[before:])
            del catalog.quarantined[before:]
        else:
            report.tools += 1
    catalog.quarantined.extend(report.quarantined)
    for scheme in sorted(used_schemes):
        variable = credentials.get(scheme) or credentials.get("*") or credential_variable(
            agent_id, scheme)
        report.credentials.append(f"scheme {scheme!r} reads ${variable}")
    return catalog, report


def _operations(raw: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in raw["paths"].items():
        if not isinstance(item, dict):
            continue
        for method in HTTP_METHODS:
            operation = item.get(method)
            if isinstance(operation, dict):
                yield str(path), method, operation


def _document_base_url(raw: Mapping[str, Any], swagger: bool, base_uri: str) -> str:
    document_url = base_uri if base_uri.startswith(("http://", "https://")) else ""
    if swagger:
        host = raw.get("host")
        if not host:
            if not document_url:
                return ""
            parts = urlsplit(document_url)
            host = parts.netloc
            default_scheme = parts.scheme
        else:
            default_scheme = "https"
        schemes = raw.get("schemes") or [default_scheme]
        scheme = "https" if "https" in schemes else str(schemes[0])
        return f"{scheme}://{host}{raw.get('basePath') or ''}".rstrip("/")
    return _server_url(raw.get("servers"), document_url)


def _server_url(servers: Any, document_url: str) -> str:
    if not isinstance(servers, list) or not servers or not isinstance(servers[0], dict):
        return document_url and urljoin(document_url, "/").rstrip("/")
    server = servers[0]
    url = str(server.get("url") or "")
    for name, variable in (server.get("variables") or {}).items():
        if isinstance(variable, dict) and "default" in variable:
            url = url.replace("{" + str(name) + "}", str(variable["default"]))
    if document_url and not urlsplit(url).scheme:
        url = urljoin(document_url, url)
    return url.rstrip("/")


def _operation_tool(
    document: _Document, path: str, method: str, operation: dict[str, Any],
    credentials: Mapping[str, str], used_schemes: set[str],
) -> dict[str, Any]:
    """Build the raw catalog record of one operation, or raise :class:`OperationRejected`."""
    item = document.raw["paths"][path]
    used: set[str] = set()
    resolver, base = document.resolver, document.base_uri
    for key in (("paths", path, method), ("paths", path)):
        for problem in document.problems.get(key, []):
            raise OperationRejected("document", problem)
    parameters = _merged_parameters(
        resolver.deref(item.get("parameters") or [], base, used),
        resolver.deref(operation.get("parameters") or [], base, used),
    )
    request_body = resolver.deref(operation.get("requestBody"), base, used)
    for pointer in sorted(used):
        for problem in document.problems.get(component_key(pointer), []):
            raise OperationRejected("$ref", f"{pointer}: {problem}")

    properties: dict[str, Any] = {}
    required: list[str] = []
    bindings: list[dict[str, str]] = []
    idempotency_header = ""
    body_parameter: dict[str, Any] | None = None
    form_fields: list[dict[str, Any]] = []
    for parameter in parameters:
        location, name = parameter["in"], str(parameter["name"])
        if location == "body":
            body_parameter = parameter
            continue
        if location == "header" and name.lower() in _IGNORED_HEADERS:
            continue
        if location == "formData":
            form_fields.append(parameter)
            continue
        schema = _parameter_schema(parameter, document)
        if location == "header" and name.lower() == IDEMPOTENCY_HEADER:
            idempotency_header = name
            properties[IDEMPOTENCY_PARAM] = {
                **schema, "description": "Idempotency key (sent as the " + name + " header)."}
            continue
        arg = _argument_name(name, location, properties)
        properties[arg] = schema
        if parameter.get("required") is True or location == "path":
            required.append(arg)
        bindings.append({"arg": arg, "name": name, "in": location})

    body: dict[str, Any] | None = None
    if document.swagger:
        consumes = list(operation.get("consumes") or document.consumes or ["application/json"])
        if body_parameter is not None:
            body_schema = _converted(body_parameter.get("schema"), document, "body schema")
            body = _body_binding(body_schema, bool(body_parameter.get("required")),
                                 _json_type(consumes), properties, required)
        elif form_fields:
            form_type = ("multipart/form-data" if "multipart/form-data" in consumes else
                         "application/x-www-form-urlencoded")
            fields: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
            for parameter in form_fields:
                if parameter.get("type") == "file":
                    raise OperationRejected(
                        "parameters", f"form field {parameter['name']!r} is a file upload; "
                        "zspace sends JSON or form values, not files")
                fields["properties"][parameter["name"]] = _parameter_schema(parameter, document)
                if parameter.get("required"):
                    fields["required"].append(parameter["name"])
            body = _body_binding(fields, True, form_type, properties, required)
    elif isinstance(request_body, dict):
        content = request_body.get("content")
        if not isinstance(content, dict) or not content:
            raise OperationRejected("requestBody", "requestBody has no 'content'")
        media = _media_type(list(content))
        if media is None:
            raise OperationRejected(
                "requestBody",
                f"request body only as {', '.join(content)}; zspace sends JSON or form bodies",
            )
        media_object = content[media] if isinstance(content[media], dict) else {}
        if "schema" not in media_object:
            raise OperationRejected("requestBody", f"request body {media!r} has no schema")
        body_schema = _converted(media_object["schema"], document, "request body schema")
        body = _body_binding(body_schema, request_body.get("required") is True, media,
                             properties, required)

    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    alternatives = _security(document, operation, credentials, used_schemes)
    server = _server_url(operation.get("servers") or item.get("servers"),
                         document.base_uri if document.base_uri.startswith("http") else "")
    binding: dict[str, Any] = {
        "method": method.upper(),
        "path": path,
        "base_url": server or document.base_url,
        "parameters": bindings,
        "body": body,
        "auth": alternatives,
    }
    if idempotency_header:
        binding["idempotency_header"] = idempotency_header
    summary = str(operation.get("summary") or "").strip()
    details = str(operation.get("description") or "").strip()
    description = summary if not details or details == summary else (
        f"{summary}. {details}" if summary else details)
    annotations: dict[str, Any] = {HTTP_BINDING_KEY: binding}
    if method == "delete":
        annotations[DESTRUCTIVE_KEY] = True
    if operation.get("deprecated") is True:
        annotations["deprecated"] = True
    tags = [str(tag) for tag in operation.get("tags") or [] if isinstance(tag, str)]
    raw_tool: dict[str, Any] = {
        "name": operation_tool_name(operation, method, path),
        "agent": document.agent,
        "description": description or f"{method.upper()} {path}",
        "input_schema": input_schema,
        "side_effect": method not in READ_ONLY_METHODS,
        "annotations": annotations,
    }
    if tags:
        raw_tool["entity_tags"] = tags
    output = _response_schema(operation, document)
    if output is not None:
        raw_tool["output_schema"] = output
    return raw_tool


def _merged_parameters(path_level: Any, operation_level: Any) -> list[dict[str, Any]]:
    """Path-item parameters overridden by the operation's (same name and location)."""
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for parameters in (path_level, operation_level):
        if not isinstance(parameters, list):
            raise OperationRejected("parameters", "'parameters' must be a list")
        for parameter in parameters:
            if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str) \
                    or parameter.get("in") not in ("path", "query", "header", "cookie", "body",
                                                   "formData"):
                shown = repr(parameter)[:200]
                raise OperationRejected(
                    "parameters", f"a parameter needs a 'name' and a valid 'in': {shown}"
                )
            merged[(parameter["name"], parameter["in"])] = parameter
    return list(merged.values())


def _parameter_schema(parameter: dict[str, Any], document: _Document) -> dict[str, Any]:
    name = parameter["name"]
    if document.swagger:
        if "type" not in parameter:
            raise OperationRejected("parameters", f"parameter {name!r} has no type")
        keys = ("type", "format", "items", "enum", "default", "minimum", "maximum",
                "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
                "minItems", "maxItems", "uniqueItems", "multipleOf")
        schema: Any = {key: parameter[key] for key in keys if key in parameter}
    elif "schema" in parameter:
        schema = parameter["schema"]
    elif isinstance(parameter.get("content"), dict) and parameter["content"]:
        media = next(iter(parameter["content"].values()))
        schema = media.get("schema") if isinstance(media, dict) else None
        if schema is None:
            raise OperationRejected("parameters", f"parameter {name!r} has no schema")
    else:
        raise OperationRejected("parameters", f"parameter {name!r} has no schema")
    converted = _converted(schema, document, f"schema of parameter {name!r}")
    if parameter.get("description") and "description" not in converted:
        converted["description"] = str(parameter["description"])
    return dict(converted)


def _converted(schema: Any, document: _Document, what: str) -> dict[str, Any]:
    if not isinstance(schema, dict):
        raise OperationRejected("schema", f"the {what} is missing or not an object")
    converted = to_json_schema(schema, nullable_keyword=not document.version.startswith("3.1"))
    return converted if isinstance(converted, dict) else {}


def _argument_name(name: str, location: str, taken: Mapping[str, Any]) -> str:
    arg = name if _ARG_NAME.match(name) else (re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:64] or "arg")
    if arg in taken or arg == IDEMPOTENCY_PARAM:
        arg = f"{location}_{arg}"[:64]
    if arg in taken:
        raise OperationRejected("parameters", f"parameter {name!r} ({location}) is declared twice")
    return arg


def _media_type(media_types: list[str]) -> str | None:
    for wanted in (_json_type(media_types), "application/x-www-form-urlencoded",
                   "multipart/form-data"):
        if wanted in media_types:
            return wanted
    return None


def _json_type(media_types: Sequence[str]) -> str:
    for media in media_types:
        base = media.split(";")[0].strip().lower()
        if base == "application/json" or base.endswith("+json") or base == "*/*":
            return media
    return "application/json"


def _body_binding(
    schema: dict[str, Any], body_required: bool, media: str,
    properties: dict[str, Any], required: list[str],
) -> dict[str, Any]:
    """Add the body's arguments to the tool's schema; return how the backend sends them."""
    merged = merged_object(schema)
    if merged is not None and not (set(merged["properties"]) & set(properties)) and all(
        _ARG_NAME.match(name) for name in merged["properties"]
    ):
        properties.update(merged["properties"])
        if body_required:
            required.extend(name for name in merged["required"] if name not in required)
        return {"mode": "flat", "content_type": media, "fields": list(merged["properties"])}
    arg = "body" if "body" not in properties else "request_body"
    properties[arg] = schema
    if body_required:
        required.append(arg)
    return {"mode": "whole", "content_type": media, "arg": arg}


def _response_schema(operation: dict[str, Any], document: _Document) -> dict[str, Any] | None:
    responses = operation.get("responses")
    if not isinstance(responses, dict):
        return None
    for status in ("200", "201", "202", 200, 201, 202):
        response = responses.get(status)  # type: ignore[call-overload]
        if not isinstance(response, dict):
            continue
        try:
            response = document.resolver.deref(response, document.base_uri, set())
        except OperationRejected:
            return None
        if document.swagger:
            schema = response.get("schema")
        else:
            content = response.get("content") or {}
            media = _json_type(list(content)) if content else ""
            schema = (content.get(media) or {}).get("schema") if media in content else None
        if isinstance(schema, dict):
            converted = to_json_schema(schema, nullable_keyword=not document.version.startswith(
                "3.1"), request=False)
            if not isinstance(converted, dict) or converted.get("type", "object") != "object":
                return None
            merged = merged_object(converted)
            if merged is None:
                return converted
            # allOf parts merged: the dependency graph reads the output's properties.
            output = {"type": "object", "properties": merged["properties"]}
            return output | ({"required": merged["required"]} if merged["required"] else {})
    return None


def _security(
    document: _Document, operation: dict[str, Any], credentials: Mapping[str, str],
    used_schemes: set[str],
) -> list[list[dict[str, str]]]:
    """The credential alternatives of an operation (any one list suffices), by reference."""
    requirements = operation.get("security", document.global_security)
    if not isinstance(requirements, list):
        return []
    alternatives: list[list[dict[str, str]]] = []
    for requirement in requirements:
        if not isinstance(requirement, dict):
            continue
        alternative: list[dict[str, str]] | None = []
        for scheme_name in requirement:
            scheme = document.schemes.get(scheme_name)
            if not isinstance(scheme, dict):
                raise OperationRejected(
                    "security", f"security scheme {scheme_name!r} is not defined in the document")
            reference = _credential_reference(scheme_name, scheme, document, credentials)
            if reference is None:
                alternative = None
                break
            assert alternative is not None
            alternative.append(reference)
            used_schemes.add(scheme_name)
        if alternative is not None:
            alternatives.append(alternative)
    return alternatives


def _credential_reference(
    scheme_name: str, scheme: dict[str, Any], document: _Document, credentials: Mapping[str, str]
) -> dict[str, str] | None:
    variable = credentials.get(scheme_name) or credentials.get("*") or credential_variable(
        document.agent, scheme_name)
    kind = str(scheme.get("type") or "")
    if kind == "apiKey" and scheme.get("in") in ("header", "query", "cookie"):
        return {"scheme": scheme_name, "type": "apiKey", "in": str(scheme["in"]),
                "name": str(scheme.get("name") or scheme_name), "env": variable}
    if kind == "basic" or (kind == "http" and str(scheme.get("scheme")).lower() == "basic"):
        return {"scheme": scheme_name, "type": "basic", "env": variable}
    if kind in ("oauth2", "openIdConnect") or (
        kind == "http" and str(scheme.get("scheme")).lower() == "bearer"
    ):
        return {"scheme": scheme_name, "type": "bearer", "env": variable}
    return None
