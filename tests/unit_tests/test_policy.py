"""Isolation and policy: environments, pinned definitions, approvals bound and used once, runs."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command

from nodes.approve import approval_key
from stores.catalog.model import Catalog, ToolSpec
from stores.execution import policy
from stores.execution.executor import ToolExecutor
from stores.execution.ledger.calls import (
    CallLedger,
    LeaseRecord,
    RunConflict,
    RunLeaseHeld,
    lease_is_stale,
)
from stores.execution.policy import (
    DEFINITION_HASH_KEY,
    decide,
    definition_refusal,
    environment_allows,
    environment_refusal,
)
from tests.unit_tests.test_pipeline import World

SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}}


def spec(environment: str | None, side_effect: bool | None, name: str = "tool") -> ToolSpec:
    return ToolSpec(id=f"a/{name}", name=name, agent="a", input_schema=SCHEMA,
                    environment=environment, side_effect=side_effect)  # type: ignore[arg-type]


@pytest.mark.parametrize(("environment", "side_effect", "allowed", "expected"), [
    ("test", True, ["test"], True),
    ("prod", False, ["test"], False),
    (None, False, ["test"], True),
    (None, True, ["test"], False),
    ("prod", True, None, True),
    ("test", False, [], False),
])
def test_one_environment_rule(
    environment: str | None, side_effect: bool, allowed: list[str] | None, expected: bool
) -> None:
    assert environment_allows(environment, side_effect, allowed) is expected
    refused = environment_refusal(spec(environment, side_effect), side_effect, allowed)
    assert (refused is None) is expected


def test_environment_allow_list() -> None:
    assert environment_refusal(spec("prod", False), False, ["test"])
    assert environment_refusal(spec("test", True), True, ["test"]) is None
    assert environment_refusal(spec(None, False), False, ["test"]) is None
    untagged_writer = str(environment_refusal(spec(None, True), True, ["test"]))
    assert "no environment tag" in untagged_writer
    assert 'add "environment": "test" to tool' in untagged_writer
    assert decide(spec("test", True, "delete_user"), allowed_environments=["test"],
                  destructive_patterns=["delete_*"]).decision == "needs_approval"
    assert decide(spec("test", True, "delete_user"), allowed_environments=["test"],
                  destructive_patterns=["delete_*"], approved=True).decision == "allow"


class PinnedBackend:
    def __init__(self, live: str) -> None:
        self.live = live
        self.calls = 0

    async def live_definition_hash(self, _spec: ToolSpec) -> str:
        return self.live

    async def call(self, _spec: ToolSpec, args: dict[str, Any], _key: str | None) -> Any:
        self.calls += 1
        return {"ok": True}


@pytest.mark.parametrize(("live", "allowed"), [("pinned", True), ("changed", False), ("", False)])
async def test_a_changed_definition_disables_the_tool(live: str, allowed: bool) -> None:
    catalog = Catalog()
    catalog.add_raw_tool({"name": "t", "agent": "srv", "input_schema": SCHEMA,
                          "environment": "test", "side_effect": False,
                          "annotations": {DEFINITION_HASH_KEY: "pinned"}}, source="mcp:srv")
    backend = PinnedBackend(live)
    record = await ToolExecutor(catalog, backends={"srv": backend}).execute(
        {"call_id": "c", "tool_id": "srv/t", "args": {"x": 1}}
    )
    assert (record["status"] == "ok") is allowed
    assert backend.calls == int(allowed)
    if not allowed:
        assert record["error_kind"] == "policy" and "re-index" in str(record["error"])
    assert definition_refusal(catalog.tools["srv/t"], None) is None


def test_run_id_is_bound_to_its_first_request(tmp_path: Path) -> None:
    ledger = CallLedger(tmp_path / "ledger.sqlite")
    ledger.bind_run("r1", "hash-a", "create a product")
    ledger.bind_run("r1", "hash-a")
    with pytest.raises(RunConflict, match="first used for another request"):
        ledger.bind_run("r1", "hash-b")


def test_one_live_process_holds_a_run_lease(tmp_path: Path) -> None:
    ledger = CallLedger(tmp_path / "ledger.sqlite")
    with ledger.run_lease("r1") as lease:
        ledger.check_lease("r1")  # our own lease
        with pytest.raises(RunLeaseHeld, match="another process"):
            ledger.acquire_lease("r1", owner="someone-else")
        assert ledger.lease_holder("r1") == lease
    assert ledger.lease_holder("r1") is None
    silent = LeaseRecord("r", "o", 1, "elsewhere", time.time() - 3600)
    assert lease_is_stale(silent)
    dead = LeaseRecord("r", "o", 2**22 + 12345, __import__("socket").gethostname(), time.time())
    assert lease_is_stale(dead)


async def test_approval_is_bound_to_the_exact_call_and_used_once(world: World) -> None:
    await world.run({"request": "create an order for account 123456"}, "setup")
    await world.run({"request": "cancel order 1"}, "t")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "t"}})
    call = snapshot.values["plan"][0]
    other = {**call, "args": {**call["args"], "order_id": {"value": 2}}}
    assert approval_key(call, {}) != approval_key(other, {})
    state, _ = await world.run(Command(resume=True), "t")
    assert state["results"]["s1.core"]["status"] == "ok"
    assert state["approvals"] == {}  # consumed by the call it approved
    assert world.shop.calls["cancel_order"] == 1


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


async def test_the_graph_asks_for_approval_exactly_when_the_policy_gate_says_so(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The approve node applies ``stores.execution.policy``'s gate, not a rule of its own.

    With the policy's notion of "destructive" swapped, creating a product (no destructive name
    pattern matches) is held for a person and cancelling an order is not.
    """
    def destructive(tool_id: str, _patterns: Sequence[str]) -> bool:
        return tool_id.endswith("create_product")

    monkeypatch.setattr(policy, "is_destructive", destructive)
    product = world.catalog.tools["shop/create_product"]
    assert decide(product, allowed_environments=["test"],
                  destructive_patterns=[]).decision == "needs_approval"
    _, events = await world.run({"request": "create a test product"}, "gate", destructive_tools=[])
    asked = [e for e in events if e["event"] == "approval_asked"]
    assert [c["tool_id"] for c in asked[0]["calls"]] == ["shop/create_product"]
    assert world.shop.count("products") == 0
    await world.run({"request": "create an order for account 123456"}, "setup")
    state, events = await world.run({"request": "cancel order 1"}, "no-gate")
    assert not [e for e in events if e["event"] == "approval_asked"]
    assert state["results"]["s1.core"]["status"] == "ok"


def test_the_dispatch_audit_flags_a_call_outside_its_environments() -> None:
    """The audit is independent of the executor's refusal: it sees what was really sent."""
    from stores.catalog.model import Catalog
    from stores.execution.executor import DispatchAudit

    catalog = Catalog()
    catalog.load_document(
        {"tools": [
            {"name": "create_order", "agent": "shop-prod", "environment": "prod",
             "side_effect": True, "input_schema": {"type": "object"}},
            {"name": "get_order", "agent": "legacy", "side_effect": False,
             "input_schema": {"type": "object"}},
        ]},
        source="audit",
    )
    audit = DispatchAudit()
    prod, untagged = catalog.tools["shop-prod/create_order"], catalog.tools["legacy/get_order"]
    audit.record(untagged, False, ["test"])
    audit.record(prod, True, None)  # no allow-list: nothing is outside
    assert audit.snapshot() == (2, 0)
    audit.record(prod, True, ["test"])
    assert audit.snapshot() == (3, 1) and "shop-prod/create_order" in audit.outside[0]
