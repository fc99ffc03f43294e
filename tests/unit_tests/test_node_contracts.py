"""A node module's docstring names the state keys each node reads and writes, truthfully.

The docstring says ``node`` — Reads: a, b. Writes: c, d. The writes are checked against the
keys the node's code can return (read from its source: returned dict literals, keys assigned
to the returned dict, and what a helper it returns the result of builds); the reads and writes
must be keys of the state.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from types import ModuleType

import pytest

from nodes.state import ZState

NODES = [
    ("nodes.plan", "plan"),
    ("nodes.execute", "execute"),
    ("nodes.execute", "call_tool"),
    ("nodes.approve", "approve"),
    ("nodes.reconcile", "reconcile"),
    ("nodes.align", "check_alignment"),
    ("nodes.retrieve", "retrieve"),
    ("nodes.synthesize", "synthesize"),
]
KEY_LIST = re.compile(r"^[a-z_]+(?:, [a-z_]+)*$")


def declared(module: ModuleType, node: str) -> tuple[set[str] | None, set[str]]:
    """``(reads, writes)`` from the module docstring; reads is None when not a key list."""
    text = " ".join((module.__doc__ or "").split())
    found = re.search(rf"``{node}`` — Reads: (.*?)\. Writes: (.*?)\.(?: |$)", text)
    assert found, f"{module.__name__}'s docstring names no reads and writes of {node}"
    reads, writes = found.group(1), found.group(2)
    assert KEY_LIST.match(writes), writes
    return (set(reads.split(", ")) if KEY_LIST.match(reads) else None), set(writes.split(", "))


def own_statements(function: ast.AST) -> list[ast.AST]:
    """The function's statements and expressions, not those of functions nested in it."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        item = stack.pop()
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        found.append(item)
        stack.extend(ast.iter_child_nodes(item))
    return found


class ReturnedKeys:
    """The top-level keys of the dicts a function of a module can return."""

    def __init__(self, module: ModuleType) -> None:
        tree = ast.parse(inspect.getsource(module))
        self.functions = {
            f.name: f for f in tree.body if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        }

    def of(self, name: str, element: int | None = None) -> set[str]:
        function = self.functions[name]
        keys: set[str] = set()
        for item in own_statements(function):
            if isinstance(item, ast.Return) and item.value is not None:
                value = item.value
                if element is not None:
                    assert isinstance(value, ast.Tuple), ast.unparse(value)
                    value = value.elts[element]
                keys |= self.expression(function, value)
        return keys

    def expression(self, function: ast.AST, value: ast.expr) -> set[str]:
        if isinstance(value, ast.Dict):
            keys: set[str] = set()
            for key, item in zip(value.keys, value.values, strict=True):
                if key is None:  # {**other}
                    keys |= self.expression(function, item)
                else:
                    assert isinstance(key, ast.Constant), ast.unparse(key)
                    keys.add(str(key.value))
            return keys
        if isinstance(value, ast.IfExp):
            return self.expression(function, value.body) | self.expression(function, value.orelse)
        if isinstance(value, ast.Await):  # return await helper(...): the helper's keys
            return self.expression(function, value.value)
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id in self.functions
        ):
            return self.of(value.func.id)
        if isinstance(value, ast.Name):
            return self.variable(function, value.id)
        raise AssertionError(f"cannot tell the keys of {ast.unparse(value)}")

    def variable(self, function: ast.AST, name: str) -> set[str]:
        keys: set[str] = set()
        for item in own_statements(function):
            if isinstance(item, ast.AnnAssign | ast.Assign):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                for target in targets:
                    if isinstance(target, ast.Name) and target.id == name and item.value:
                        keys |= self.expression(function, item.value)
                    elif isinstance(target, ast.Tuple) and item.value is not None:
                        names = [getattr(t, "id", None) for t in target.elts]
                        if name in names:
                            keys |= self.of(self.helper(item.value), names.index(name))
                    elif (
                        isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == name
                        and isinstance(target.slice, ast.Constant)
                    ):
                        keys.add(str(target.slice.value))
            elif (  # name.update({...}): the keys of the dict given
                isinstance(item, ast.Call)
                and isinstance(item.func, ast.Attribute)
                and item.func.attr == "update"
                and isinstance(item.func.value, ast.Name)
                and item.func.value.id == name
                and item.args
            ):
                keys |= self.expression(function, item.args[0])
        return keys

    def helper(self, value: ast.expr) -> str:
        """The module function whose result a tuple is unpacked from (maybe via to_thread)."""
        for item in ast.walk(value):
            if isinstance(item, ast.Name) and item.id in self.functions:
                return item.id
        raise AssertionError(f"cannot follow {ast.unparse(value)}")


@pytest.mark.parametrize(("module_name", "node"), NODES)
def test_a_node_docstring_names_what_it_reads_and_writes(module_name: str, node: str) -> None:
    module = importlib.import_module(module_name)
    reads, writes = declared(module, node)
    state_keys = set(ZState.__annotations__)
    assert writes <= state_keys
    assert reads is None or reads <= state_keys
    assert ReturnedKeys(module).of(node) == writes


def test_the_contract_check_follows_assigned_keys_and_helpers() -> None:
    """Keys assigned to a returned dict, and built by a helper, count as written."""
    from nodes import execute

    returned = ReturnedKeys(execute).of("execute")
    assert "approvals" in returned and "awaiting_reconcile" in returned
    assert ReturnedKeys(importlib.import_module("nodes.retrieve")).of("retrieve") >= {
        "token_ledger"
    }
