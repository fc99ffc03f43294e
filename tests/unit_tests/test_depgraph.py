import json
from pathlib import Path
from typing import Any

import pytest

from stores.catalog.depgraph import (
    FeedbackStore,
    NoChainFound,
    ToolDependencyGraph,
    split_words,
    success_rate,
)
from stores.catalog.model import ToolSpec


def spec(
    name: str,
    inputs: dict[str, str],
    required: list[str],
    outputs: dict[str, Any] | None,
    side_effect: bool,
    agent: str = "shop",
    entity_tags: list[str] | None = None,
) -> ToolSpec:
    return ToolSpec(
        id=f"{agent}/{name}",
        name=name,
        agent=agent,
        input_schema={
            "type": "object",
            "properties": {param: {"type": kind} for param, kind in inputs.items()},
            "required": required,
        },
        output_schema=None if outputs is None else {"type": "object", "properties": outputs},
        side_effect=side_effect,
        entity_tags=entity_tags or [],
    )


def shop_tools() -> list[ToolSpec]:
    return [
        spec("create_product", {"name": "string", "price": "number"}, [],
             {"product_id": {"type": "integer"}, "name": {"type": "string"}}, True),
        spec("get_user_by_account", {"account_number": "string"}, ["account_number"],
             {"user_id": {"type": "integer"}, "name": {"type": "string"}}, False),
        spec("create_order", {"user_id": "integer", "product_id": "integer"},
             ["user_id", "product_id"],
             {"order_id": {"type": "integer"}, "status": {"type": "string"}}, True),
        spec("advance_order_status", {"order_id": "integer", "status": "string"},
             ["order_id", "status"], {"status": {"type": "string"}}, True),
        spec("send_newsletter", {"user_id": "integer"}, ["user_id"], None, True),
    ]


def test_names_split_and_normalize() -> None:
    assert split_words("getUserByID") == ["get", "user", "by", "id"]
    assert split_words("order.id") == ["order", "id"]
    assert success_rate(0, 0) == 0.5 and success_rate(3, 1) == pytest.approx(4 / 6)


def test_edges_from_matching_names() -> None:
    graph = ToolDependencyGraph.build(shop_tools())
    pairs = {(e.source, e.output_field, e.target, e.param) for e in graph.edges}
    assert ("shop/get_user_by_account", "user_id", "shop/create_order", "user_id") in pairs
    assert ("shop/create_product", "product_id", "shop/create_order", "product_id") in pairs
    assert ("shop/create_order", "order_id", "shop/advance_order_status", "order_id") in pairs
    # Generic names make no edges; tools without an output schema have no outgoing edges.
    assert not any(e.param == "status" for e in graph.edges)
    assert not any(e.source == "shop/send_newsletter" for e in graph.edges)
    json.dumps([e.to_dict() for e in graph.edges])


def test_entity_qualified_ids_and_nested_fields() -> None:
    tools = [
        spec("create_user", {"name": "string"}, ["name"], {"id": {"type": "string"}}, True),
        spec("get_cart", {"cart_no": "string"}, ["cart_no"],
             {"order": {"type": "object", "properties": {"id": {"type": "integer"}}}}, False),
        spec("delete_user", {"user_id": "string"}, ["user_id"], None, True),
        spec("get_order", {"orderId": "integer"}, ["orderId"], None, False),
        spec("get_cart_total", {"cart_number": "string"}, ["cart_number"], None, False),
        spec("list_orders", {"user_id": "integer"}, [], {"id": {"type": "array"}}, False),
    ]
    graph = ToolDependencyGraph.build(tools)
    user_edges = graph.producers("shop/delete_user", "user_id")
    assert [(e.source, e.output_field, e.match) for e in user_edges] == [
        ("shop/create_user", "id", "entity")
    ]
    order_edges = graph.producers("shop/get_order", "orderId")
    # list_orders' "id" is an array: incompatible with an integer order id.
    assert [(e.source, e.output_field) for e in order_edges] == [("shop/get_cart", "order.id")]
    assert graph.producers("shop/get_cart_total", "cart_number") == []


def test_synonyms_connect_different_words() -> None:
    tools = [
        spec("find_client", {"email": "string"}, ["email"], {"client_id": {"type": "integer"}},
             False),
        spec("open_ticket", {"customer_id": "integer"}, ["customer_id"], None, True),
    ]
    assert ToolDependencyGraph.build(tools).producers("shop/open_ticket", "customer_id") == []
    synonyms = {"client": "customer"}
    graph = ToolDependencyGraph.build(tools, synonyms=lambda w: synonyms.get(w, w))
    [edge] = graph.producers("shop/open_ticket", "customer_id")
    assert edge.source == "shop/find_client" and edge.match == "synonym" and edge.quality < 1


def test_plan_create_order_from_an_account_number() -> None:
    graph = ToolDependencyGraph.build(shop_tools())
    steps = graph.plan_inputs("shop/create_order", available={"account_number"})
    by_tool = {step.tool_id: step for step in steps}
    assert set(by_tool) == {"shop/get_user_by_account", "shop/create_product"}
    user_step = by_tool["shop/get_user_by_account"]
    assert user_step.user_inputs == ("account_number",)
    assert [(f.output_field, f.target, f.param) for f in user_step.feeds] == [
        ("user_id", "shop/create_order", "user_id")
    ]
    assert by_tool["shop/create_product"].feeds[0].param == "product_id"
    json.dumps([step.to_dict() for step in steps])


def test_plan_orders_deeper_chains_first_and_reports_missing_inputs() -> None:
    graph = ToolDependencyGraph.build(shop_tools())
    steps = graph.plan_inputs("shop/advance_order_status", available={"account_number", "status"})
    order = [step.tool_id for step in steps]
    assert order.index("shop/get_user_by_account") < order.index("shop/create_order")
    assert order.index("shop/create_product") < order.index("shop/create_order")
    assert order[-1] == "shop/create_order"
    assert graph.plan_inputs("shop/get_user_by_account", {"account_number"}) == []
    with pytest.raises(NoChainFound) as raised:
        graph.plan_inputs("shop/create_order", available=set())
    assert raised.value.missing == ["user_id"]
    with pytest.raises(NoChainFound):
        graph.plan_inputs("shop/advance_order_status", {"account_number", "status"}, max_depth=1)


def test_plan_avoids_cycles() -> None:
    tools = [
        spec("a", {"b_id": "string"}, ["b_id"], {"a_id": {"type": "string"}}, False),
        spec("b", {"a_id": "string"}, ["a_id"], {"b_id": {"type": "string"}}, False),
        spec("c", {"a_id": "string"}, ["a_id"], None, False),
    ]
    graph = ToolDependencyGraph.build(tools)
    with pytest.raises(NoChainFound):
        graph.plan_inputs("shop/c", available=set())
    steps = graph.plan_inputs("shop/c", available={"b_id"})
    assert [step.tool_id for step in steps] == ["shop/a"]


def two_user_lookups() -> list[ToolSpec]:
    return [
        spec("get_user_by_account", {"account_number": "string"}, ["account_number"],
             {"user_id": {"type": "integer"}}, False),
        spec("search_users", {"account_number": "string"}, ["account_number"],
             {"user_id": {"type": "integer"}}, False, agent="crm"),
        spec("create_order", {"user_id": "integer"}, ["user_id"], None, True),
    ]


def test_feedback_reorders_competing_producers_and_persists(tmp_path: Path) -> None:
    path = tmp_path / "feedback.sqlite"
    store = FeedbackStore(path)
    graph = ToolDependencyGraph.build(two_user_lookups(), feedback=store)
    first, second = graph.producers("shop/create_order", "user_id")
    assert first.source == "crm/search_users"  # tie broken by id before any feedback
    for _ in range(3):
        graph.record_feedback(first, success=False)
    graph.record_feedback(second, success=True)
    ranked = graph.producers("shop/create_order", "user_id")
    assert [e.source for e in ranked] == ["shop/get_user_by_account", "crm/search_users"]
    plan = graph.plan_inputs("shop/create_order", {"account_number"})
    assert [step.tool_id for step in plan] == ["shop/get_user_by_account"]
    store.close()

    reopened = FeedbackStore(path)
    assert reopened.counts(first.key) == (0, 3)
    graph_again = ToolDependencyGraph.build(two_user_lookups(), feedback=reopened)
    assert graph_again.producers("shop/create_order", "user_id")[0].source == (
        "shop/get_user_by_account"
    )
    reopened.close()


def test_lookups_rank_before_writes_at_equal_quality() -> None:
    tools = [
        spec("create_user", {}, [], {"user_id": {"type": "integer"}}, True, agent="a"),
        spec("find_user", {}, [], {"user_id": {"type": "integer"}}, False, agent="b"),
        spec("delete_user", {"user_id": "integer"}, ["user_id"], None, True, agent="c"),
    ]
    graph = ToolDependencyGraph.build(tools)
    assert graph.producers("c/delete_user", "user_id")[0].source == "b/find_user"
    assert graph.plan_inputs("c/delete_user", set())[0].tool_id == "b/find_user"
