"""The tool catalog: Z-Space's tool model, loaders, validation and quarantine.

A catalog holds tools and their owner agents (MCP servers, services). Each tool is validated
on its own: a bad one is quarantined with a reason naming the source, the tool and the field,
and the rest loads. Nothing is ever silently overwritten: tools with the same name under other
agents stay distinct by their qualified id, and a repeated id is quarantined.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from stores.catalog.records import FileRecords, ScannedCatalog, scan_catalog_text
from stores.settings import ENVIRONMENTS, Environment

CALL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_INDEXED_DESCRIPTION_CHARS = 2000
MAX_SCHEMA_CHARS = 20000
# Control characters other than tab/newline, and bidirectional overrides used to hide text.
_UNSAFE_CHARS = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069\u200e\u200f]"
)


# The annotation under which a tool's definition hash is pinned when it is indexed.
DEFINITION_HASH_KEY = "zspace_definition_hash"
# The annotation by which a tool's source declares it destructive (an OpenAPI DELETE): it then
# needs approval whatever its name; set by our own ingestion, it can only add approvals.
DESTRUCTIVE_KEY = "zspace_destructive"
# The parameter through which a tool that declares it receives the call's idempotency key.
IDEMPOTENCY_PARAM = "idempotency_key"


class CatalogError(ValueError):
    """A catalog file that cannot be read at all (not one bad tool: those are quarantined)."""


class ToolSpec(BaseModel):
    """One tool, as Z-Space models it.

    Pydantic lives at this boundary only; state and checkpoints get ``model_dump()`` output.
    """

    model_config = ConfigDict(extra="ignore", frozen=False)

    id: str = Field(description="Qualified id '<agent>/<name>'.")
    name: str
    description: str = ""
    agent: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    environment: Environment | None = None
    side_effect: bool | None = None
    summary: str | None = None
    entity_tags: list[str] = Field(default_factory=list)
    capability_tags: list[str] = Field(default_factory=list)
    call_name: str = ""
    source: str = ""
    flags: list[str] = Field(default_factory=list)
    annotations: dict[str, Any] = Field(default_factory=dict)
    # Hashes known without computing them (read back from the catalog store). Keys: "content"
    # (content_hash), "digest" (the store's row digest), "raw" (the raw record's key, see
    # raw_tool_key), "enriched" (the enrichment fingerprint it was saved under: offline
    # enrichment leaves it as it is). Assigning a field forgets "content" and "digest".
    _known: dict[str, str] = PrivateAttr(default_factory=dict)

    def __setattr__(self, name: str, value: Any) -> None:
        """Assign a field, forgetting the known hashes (they described the old value).

        The call name is given by the catalog the tool joins and is in none of the hashes.
        """
        if not name.startswith("_") and name != "call_name" and self.__pydantic_private__:
            # The raw key stays: it names the record the tool was read from, and what was
            # done to it since (enrichment) is named by the store's fingerprint.
            self._known = {k: v for k, v in self._known.items() if k in ("raw", "enriched")}
        super().__setattr__(name, value)

    def remember(self, **hashes: str) -> None:
        """Record hashes of this exact tool (``content``, ``digest``, ``raw``, ``enriched``)."""
        # A new dict, never an update: copies of a tool share the dict they were made with.
        self._known = {**self._known, **hashes}

    def known(self, kind: str) -> str | None:
        """A recorded hash of this tool, or None (see :meth:`remember`)."""
        return self._known.get(kind)

    def indexed_description(self) -> str:
        """Return the description as indexed: capped at ``MAX_INDEXED_DESCRIPTION_CHARS``."""
        return self.description[:MAX_INDEXED_DESCRIPTION_CHARS]

    def accepts_idempotency_key(self) -> bool:
        """Return whether the tool's schema has an ``idempotency_key`` parameter."""
        return IDEMPOTENCY_PARAM in (self.input_schema.get("properties") or {})

    def content_hash(self) -> str:
        """Return a hash of everything that is indexed or shown to a model for this tool."""
        known = self._known.get("content")
        if known is not None:
            return known
        indexed = {
            "id": self.id,
            "name": self.name,
            "description": self.indexed_description(),
            "agent": self.agent,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
            "environment": self.environment,
            "side_effect": self.side_effect,
            "summary": self.summary,
            "entity_tags": self.entity_tags,
            "capability_tags": self.capability_tags,
        }
        return _stable_hash(indexed)


class AgentSpec(BaseModel):
    """A tool's owner: an MCP server, an OpenAPI service, a RapidAPI provider."""

    model_config = ConfigDict(extra="ignore")

    id: str
    name: str = ""
    description: str = ""
    category: str = ""
    url: str = ""

    def content_hash(self) -> str:
        """Return a hash of the indexed fields."""
        return _stable_hash(
            {"id": self.id, "name": self.name, "description": self.description[:2000]}
        )


@dataclass(frozen=True)
class QuarantinedTool:
    """A tool that was not loaded, and why."""

    source: str
    tool: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: tool {self.tool!r}, field {self.field!r}: {self.reason}"


class _Rejected(Exception):
    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(reason)
        self.field_name = field_name
        self.reason = reason


@dataclass
class Catalog:
    """Tools by qualified id, agents by id, quarantined entries, and Python implementations."""

    tools: dict[str, ToolSpec] = field(default_factory=dict)
    agents: dict[str, AgentSpec] = field(default_factory=dict)
    quarantined: list[QuarantinedTool] = field(default_factory=list)
    implementations: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # The record keys of each JSON file loaded with ``reuse``, by resolved path.
    file_records: dict[str, FileRecords] = field(default_factory=dict)
    _call_names: dict[str, str] = field(default_factory=dict)

    # ----------------------------------------------------------------- loading
    @classmethod
    def from_file(cls, path: str | Path) -> Catalog:
        """Load a catalog file (JSON, or YAML for ``.yaml``/``.yml``)."""
        catalog = cls()
        catalog.load_file(path)
        return catalog

    def load_file(self, path: str | Path, reuse: Mapping[str, ToolSpec] | None = None) -> None:
        """Add every tool and agent of a catalog file; bad tools are quarantined.

        ``reuse`` maps raw keys (:func:`raw_tool_key`) to tools already validated and
        enriched from exactly that record: those are taken as they are.

        Raises:
            CatalogError: the file is missing or is not a catalog at all.
        """
        path = Path(path)
        try:
            raw_bytes = path.read_bytes()
        except OSError as exc:
            raise CatalogError(f"cannot read catalog {path}: {exc.strerror}") from exc
        # Undecodable bytes are kept as surrogates so only the tools containing them fail.
        text = raw_bytes.decode("utf-8", errors="surrogateescape")
        scanned = None if reuse is None else read_scanned_text(path, text)
        if scanned is not None:
            # Each record's key is a hash of its own text: nothing is serialized again.
            keys = scanned.tool_keys()
            self.load_document(
                scanned.document, source=str(path), text=text, reuse=reuse, keys=keys
            )
            self.file_records[str(path.resolve())] = scanned.file_records(keys)
            return
        try:
            if path.suffix.lower() in {".yaml", ".yml"}:
                document = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            else:
                document = json.loads(text)
        except (json.JSONDecodeError, yaml.YAMLError) as exc:
            raise CatalogError(f"{path} is not valid {_format_name(path)}: {exc}") from exc
        if not isinstance(document, dict) or not isinstance(document.get("tools", []), list):
            raise CatalogError(
                f"{path}: a catalog is an object with a 'tools' list and an optional 'agents' "
                "list (see FORMAT.md)"
            )
        self.load_document(document, source=str(path), text=text, reuse=reuse)

    def load_document(
        self,
        document: Mapping[str, Any],
        source: str,
        text: str | None = None,
        reuse: Mapping[str, ToolSpec] | None = None,
        keys: Sequence[str] | None = None,
    ) -> None:
        """Add the agents and tools of an already parsed catalog document.

        With ``reuse`` (see :meth:`load_file`) every tool gets its raw key (``keys``, one per
        tool record, when the caller has them: see ``stores.catalog.records``), and a tool
        whose key is there is added without being validated again.
        """
        for position, raw_agent in enumerate(document.get("agents") or []):
            self._add_raw_agent(raw_agent, source, position)
        for position, raw_tool in enumerate(document.get("tools") or []):
            tool_source = f"{source} tools[{position}]"
            key: str | None = None
            if reuse is not None:
                key = keys[position] if keys is not None else raw_tool_key(raw_tool)
            if key is not None and reuse is not None and key in reuse:
                self.add_tool(_relocated(reuse[key], tool_source))
                continue
            before = len(self.quarantined)
            added = self.add_raw_tool(raw_tool, source=tool_source)
            if added is not None and key is not None:
                added.remember(raw=key)
            if len(self.quarantined) > before:
                # Finding the line is a text scan: done only for the tools that failed.
                located = _locate(source, position, raw_tool, text)
                self.quarantined[-1] = dataclasses.replace(self.quarantined[-1], source=located)

    def _add_raw_agent(self, raw: Any, source: str, position: int) -> None:
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
            self.quarantined.append(
                QuarantinedTool(f"{source} agents[{position}]", "?", "id", "agent has no id")
            )
            return
        agent = AgentSpec.model_validate({k: _clean_text(v) for k, v in raw.items()})
        if not agent.name:
            agent.name = agent.id
        self.agents.setdefault(agent.id, agent)

    def add_raw_tool(self, raw: Any, source: str) -> ToolSpec | None:
        """Validate one raw tool record and add it; quarantine it on failure.

        Returns:
            The added tool, or None when it was quarantined.
        """
        label = _tool_label(raw)
        try:
            spec = _validate_tool(raw, source)
        except _Rejected as rejected:
            self.quarantined.append(
                QuarantinedTool(source, label, rejected.field_name, rejected.reason)
            )
            return None
        return self.add_tool(spec)

    def add_tool(self, spec: ToolSpec) -> ToolSpec | None:
        """Add a validated tool; a repeated id is quarantined, never overwritten."""
        if spec.id in self.tools:
            first = self.tools[spec.id].source
            self.quarantined.append(
                QuarantinedTool(
                    spec.source,
                    spec.id,
                    "id",
                    f"duplicate id: already defined by {first}; rename it or qualify it by agent",
                )
            )
            return None
        spec.call_name = self._unique_call_name(spec.id)
        self.tools[spec.id] = spec
        if spec.agent not in self.agents:
            self.agents[spec.agent] = AgentSpec(id=spec.agent, name=spec.agent)
        return spec

    def _unique_call_name(self, tool_id: str) -> str:
        name = call_name_for(tool_id)
        if name in self._call_names and self._call_names[name] != tool_id:
            digest = hashlib.sha1(tool_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            name = f"{name[:55]}_{digest}"
        self._call_names[name] = tool_id
        return name

    # ------------------------------------------------------------- Python API
    def register_function(
        self,
        function: Callable[..., Any],
        *,
        agent: str = "python",
        name: str | None = None,
        description: str | None = None,
        environment: Environment | None = None,
        side_effect: bool | None = None,
        entity_tags: Iterable[str] = (),
        capability_tags: Iterable[str] = (),
        output_schema: dict[str, Any] | None = None,
    ) -> ToolSpec:
        """Register a plain Python function (sync or async) as a tool.

        The input schema comes from the signature and type hints; the description from the
        docstring unless given.

        Raises:
            CatalogError: the function cannot be described as a tool, or its id is taken.
        """
        from langchain_core.tools import StructuredTool

        try:
            if inspect.iscoroutinefunction(function):
                lc_tool = StructuredTool.from_function(
                    coroutine=function, name=name or function.__name__, description=description
                )
            else:
                lc_tool = StructuredTool.from_function(
                    function, name=name or function.__name__, description=description
                )
        except (ValueError, TypeError) as exc:
            raise CatalogError(f"cannot register {function!r} as a tool: {exc}") from exc
        if output_schema is None:
            output_schema = _return_schema(function)
        spec = self.register_langchain_tool(
            lc_tool,
            agent=agent,
            environment=environment,
            side_effect=side_effect,
            entity_tags=entity_tags,
            capability_tags=capability_tags,
            output_schema=output_schema,
        )
        self.implementations[spec.id] = function
        return spec

    def register_langchain_tool(
        self,
        tool: Any,
        *,
        agent: str = "langchain",
        environment: Environment | None = None,
        side_effect: bool | None = None,
        entity_tags: Iterable[str] = (),
        capability_tags: Iterable[str] = (),
        output_schema: dict[str, Any] | None = None,
    ) -> ToolSpec:
        """Register a LangChain ``BaseTool``; it is invoked through its own ``ainvoke``.

        Raises:
            CatalogError: the tool is invalid or its id is already taken.
        """
        from langchain_core.utils.function_calling import convert_to_openai_tool

        parameters = convert_to_openai_tool(tool)["function"].get("parameters") or {}
        raw = {
            "name": tool.name,
            "agent": agent,
            "description": tool.description or "",
            "input_schema": parameters or {"type": "object", "properties": {}},
            "output_schema": output_schema,
            "environment": environment,
            "side_effect": side_effect,
            "entity_tags": list(entity_tags),
            "capability_tags": list(capability_tags),
        }
        before = len(self.quarantined)
        spec = self.add_raw_tool(raw, source=f"python:{agent}")
        if spec is None:
            raise CatalogError(str(self.quarantined[before]))
        self.implementations.setdefault(spec.id, tool)
        return spec

    # ---------------------------------------------------------------- queries
    def tool_by_call_name(self, call_name: str) -> ToolSpec:
        """Map a model-facing call name back to its tool.

        Raises:
            KeyError: no tool has that call name.
        """
        return self.tools[self._call_names[call_name]]

    def merge(self, other: Catalog) -> None:
        """Add another catalog's agents and tools (repeated ids are quarantined)."""
        for agent in other.agents.values():
            self.agents.setdefault(agent.id, agent)
        for spec in other.tools.values():
            added = self.add_tool(spec.model_copy())
            if added is not None and spec.id in other.implementations:
                self.implementations[spec.id] = other.implementations[spec.id]
        self.quarantined.extend(other.quarantined)

    def to_document(self) -> dict[str, Any]:
        """Return the catalog in the FORMAT.md shape (plus zspace's optional fields)."""
        return {
            "agents": [agent.model_dump() for agent in self.agents.values()],
            "tools": [
                spec.model_dump(exclude={"call_name", "source", "flags"}, exclude_none=True)
                for spec in self.tools.values()
            ],
        }


def _return_schema(function: Callable[..., Any]) -> dict[str, Any] | None:
    """An output schema from a TypedDict or pydantic return annotation, when there is one."""
    import typing

    from pydantic import TypeAdapter

    try:
        annotation = typing.get_type_hints(function).get("return")
    except (NameError, TypeError):
        return None
    if annotation is None or not (
        typing.is_typeddict(annotation)
        or (isinstance(annotation, type) and issubclass(annotation, BaseModel))
    ):
        return None
    if typing.is_typeddict(annotation):
        # Built field by field: pydantic refuses typing.TypedDict on Python < 3.12.
        hints = typing.get_type_hints(annotation)
        return {
            "type": "object",
            "properties": {name: TypeAdapter(hint).json_schema() for name, hint in hints.items()},
            "required": sorted(getattr(annotation, "__required_keys__", hints)),
        }
    schema: dict[str, Any] = TypeAdapter(annotation).json_schema()
    return schema


def raw_tool_key(raw: Any) -> str | None:
    """A key of one parsed raw tool record; None when it cannot be hashed.

    Records read from a file are keyed by their text instead (``stores.catalog.records``).
    Neither key depends on where the record is: a renamed or copied file's records are
    reused as they are.
    """
    try:
        return _stable_hash({"raw": raw})
    except (TypeError, ValueError, UnicodeEncodeError):
        return None


def _relocated(reused: ToolSpec, source: str) -> ToolSpec:
    """A copy of a reused tool read at ``source`` (its file or position may have changed)."""
    copy = reused.model_copy()
    if copy.source != source:
        content = copy.content_hash()
        copy.source = source  # forgets the store's row digest: the row is written again
        copy.remember(content=content)  # the source is not indexed
    return copy


def read_scanned_text(path: Path, text: str) -> ScannedCatalog | None:
    """The JSON catalog ``text`` read from ``path`` with its records' spans (None: YAML)."""
    if path.suffix.lower() in {".yaml", ".yml"}:
        return None
    return scan_catalog_text(text)


def call_name_for(tool_id: str) -> str:
    """Return a model-safe name for a tool id, matching ``^[A-Za-z0-9_-]{1,64}$``.

    The agent and the name are joined by ``__``; other characters are transliterated to
    ASCII or replaced by ``_``. Lossy or over-long names get a hash suffix so two ids never
    share a name by accident.
    """
    agent, _, name = tool_id.partition("/")
    readable = f"{agent}__{name}" if name else agent
    ascii_form = unicodedata.normalize("NFKD", readable).encode("ascii", "ignore").decode("ascii")
    sanitized = re.sub(r"[^A-Za-z0-9_-]+", "_", ascii_form).strip("_") or "tool"
    lossless = sanitized == readable.replace("/", "_") and len(sanitized) <= 64
    if lossless:
        return sanitized
    digest = hashlib.sha1(tool_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{sanitized[:55]}_{digest}"


# ------------------------------------------------------------------ validation helpers
def _validate_tool(raw: Any, source: str) -> ToolSpec:
    if not isinstance(raw, dict):
        raise _Rejected("(tool)", f"a tool is an object, got {type(raw).__name__}")
    _reject_undecodable(raw)
    name = raw.get("name")
    tool_id = raw.get("id")
    agent = raw.get("agent")
    if not isinstance(name, str) or not name.strip():
        if isinstance(tool_id, str) and "/" in tool_id:
            name = tool_id.split("/", 1)[1]
        else:
            raise _Rejected("name", "missing or empty name")
    name = name.strip()
    if _UNSAFE_CHARS.search(name):
        raise _Rejected("name", "name contains control or bidirectional characters")
    if agent is None and isinstance(tool_id, str) and "/" in tool_id:
        agent = tool_id.split("/", 1)[0]
    if not isinstance(agent, str) or not agent.strip():
        raise _Rejected("agent", "missing owner agent (give 'agent' or an id '<agent>/<name>')")
    agent = agent.strip()
    expected_id = f"{agent}/{name}"
    if tool_id is None:
        tool_id = expected_id
    if not isinstance(tool_id, str) or tool_id != expected_id:
        raise _Rejected("id", f"id {tool_id!r} should be '<agent>/<name>' = {expected_id!r}")
    input_schema = raw.get("input_schema", raw.get("inputSchema"))
    _check_object_schema(input_schema, "input_schema")
    assert isinstance(input_schema, dict)
    output_schema = raw.get("output_schema", raw.get("outputSchema"))
    if output_schema is not None:
        _check_object_schema(output_schema, "output_schema", require_object_type=False)
    environment = raw.get("environment")
    if environment is not None and environment not in ENVIRONMENTS:
        raise _Rejected("environment", f"{environment!r} is not one of {', '.join(ENVIRONMENTS)}")
    side_effect = raw.get("side_effect")
    if side_effect is not None and not isinstance(side_effect, bool):
        raise _Rejected("side_effect", "side_effect must be true or false")
    flags: list[str] = []
    description = raw.get("description") or ""
    if not isinstance(description, str):
        raise _Rejected("description", "description must be a string")
    cleaned = _clean_text(description)
    if cleaned != description:
        flags.append("description_sanitized")
    if len(cleaned) > MAX_INDEXED_DESCRIPTION_CHARS:
        flags.append("description_truncated")
    if len(json.dumps(input_schema)) > MAX_SCHEMA_CHARS:
        flags.append("schema_large")
    tags: dict[str, list[str]] = {}
    for tag_field in ("entity_tags", "capability_tags"):
        value = raw.get(tag_field) or []
        if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
            raise _Rejected(tag_field, f"{tag_field} must be a list of strings")
        tags[tag_field] = [_clean_text(tag).strip() for tag in value if tag.strip()]
    summary = raw.get("summary")
    if summary is not None and not isinstance(summary, str):
        raise _Rejected("summary", "summary must be a string")
    annotations = raw.get("annotations") or {}
    return ToolSpec(
        id=tool_id,
        name=name,
        agent=agent,
        description=cleaned,
        input_schema=input_schema,
        output_schema=output_schema,
        environment=environment,
        side_effect=side_effect,
        summary=_clean_text(summary) if summary else None,
        entity_tags=tags["entity_tags"],
        capability_tags=tags["capability_tags"],
        source=source,
        flags=flags,
        annotations=annotations if isinstance(annotations, dict) else {},
    )


def _check_object_schema(schema: Any, field_name: str, require_object_type: bool = True) -> None:
    if schema is None:
        raise _Rejected(field_name, f"missing {field_name} (a JSON Schema object)")
    if not isinstance(schema, dict):
        raise _Rejected(
            field_name, f"{field_name} must be a JSON Schema object, got {type(schema).__name__}"
        )
    if require_object_type and schema.get("type", "object") != "object":
        raise _Rejected(
            field_name, f"{field_name} must have type 'object', got {schema.get('type')!r}"
        )
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise _Rejected(field_name, "'properties' must be an object")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise _Rejected(field_name, "'required' must be a list of property names")
    try:
        _metaschema_check()(schema)
        return
    except fastjsonschema.JsonSchemaException:
        pass
    except (RecursionError, TypeError, ValueError) as exc:
        raise _Rejected(field_name, f"not a valid JSON Schema: {exc}") from exc
    # Slow path only for invalid schemas: jsonschema names where the problem is.
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft7Validator(jsonschema.Draft7Validator.META_SCHEMA).iter_errors(schema)
    )
    path = "/".join(str(part) for part in error.path) if error else ""
    message = error.message if error else "rejected by the JSON Schema metaschema"
    raise _Rejected(field_name, f"not a valid JSON Schema at {path or '(root)'}: {message}")


@functools.cache
def _metaschema_check() -> Callable[[Any], Any]:
    # The compiled draft-07 metaschema checks ~50x faster than jsonschema's 2020-12 walk,
    # which matters at thousands of tools; draft-07 accepts the keywords tools use.
    # use_default=False: the check must never write the metaschema's defaults into tools.
    return fastjsonschema.compile(  # type: ignore[no-any-return]
        jsonschema.Draft7Validator.META_SCHEMA, use_default=False
    )


def _reject_undecodable(value: Any, path: str = "") -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _Rejected(path or "(tool)", "text is not valid UTF-8") from exc
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_undecodable(key, path)
            _reject_undecodable(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for item in value:
            _reject_undecodable(item, path)


def _clean_text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return _UNSAFE_CHARS.sub(" ", value)


def _tool_label(raw: Any) -> str:
    if isinstance(raw, dict):
        for key in ("id", "name"):
            value = raw.get(key)
            if isinstance(value, str) and value:
                return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return "?"


def _locate(source: str, position: int, raw: Any, text: str | None) -> str:
    """Return 'file tools[i] (line n)', finding the line of the tool's id or name in the text."""
    where = f"{source} tools[{position}]"
    if text is None or not isinstance(raw, dict):
        return where
    for key in ("id", "name"):
        value = raw.get(key)
        if isinstance(value, str) and value:
            needle = json.dumps(value)
            offset = text.find(needle)
            if offset < 0:
                offset = text.find(value)
            if offset >= 0:
                return f"{where} (line {text.count(chr(10), 0, offset) + 1})"
    return where


def _format_name(path: Path) -> str:
    return "YAML" if path.suffix.lower() in {".yaml", ".yml"} else "JSON"


def _stable_hash(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:32]
