"""The sandbox's own tool catalog, in the benchmark/catalog format of zspace.

It is produced from the very server `python -m sandbox serve` runs (its `list_tools` answer),
so the committed `sandbox/data/catalog.json` stays true to the tools.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

from sandbox.backend import Sandbox, tool_methods
from sandbox.server import ENVIRONMENT, INSTRUCTIONS, SERVER_NAME, build_server

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
