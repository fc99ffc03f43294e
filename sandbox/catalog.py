"""The sandbox's own tool catalog, in the benchmark/catalog format of zspace.

It is produced from the very server `python -m sandbox serve` runs (its `list_tools` answer),
so the committed `sandbox/data/catalog.json` stays true to the tools. The near misses
(`sandbox/data/near_misses.json`) hold a production twin of every writer, with the same
description and schemas; `sync_production_twins` rewrites those twins from the catalog.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

from sandbox.backend import Sandbox, tool_methods
from sandbox.server import ENVIRONMENT, INSTRUCTIONS, SERVER_NAME, build_server

PRODUCTION_AGENT = "sandbox-prod"
AGENT = {
    "id": SERVER_NAME,
    "name": "Sandbox test-data platform",
    "description": INSTRUCTIONS,
    "category": "test data",
    "url": "stdio: python -m sandbox serve",
}


async def _list_tools() -> list[Any]:
    # The database is opened lazily: listing tools never touches it.
    server = build_server(Sandbox(":memory:"))
    return await server.list_tools()


def build_catalog() -> dict[str, Any]:
    """Return the sandbox catalog: one agent, `sandbox`, and one entry per tool.

    Returns:
        `{"agents": [...], "tools": [...]}` with input and output schemas, environment,
        side effect, tags and MCP annotations per tool.
    """
    infos = {info.name: info for info, _ in tool_methods()}
    tools = []
    for listed in asyncio.run(_list_tools()):
        info = infos[listed.name]
        zspace_meta = (listed.meta or {}).get("zspace", {})
        tools.append(
            {
                "id": f"{SERVER_NAME}/{listed.name}",
                "name": listed.name,
                "description": listed.description or "",
                "input_schema": listed.inputSchema,
                "output_schema": listed.outputSchema,
                "agent": SERVER_NAME,
                "environment": zspace_meta.get("environment", ENVIRONMENT),
                "side_effect": bool(zspace_meta.get("side_effect", info.side_effect)),
                "entity_tags": list(info.entity_tags),
                "capability_tags": [info.capability],
                "annotations": (
                    listed.annotations.model_dump(exclude_none=True) if listed.annotations else {}
                ),
            }
        )
    return {"agents": [AGENT], "tools": tools}


def write_catalog(path: Path | None) -> str:
    """Serialize the catalog and write it to `path` (or return it only).

    Args:
        path: Output file; parent folders are created. None writes nothing.

    Returns:
        The JSON text.
    """
    text = json.dumps(build_catalog(), indent=2, ensure_ascii=False) + "\n"
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return text


def production_twins(catalog: dict[str, Any]) -> list[dict[str, Any]]:
    """Return a production twin of every writer of a sandbox catalog (`build_catalog`).

    A twin is the same tool owned by `PRODUCTION_AGENT` in the 'prod' environment, without
    MCP annotations: the near miss a run restricted to 'test' must never call.
    """
    twins = []
    for tool in catalog["tools"]:
        if not tool["side_effect"]:
            continue
        twin = {key: value for key, value in tool.items() if key != "annotations"}
        twin.update(
            id=f"{PRODUCTION_AGENT}/{tool['name']}", agent=PRODUCTION_AGENT, environment="prod"
        )
        twins.append(twin)
    return twins


def sync_production_twins(path: Path) -> str:
    """Rewrite the production twins of a near-miss file from the current tools.

    The twins come first, in catalog order; every other near miss is kept as it is.

    Args:
        path: A near-miss catalog (e.g. sandbox/data/near_misses.json).

    Returns:
        The JSON text written.
    """
    document = json.loads(path.read_text(encoding="utf-8"))
    others = [t for t in document["tools"] if t.get("agent") != PRODUCTION_AGENT]
    document["tools"] = production_twins(build_catalog()) + others
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return text
