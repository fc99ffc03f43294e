"""MCP server config: the common ``mcpServers`` file shape, validated, ``${VAR}`` expanded.

A config uses the shape of Claude Desktop, Cursor and langchain-mcp-adapters::

    {"mcpServers": {
        "shop": {"command": "python", "args": ["-m", "sandbox", "serve"],
                 "env": {"API_TOKEN": "${SHOP_TOKEN}"}, "timeout": 30, "environment": "test"},
        "crm": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer ${CRM}"}}
    }}

``${VAR}`` and ``${VAR:-default}`` in ``env`` and ``headers`` values come from the process
environment, so secrets stay out of the file. A command that is exactly ``python`` or
``python3`` runs the interpreter running zspace (``sys.executable``), so a server written in
Python sees the same virtual environment.
"""


from __future__ import annotations

import difflib
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stores.mcp.errors import McpConfigError, McpTransport
from stores.secrets import SECRETS
from stores.settings import ENVIRONMENTS, Environment

DEFAULT_TIMEOUT_S = 30.0
PYTHON_COMMANDS = frozenset({"python", "python3"})
_SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_TRANSPORT_ALIASES: dict[str, McpTransport] = {
    "stdio": "stdio",
    "streamable_http": "streamable_http",
    "streamable-http": "streamable_http",
    "streamablehttp": "streamable_http",
    "http": "streamable_http",
    "sse": "sse",
}
_KNOWN_FIELDS = frozenset(
    {"command", "args", "env", "cwd", "url", "headers", "transport", "type", "timeout",
     "environment", "disabled", "description"}
)



# ============================================================================ config
@dataclass(frozen=True)
class McpServerConfig:
    """One server of an MCP config, validated, with variables expanded.

    ``env`` and ``headers`` may hold secrets: they are left out of ``repr`` and of reports.
    """

    name: str
    transport: McpTransport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float = DEFAULT_TIMEOUT_S
    environment: Environment | None = None
    description: str = ""


@dataclass
class McpConfig:
    """The servers of one MCP config file."""

    servers: dict[str, McpServerConfig]
    source: str = "<config>"
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def load_mcp_config(
    path: str | Path, *, environ: Mapping[str, str] | None = None
) -> McpConfig:
    """Read and validate an MCP config file.

    Relative ``cwd`` values are resolved against the file's directory.

    Args:
        path: The JSON file with an ``mcpServers`` object.
        environ: Where ``${VAR}`` values come from (default: ``os.environ``).

    Raises:
        McpConfigError: the file is unreadable, not JSON, or a server is misconfigured.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"cannot read MCP config {path}: {exc}") from exc
    try:
        document = json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except _DuplicateKey as exc:
        raise McpConfigError(
            f"{path}: key {exc.key!r} appears twice in one object; the later entry would "
            "silently replace the earlier one, so give each server a unique name"
        ) from exc
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{path} is not valid JSON: {exc}") from exc
    return parse_mcp_config(
        document, source=str(path), base_dir=path.resolve().parent, environ=environ
    )


def parse_mcp_config(
    document: Any,
    *,
    source: str = "<config>",
    base_dir: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> McpConfig:
    """Validate an already parsed ``{"mcpServers": {...}}`` document.

    Args:
        document: The parsed JSON.
        source: Names the config in error messages (usually its path).
        base_dir: Directory that relative ``cwd`` values are relative to.
        environ: Where ``${VAR}`` values come from (default: ``os.environ``).

    Raises:
        McpConfigError: naming the source, the server and the field at fault.
    """
    if not isinstance(document, Mapping) or not isinstance(document.get("mcpServers"), Mapping):
        raise McpConfigError(
            f"{source}: an MCP config is an object with an 'mcpServers' object mapping each "
            'server name to its settings, e.g. {"mcpServers": {"shop": {"command": "python", '
            '"args": ["-m", "shop"]}}}'
        )
    config = McpConfig(servers={}, source=source)
    for name, raw in document["mcpServers"].items():
        if isinstance(raw, Mapping) and raw.get("disabled") is True:
            config.disabled.append(str(name))
            continue
        server = parse_server_config(
            name, raw, source=source, base_dir=base_dir, environ=environ
        )
        config.servers[server.name] = server
        config.warnings.extend(
            unknown_field_warning(source, str(name), str(key))
            for key in raw
            if key not in _KNOWN_FIELDS
        )
    return config


def unknown_field_warning(source: str, server: str, key: str) -> str:
    """Say that a server field is ignored, with the closest known field when one is close."""
    close = difflib.get_close_matches(key.lower(), sorted(_KNOWN_FIELDS), n=1, cutoff=0.75)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"{source}: server {server!r}: field {key!r} is not a zspace setting and is "
        f"ignored{hint}"
    )


def parse_server_config(
    name: Any,
    raw: Any,
    *,
    source: str = "<config>",
    base_dir: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> McpServerConfig:
    """Validate one server entry of an ``mcpServers`` object.

    Raises:
        McpConfigError: naming the source, the server and the field at fault.
    """
    environ = os.environ if environ is None else environ

    def fail(field_name: str, problem: str) -> McpConfigError:
        return McpConfigError(f"{source}: server {name!r}, field {field_name!r}: {problem}")

    if not isinstance(name, str) or not _SERVER_NAME.match(name):
        raise McpConfigError(
            f"{source}: server name {name!r} must be 1-64 letters, digits, '_', '.' or '-' "
            "(it prefixes every tool id as '<server>/<tool>', so no '/' or spaces)"
        )
    if not isinstance(raw, Mapping):
        raise fail("(server)", f"settings must be an object, got {type(raw).__name__}")
    command, url = raw.get("command"), raw.get("url")
    if command is not None and url is not None:
        raise fail("command", "give either 'command' (stdio) or 'url' (HTTP), not both")
    if command is None and url is None:
        raise fail("command", "missing: give 'command' (a stdio server) or 'url' (HTTP or SSE)")

    declared = raw.get("transport", raw.get("type"))
    transport_field = "transport" if "transport" in raw else "type"
    if declared is None:
        transport: McpTransport = "stdio" if command is not None else "streamable_http"
    elif isinstance(declared, str) and declared.lower() in _TRANSPORT_ALIASES:
        transport = _TRANSPORT_ALIASES[declared.lower()]
    else:
        raise fail(transport_field, f"{declared!r} is not one of stdio, streamable_http, sse")
    if transport == "stdio" and command is None:
        raise fail("command", "a stdio server needs a 'command'")
    if transport != "stdio" and url is None:
        raise fail("url", f"a {transport} server needs a 'url'")

    timeout = raw.get("timeout", DEFAULT_TIMEOUT_S)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise fail("timeout", f"must be a positive number of seconds, got {timeout!r}")
    environment = raw.get("environment")
    if environment is not None and environment not in ENVIRONMENTS:
        raise fail("environment", f"{environment!r} is not one of {', '.join(ENVIRONMENTS)}")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise fail("description", "must be a string")

    common: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "timeout": float(timeout),
        "environment": environment,
        "description": description,
    }
    if transport == "stdio":
        if not isinstance(command, str) or not command.strip():
            raise fail("command", "must be a non-empty string (the executable)")
        args = raw.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            raise fail("args", "must be a list of strings")
        cwd = raw.get("cwd")
        if cwd is not None:
            if not isinstance(cwd, str) or not cwd:
                raise fail("cwd", "must be a directory path")
            if base_dir is not None and not Path(cwd).is_absolute():
                cwd = str(Path(base_dir) / cwd)
        for wrong in ("headers",):
            if wrong in raw:
                raise fail(wrong, "only HTTP and SSE servers take headers; use 'env'")
        server_env = _expand_mapping(raw.get("env"), "env", fail, environ)
        SECRETS.add_mapping(server_env)  # values under secret-looking names never leave
        return McpServerConfig(
            command=resolve_command(command),
            args=tuple(args),
            env=server_env,
            cwd=cwd,
            **common,
        )
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise fail("url", f"must be an http:// or https:// URL, got {url!r}")
    for wrong in ("args", "env", "cwd"):
        if wrong in raw:
            raise fail(wrong, f"only stdio servers take {wrong!r}; this one has a 'url'")
    headers = _expand_mapping(raw.get("headers"), "headers", fail, environ)
    SECRETS.add_mapping(headers)
    return McpServerConfig(url=url, headers=headers, **common)


def resolve_command(command: str) -> str:
    """Return the executable to start: ``python``/``python3`` mean the running interpreter.

    So a config that says ``"command": "python"`` uses zspace's own virtual environment
    whatever ``PATH`` says.
    """
    return sys.executable if command in PYTHON_COMMANDS else command


def expand_variables(value: str, environ: Mapping[str, str] | None = None) -> str:
    """Replace ``${VAR}`` and ``${VAR:-default}`` by values from the environment.

    Raises:
        KeyError: a variable without a default is not set (its name is the key).
    """
    environ = os.environ if environ is None else environ

    def substitute(match: re.Match[str]) -> str:
        variable, default = match.group(1), match.group(2)
        found = environ.get(variable)
        if found is not None and (found or default is None):
            return found
        if default is not None:
            return default
        raise KeyError(variable)

    return _VARIABLE.sub(substitute, value)


def _expand_mapping(
    raw: Any,
    field_name: str,
    fail: Callable[[str, str], McpConfigError],
    environ: Mapping[str, str],
) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise fail(field_name, "must be an object of string values")
    expanded: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(value, str):
            raise fail(f"{field_name}.{key}", f"must be a string, got {type(value).__name__}")
        try:
            expanded[str(key)] = expand_variables(value, environ)
        except KeyError as exc:
            variable = exc.args[0]
            raise fail(
                f"{field_name}.{key}",
                f"environment variable {variable!r} is not set; export it, or write "
                f"${{{variable}:-default}} for a fallback",
            ) from None
    return expanded




