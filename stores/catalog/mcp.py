"""MCP servers as a tool source: their tools listed, mapped and added to the catalog.

Ingestion (:func:`load_mcp_catalog`) starts every server concurrently under its own timeout,
lists its tools (following pagination) and adds them to a :class:`~stores.catalog.model.Catalog`
under ids qualified by server (``<server>/<tool>``), each with a hash of its definition. A
server that cannot start, hangs or dies is reported by name and the others still load.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import types

from stores.catalog.model import DEFINITION_HASH_KEY, Catalog
from stores.mcp.client import _describe_failure, tool_annotations, tool_definition_hash
from stores.mcp.config import McpConfig, McpServerConfig, load_mcp_config, parse_server_config
from stores.mcp.errors import McpCallTimeout, McpServerDied, McpServerUnavailable
from stores.mcp.pool import McpSessionPool


# ============================================================================ tool mapping
def tool_to_raw(
    server: str, tool: types.Tool, environment: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Map one MCP tool to a raw catalog record (validated later by ``Catalog.add_raw_tool``).

    ``environment`` and ``side_effect`` come from ``_meta.zspace``; a tool that does not tag
    its environment gets the server's configured one, and without a side-effect tag a
    ``readOnlyHint: true`` annotation means it does not write (anything else: unknown).
    The definition hash is kept under ``annotations["zspace_definition_hash"]``.

    Returns:
        The raw record and problems worth reporting (untrusted tags that were ignored).
    """
    problems: list[str] = []
    tags = (tool.meta or {}).get("zspace")
    if tags is not None and not isinstance(tags, Mapping):
        problems.append(f"tool {tool.name!r}: _meta.zspace is not an object; ignored")
        tags = None
    tags = tags or {}
    tagged_environment = tags.get("environment")
    # An unknown environment tag is passed on so the catalog quarantines the tool.
    resolved_environment = tagged_environment if tagged_environment is not None else environment
    side_effect = tags.get("side_effect")
    if side_effect is not None and not isinstance(side_effect, bool):
        problems.append(
            f"tool {tool.name!r}: _meta.zspace.side_effect {side_effect!r} is not a boolean; "
            "ignored"
        )
        side_effect = None
    annotations = tool_annotations(tool)
    if side_effect is None and annotations.get("readOnlyHint") is True:
        side_effect = False
    raw: dict[str, Any] = {
        "id": f"{server}/{tool.name}",
        "name": tool.name,
        "agent": server,
        "description": tool.description or "",
        # Copies: the record must not alias the tool it is hashed from.
        "input_schema": copy.deepcopy(tool.inputSchema),
        "environment": resolved_environment,
        "side_effect": side_effect,
        "annotations": {**annotations, DEFINITION_HASH_KEY: tool_definition_hash(tool)},
    }
    if tool.outputSchema is not None:
        raw["output_schema"] = copy.deepcopy(tool.outputSchema)
    return raw, problems




# ============================================================================ ingestion
@dataclass
class ServerLoadResult:
    """How one server's ingestion went."""

    server: str
    ok: bool
    tools: int = 0
    quarantined: int = 0
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    duration_s: float = 0.0


@dataclass
class McpLoadReport:
    """Per-server outcome of :func:`load_mcp_catalog`; failed servers are named with a reason."""

    source: str
    servers: dict[str, ServerLoadResult] = field(default_factory=dict)
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> dict[str, str]:
        """Return ``{server: reason}`` for every server that did not load."""
        return {
            name: result.error or "failed"
            for name, result in self.servers.items()
            if not result.ok
        }

    @property
    def loaded(self) -> list[str]:
        """Return the servers whose tools were listed."""
        return [name for name, result in self.servers.items() if result.ok]

    def to_dict(self) -> dict[str, Any]:
        """Return the report as plain data."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        lines = [f"MCP servers from {self.source}:"]
        for name, result in self.servers.items():
            if result.ok:
                extra = f", {result.quarantined} quarantined" if result.quarantined else ""
                lines.append(f"  {name}: {result.tools} tools{extra} ({result.duration_s:.1f} s)")
            else:
                lines.append(f"  {name}: FAILED: {result.error}")
            lines.extend(f"    - {problem}" for problem in result.problems)
        lines.extend(f"  {name}: disabled" for name in self.disabled)
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        return "\n".join(lines)


async def _list_server(
    name: str, server_config: McpServerConfig
) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """Connect, list every tool within the server's timeout, and close."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with McpSessionPool({name: server_config}, max_restarts=0) as pool:
        await pool.session(name)
        remaining = server_config.timeout - (loop.time() - started)
        if remaining <= 0:
            raise McpCallTimeout(name, "tools/list", server_config.timeout)
        tools, problems = await pool._list_all_tools(name, timeout=remaining)
        handshake = pool.initialize_result(name)
    agent: dict[str, Any] = {"id": name, "name": name, "category": "mcp",
                             "url": server_config.url or ""}
    description = server_config.description
    if handshake is not None:
        info = handshake.serverInfo
        title = getattr(info, "title", None) or info.name
        description = description or handshake.instructions or f"MCP server {title}"
        if info.version:
            description = f"{description} ({title} {info.version})"
    agent["description"] = description
    raws = []
    for tool in tools:
        raw, tool_problems = tool_to_raw(name, tool, server_config.environment)
        raws.append(raw)
        problems.extend(tool_problems)
    return agent, raws, problems


async def list_server_tools(
    name: str, server_config: McpServerConfig | Mapping[str, Any]
) -> tuple[list[dict[str, Any]], list[str]]:
    """List one server's tools as raw catalog records.

    Args:
        name: The server's name; it qualifies every tool id as ``<name>/<tool>``.
        server_config: Its settings (an :class:`McpServerConfig` or a raw config entry).

    Returns:
        The raw tool records (for ``Catalog.add_raw_tool``) and non-fatal problems.

    Raises:
        McpServerUnavailable: the server did not start or died during the handshake.
        McpServerDied: it died while listing.
        McpCallTimeout: the listing did not finish within the server's timeout.
    """
    if isinstance(server_config, McpServerConfig):
        config = dataclasses.replace(server_config, name=name)
    else:
        config = parse_server_config(name, server_config)
    _agent, raws, problems = await _list_server(name, config)
    return raws, problems


async def load_mcp_catalog(
    config_path: str | Path | McpConfig, *, catalog: Catalog | None = None
) -> tuple[Catalog, McpLoadReport]:
    """Ingest every server of an MCP config into a catalog, concurrently.

    Each server gets one agent (id = server name, described by its handshake instructions)
    and its tools, added through ``Catalog.add_raw_tool`` with source ``mcp:<server>`` so a
    malformed tool is quarantined and the rest loads. A server that fails to start, times out
    or dies is named in the report with the reason; the other servers still load.

    Args:
        config_path: The config file (or an already loaded :class:`McpConfig`).
        catalog: A catalog to add to (default: a new one).

    Raises:
        McpConfigError: the config itself is invalid (nothing is started then).
    """
    config = config_path if isinstance(config_path, McpConfig) else load_mcp_config(config_path)
    catalog = catalog if catalog is not None else Catalog()
    report = McpLoadReport(
        source=config.source, disabled=list(config.disabled), warnings=list(config.warnings)
    )

    async def load_one(
        name: str, server_config: McpServerConfig
    ) -> tuple[ServerLoadResult, tuple[dict[str, Any], list[dict[str, Any]]] | None]:
        started = time.monotonic()
        try:
            agent, raws, problems = await _list_server(name, server_config)
        except Exception as exc:  # noqa: BLE001 - one server's failure must not stop the rest
            reason = exc.reason if isinstance(exc, McpServerUnavailable) else str(exc)
            if not isinstance(exc, McpServerUnavailable | McpServerDied | McpCallTimeout):
                reason = _describe_failure(exc)
            return ServerLoadResult(
                name, ok=False, error=reason, duration_s=time.monotonic() - started
            ), None
        result = ServerLoadResult(
            name, ok=True, problems=problems, duration_s=time.monotonic() - started
        )
        return result, (agent, raws)

    outcomes = await asyncio.gather(
        *(load_one(name, server_config) for name, server_config in config.servers.items())
    )
    # Added in config order after every server answered, so ids and call names do not
    # depend on which server happened to answer first.
    for result, loaded in outcomes:
        report.servers[result.server] = result
        if loaded is None:
            continue
        agent, raws = loaded
        source = f"mcp:{result.server}"
        catalog.load_document({"agents": [agent]}, source=source)
        for raw in raws:
            if catalog.add_raw_tool(raw, source=source) is None:
                result.quarantined += 1
            else:
                result.tools += 1
    return catalog, report


def definition_hashes(catalog: Catalog) -> dict[str, str]:
    """Return ``{tool id: definition hash}`` for MCP tools (to detect changed definitions)."""
    return {
        tool_id: str(spec.annotations[DEFINITION_HASH_KEY])
        for tool_id, spec in catalog.tools.items()
        if DEFINITION_HASH_KEY in spec.annotations
    }




