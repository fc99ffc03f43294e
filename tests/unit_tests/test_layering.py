"""Imports flow graph → nodes → stores; sandbox is reached only through MCP."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(package: str) -> list[tuple[str, str]]:
    found = []
    for path in (ROOT / package).rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.extend((str(path.relative_to(ROOT)), alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                assert node.level == 0, f"relative import in {path}"
                found.append((str(path.relative_to(ROOT)), node.module))
    return found


@pytest.mark.parametrize(("package", "forbidden"), [
    ("stores", ("nodes", "graph", "sandbox")),
    ("nodes", ("graph", "sandbox")),
    ("graph", ("sandbox",)),
    ("sandbox", ("graph", "nodes", "stores")),
])
def test_layering(package: str, forbidden: tuple[str, ...]) -> None:
    offenders = [(where, module) for where, module in imported_modules(package)
                 if module.split(".")[0] in forbidden]
    assert offenders == []


def test_stores_use_only_checkpoint_savers_from_langgraph() -> None:
    offenders = [(where, module) for where, module in imported_modules("stores")
                 if module.startswith("langgraph") and not module.startswith("langgraph.checkpoint")]
    assert offenders == []
