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


STORES_BOTTOM = ("stores.settings", "stores.secrets", "stores.errors")
INNER_ROOMS = ("stores.catalog", "stores.retrieval", "stores.execution")


@pytest.mark.parametrize("room", ["stores/language", "stores/mcp"])
def test_language_and_mcp_import_no_catalog_retrieval_or_execution(room: str) -> None:
    offenders = [(where, module) for where, module in imported_modules(room)
                 if module.startswith(INNER_ROOMS)]
    assert offenders == []


def test_the_bottom_of_stores_imports_no_room() -> None:
    rooms = ("stores.language", "stores.mcp") + INNER_ROOMS
    offenders = []
    for name in ("settings", "secrets", "errors"):
        tree = ast.parse((ROOT / "stores" / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(rooms):
                offenders.append((name, node.module))
    assert offenders == []


def _module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for package in ("graph", "nodes", "stores"):
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            name = name.removesuffix(".__init__")
            edges = graph.setdefault(name, set())
            tree = ast.parse(path.read_text())
            for node in tree.body:  # module-level imports: the ones that run at import time
                if isinstance(node, ast.ImportFrom) and node.module:
                    edges.add(node.module)
                elif isinstance(node, ast.Import):
                    edges.update(alias.name for alias in node.names)
    return {name: {e for e in edges if e in graph} for name, edges in graph.items()}


def test_no_import_cycles() -> None:
    graph = _module_graph()
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []
