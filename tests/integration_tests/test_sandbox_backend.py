"""The sandbox backend on a real SQLite file: status machines, idempotency, errors, catalog."""

import ast
import inspect
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.backend import ORDER_TRANSITIONS, Sandbox, tool_description, tool_methods
from sandbox.catalog import build_catalog
from sandbox.errors import (
    IdempotencyConflictError,
    InvalidArgumentError,
    InvalidTransitionError,
    NotFoundError,
)

pytestmark = pytest.mark.integration

SANDBOX_DIR = Path(__file__).resolve().parents[2] / "sandbox"


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    with Sandbox(tmp_path / "sandbox.db") as backend:
        yield backend


def new_order(sandbox: Sandbox, status: str = "created", method: str = "card") -> int:
    """Create an order for account 123456 and walk it to `status` along the happy path."""
    product = sandbox.create_product()
    user = sandbox.get_user_by_account(account_number="123456")
    order_id = sandbox.create_order(user_id=user["user_id"], product_id=product["product_id"])[
        "order_id"
    ]
    path = ["pending_payment", "paid", "shipped", "delivered"]
    if status == "created":
        return order_id
    for step in path[: path.index(status) + 1]:
        if step == "paid":
            sandbox.pay_order(order_id=order_id, method=method)
        else:
            sandbox.advance_order_status(order_id=order_id, status=step)
    assert sandbox.get_order(order_id=order_id)["status"] == status
    return order_id


# ----------------------------------------------------------------------- seed and demo chain


def test_seed_has_the_documented_accounts(sandbox: Sandbox) -> None:
    accounts = {u["account_number"]: u["user_id"] for u in sandbox.list_users()["users"]}
    assert accounts["123456"] == 1
    assert {"654321", "000042"} <= set(accounts)
    assert sandbox.get_user_by_account(account_number="42")["account_number"] == "000042"
    for table in ("users", "products", "skus", "orders", "coupons", "deliveries", "refunds"):
        assert sandbox.count_rows(table) >= 1


def test_reset_restores_the_seed(sandbox: Sandbox) -> None:
    before = {t: sandbox.count_rows(t) for t in ("products", "orders", "idempotency_keys")}
    new_order(sandbox, "paid")
    sandbox.create_product(idempotency_key="k")
    sandbox.reset()
    assert {t: sandbox.count_rows(t) for t in before} == before
    assert sandbox.create_product()["product_id"] == 7


def test_four_call_demo_chain(sandbox: Sandbox) -> None:
    product = sandbox.create_product()
    user = sandbox.get_user_by_account(account_number="123456")
    order = sandbox.create_order(
        user_id=user["user_id"], product_id=product["product_id"], quantity=1
    )
    advanced = sandbox.advance_order_status(order_id=order["order_id"], status="pending_payment")
    assert order["status"] == "created"
    assert advanced["status"] == "pending_payment"
    assert advanced["user_id"] == user["user_id"] == 1
    assert advanced["items"] == [
        {
            "product_id": product["product_id"],
            "sku_id": product["sku_id"],
            "quantity": 1,
            "unit_price": product["price"],
        }
    ]
    assert sandbox.get_product(product_id=product["product_id"])["stock"] == product["stock"] - 1


# ----------------------------------------------------------------------- order status machine


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ("created", "pending_payment"),
        ("created", "paid"),
        ("pending_payment", "paid"),
        ("paid", "shipped"),
        ("shipped", "delivered"),
        ("created", "cancelled"),
        ("pending_payment", "cancelled"),
        ("paid", "cancelled"),
    ],
)
def test_allowed_order_transitions(sandbox: Sandbox, start: str, target: str) -> None:
    order_id = new_order(sandbox, start)
    moved = sandbox.advance_order_status(order_id=order_id, status=target)  # type: ignore[arg-type]
    assert moved["status"] == target
    history = sandbox.get_order_history(order_id=order_id)["history"]
    assert (history[-1]["from_status"], history[-1]["to_status"]) == (start, target)


@pytest.mark.parametrize("start", ["paid", "shipped", "delivered"])
def test_refund_is_allowed_from_paid_shipped_delivered(sandbox: Sandbox, start: str) -> None:
    order_id = new_order(sandbox, start)
    refund = sandbox.create_refund(order_id=order_id, reason="test")
    assert refund["status"] == "completed"
    assert sandbox.get_order(order_id=order_id)["status"] == "refunded"
    assert sandbox.get_payment(payment_id=refund["payment_id"])["status"] == "refunded"
    assert sandbox.get_refund(refund_id=refund["refund_id"]) == refund


def test_every_transition_of_the_table_is_covered() -> None:
    allowed = {(a, b) for a, targets in ORDER_TRANSITIONS.items() for b in targets}
    assert allowed == {
        ("created", "pending_payment"),
        ("created", "paid"),
        ("created", "cancelled"),
        ("pending_payment", "paid"),
        ("pending_payment", "cancelled"),
        ("paid", "shipped"),
        ("paid", "cancelled"),
        ("paid", "refunded"),
        ("shipped", "delivered"),
        ("shipped", "refunded"),
        ("delivered", "refunded"),
    }


def test_forbidden_transition_names_the_allowed_ones(sandbox: Sandbox) -> None:
    order_id = new_order(sandbox, "paid")
    with pytest.raises(InvalidTransitionError) as error:
        sandbox.advance_order_status(order_id=order_id, status="pending_payment")
    assert str(error.value) == (
        f"order {order_id} is 'paid'; cannot move to 'pending_payment' "
        "(allowed: shipped, cancelled)"
    )


@pytest.mark.parametrize(
    ("start", "target"),
    [
        ("created", "shipped"),
        ("created", "delivered"),
        ("pending_payment", "delivered"),
        ("shipped", "cancelled"),
        ("delivered", "cancelled"),
        ("delivered", "shipped"),
    ],
)
def test_forbidden_order_transitions(sandbox: Sandbox, start: str, target: str) -> None:
    order_id = new_order(sandbox, start)
    with pytest.raises(InvalidTransitionError, match=f"order {order_id} is '{start}'"):
        sandbox.advance_order_status(order_id=order_id, status=target)  # type: ignore[arg-type]
    assert sandbox.get_order(order_id=order_id)["status"] == start


def test_final_statuses_and_refund_rules(sandbox: Sandbox) -> None:
    cancelled = new_order(sandbox)
    sandbox.cancel_order(order_id=cancelled, reason="test")
    with pytest.raises(InvalidTransitionError, match="a final status"):
        sandbox.advance_order_status(order_id=cancelled, status="pending_payment")
    with pytest.raises(InvalidTransitionError, match="a final status"):
        sandbox.cancel_order(order_id=cancelled)
    with pytest.raises(InvalidTransitionError, match="only 'paid', 'shipped' or 'delivered'"):
        sandbox.create_refund(order_id=new_order(sandbox, "pending_payment"))
    with pytest.raises(InvalidTransitionError, match="use create_refund"):
        sandbox.advance_order_status(order_id=new_order(sandbox, "paid"), status="refunded")  # type: ignore[arg-type]
    with pytest.raises(InvalidTransitionError, match="'paid'; cannot move to 'paid'"):
        sandbox.pay_order(order_id=new_order(sandbox, "paid"))


def test_cancel_returns_stock_coupon_and_wallet_money(sandbox: Sandbox) -> None:
    user = sandbox.get_user_by_account(account_number="123456")
    product = sandbox.create_product(price=30.0, stock=5)
    template = sandbox.create_coupon_template(value=5.0, min_spend=20.0)
    coupon = sandbox.issue_coupon(template_id=template["template_id"], user_id=user["user_id"])
    order = sandbox.create_order(
        user_id=user["user_id"],
        product_id=product["product_id"],
        quantity=2,
        coupon_id=coupon["coupon_id"],
    )
    assert (order["subtotal"], order["discount"], order["total"]) == (60.0, 5.0, 55.0)
    sandbox.pay_order(order_id=order["order_id"], method="wallet")
    assert (
        sandbox.get_user(user_id=user["user_id"])["wallet_balance"] == user["wallet_balance"] - 55
    )
    assert sandbox.get_inventory(product_id=product["product_id"])["total_quantity"] == 3
    sandbox.cancel_order(order_id=order["order_id"], reason="test")
    assert sandbox.get_inventory(product_id=product["product_id"])["total_quantity"] == 5
    assert sandbox.get_user(user_id=user["user_id"])["wallet_balance"] == user["wallet_balance"]
    issued = sandbox.list_user_coupons(user_id=user["user_id"], status="issued")["coupons"]
    assert coupon["coupon_id"] in {c["coupon_id"] for c in issued}


# ----------------------------------------------------------------------- idempotency


def test_same_key_same_arguments_replays_without_a_new_row(sandbox: Sandbox) -> None:
    before = sandbox.count_rows("products")
    first = sandbox.create_product(name="Keyed", idempotency_key="create-1")
    again = sandbox.create_product(name="Keyed", idempotency_key="create-1")
    assert again == first
    assert sandbox.count_rows("products") == before + 1


def test_same_key_other_arguments_is_an_error_naming_the_key(sandbox: Sandbox) -> None:
    sandbox.create_product(name="Keyed", idempotency_key="create-2")
    with pytest.raises(IdempotencyConflictError, match="'create-2'.*different arguments"):
        sandbox.create_product(name="Other", idempotency_key="create-2")
    with pytest.raises(IdempotencyConflictError, match="'create-2' was already used by"):
        sandbox.create_shop(idempotency_key="create-2")


def test_defaults_count_as_arguments(sandbox: Sandbox) -> None:
    first = sandbox.create_product(idempotency_key="k")
    assert sandbox.create_product(price=9.99, idempotency_key="k") == first


def test_replayed_transition_does_not_fail_again(sandbox: Sandbox) -> None:
    order_id = new_order(sandbox)
    first = sandbox.advance_order_status(
        order_id=order_id, status="pending_payment", idempotency_key="adv"
    )
    again = sandbox.advance_order_status(
        order_id=order_id, status="pending_payment", idempotency_key="adv"
    )
    assert again == first
    assert len(sandbox.get_order_history(order_id=order_id)["history"]) == 2


def test_a_failed_call_does_not_consume_its_key(sandbox: Sandbox) -> None:
    product = sandbox.create_product(stock=0)
    seeded = sandbox.count_rows("orders")
    call = {"user_id": 1, "product_id": product["product_id"], "idempotency_key": "order-1"}
    with pytest.raises(InvalidArgumentError, match="0 in stock"):
        sandbox.create_order(**call)  # type: ignore[arg-type]
    assert sandbox.count_rows("orders") == seeded  # the seed's orders only: rolled back
    sandbox.add_inventory(product_id=product["product_id"], quantity=3)
    assert sandbox.create_order(**call)["status"] == "created"  # type: ignore[arg-type]


# ----------------------------------------------------------------------- unknown ids


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("get_user", {"user_id": 999}, "user 999 not found"),
        ("get_user_by_account", {"account_number": "999999"}, "no user has account number"),
        ("get_order", {"order_id": 999}, "order 999 not found"),
        ("advance_order_status", {"order_id": 999, "status": "paid"}, "order 999 not found"),
        ("create_order", {"user_id": 999, "product_id": 1}, "user 999 not found"),
        ("create_order", {"user_id": 1, "product_id": 999}, "product 999 not found"),
        ("create_product", {"shop_id": 999}, "shop 999 not found"),
        ("issue_coupon", {"template_id": 999, "user_id": 1}, "template 999 not found"),
        ("redeem_coupon", {"coupon_id": 999, "order_id": 3}, "coupon 999 not found"),
        ("assign_rider", {"delivery_id": 999}, "delivery 999 not found"),
        ("assign_rider", {"delivery_id": 2, "rider_id": 999}, "rider 999 not found"),
        ("get_refund", {"refund_id": 999}, "refund 999 not found"),
        ("cancel_membership", {"membership_id": 999}, "membership 999 not found"),
    ],
)
def test_unknown_ids_are_clear_errors(
    sandbox: Sandbox, tool: str, arguments: dict[str, object], message: str
) -> None:
    with pytest.raises(NotFoundError, match=message):
        getattr(sandbox, tool)(**arguments)


# ----------------------------------------------------------------------- other flows


def test_delivery_flow_ships_and_delivers_the_order(sandbox: Sandbox) -> None:
    order_id = new_order(sandbox, "paid")
    delivery = sandbox.create_delivery(order_id=order_id)
    assert delivery["fee"] == 0.0  # account 123456 has an active gold membership
    assigned = sandbox.assign_rider(delivery_id=delivery["delivery_id"])
    assert assigned["status"] == "assigned"
    rider_id = assigned["rider_id"]
    with pytest.raises(InvalidTransitionError, match="cannot move to 'delivered'"):
        sandbox.advance_delivery_status(delivery_id=delivery["delivery_id"], status="delivered")
    for status in ("picked_up", "in_transit", "delivered"):
        sandbox.advance_delivery_status(delivery_id=delivery["delivery_id"], status=status)  # type: ignore[arg-type]
    assert sandbox.get_order(order_id=order_id)["status"] == "delivered"
    riders = {r["rider_id"]: r["status"] for r in sandbox.list_riders()["riders"]}
    assert riders[rider_id] == "available"
    review = sandbox.create_review(order_id=order_id, rating=4, comment="fine")
    assert review["user_id"] == 1
    with pytest.raises(InvalidArgumentError, match="already reviewed"):
        sandbox.create_review(order_id=order_id)


def test_delivery_needs_a_paid_order(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidTransitionError, match="pay it with pay_order"):
        sandbox.create_delivery(order_id=new_order(sandbox))


def test_cart_checkout(sandbox: Sandbox) -> None:
    user = sandbox.create_user(name="Cart tester", wallet_balance=10.0)
    assert len(user["account_number"]) == 6
    sandbox.create_address(user_id=user["user_id"])
    sandbox.add_to_cart(user_id=user["user_id"], product_id=1)
    cart = sandbox.add_to_cart(user_id=user["user_id"], product_id=1, quantity=2)
    assert [(i["product_id"], i["quantity"]) for i in cart["items"]] == [(1, 3)]
    order = sandbox.checkout_cart(user_id=user["user_id"])
    assert order["total"] == pytest.approx(29.97)
    assert sandbox.get_cart(user_id=user["user_id"])["items"] == []
    with pytest.raises(InvalidArgumentError, match="wallet balance of 10.00"):
        sandbox.pay_order(order_id=order["order_id"], method="wallet")
    sandbox.top_up_balance(user_id=user["user_id"], amount=20.0)
    assert sandbox.pay_order(order_id=order["order_id"], method="wallet")["amount"] == 29.97


def test_coupon_rules(sandbox: Sandbox) -> None:
    order = sandbox.get_order(order_id=3)  # Carol's seeded order, 'created', subtotal 7.25
    with pytest.raises(InvalidArgumentError, match="expired"):
        sandbox.redeem_coupon(coupon_id=4, order_id=order["order_id"])
    with pytest.raises(InvalidArgumentError, match="belongs to user 1"):
        sandbox.redeem_coupon(coupon_id=1, order_id=order["order_id"])
    template = sandbox.create_coupon_template(discount_type="percent", value=20.0)
    coupon = sandbox.issue_coupon(template_id=template["template_id"], user_id=3)
    redeemed = sandbox.redeem_coupon(coupon_id=coupon["coupon_id"], order_id=order["order_id"])
    assert (redeemed["discount"], redeemed["total"]) == (1.45, 5.8)
    with pytest.raises(InvalidTransitionError, match="only 'issued' coupons"):
        sandbox.revoke_coupon(coupon_id=coupon["coupon_id"])


def test_membership_lifecycle(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidArgumentError, match="already has active membership 1"):
        sandbox.create_membership(user_id=1)
    with pytest.raises(NotFoundError, match="no membership"):
        sandbox.get_membership(user_id=3)
    membership = sandbox.create_membership(user_id=3, tier="platinum", months=1)
    assert sandbox.get_membership(user_id=3) == membership
    assert sandbox.cancel_membership(membership_id=membership["membership_id"])["status"] == (
        "cancelled"
    )


# ----------------------------------------------------------------------- tool definitions


def test_tool_definitions() -> None:
    tools = tool_methods()
    assert len(tools) >= 40
    for info, method in tools:
        parameters = inspect.signature(method).parameters
        assert ("idempotency_key" in parameters) == info.side_effect, info.name
        description = tool_description(method)
        assert 10 < len(description) <= 300, info.name
        if not info.side_effect:
            assert not info.destructive, info.name


def test_sandbox_imports_none_of_the_zspace_layers() -> None:
    for path in SANDBOX_DIR.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not roots & {"graph", "nodes", "stores"}, f"{path} imports {roots}"


def test_committed_catalog_is_up_to_date() -> None:
    committed = json.loads((SANDBOX_DIR / "data" / "catalog.json").read_text(encoding="utf-8"))
    assert committed == build_catalog(), (
        "regenerate: python -m sandbox catalog --out sandbox/data/catalog.json"
    )


def test_near_misses_twin_every_writer() -> None:
    catalog = build_catalog()
    near = json.loads((SANDBOX_DIR / "data" / "near_misses.json").read_text(encoding="utf-8"))
    assert len(near["tools"]) >= 60
    agents = {agent["id"] for agent in near["agents"]}
    ids = [tool["id"] for tool in near["tools"]]
    assert len(ids) == len(set(ids))
    assert not set(ids) & {tool["id"] for tool in catalog["tools"]}
    for tool in near["tools"]:
        assert tool["id"] == f"{tool['agent']}/{tool['name']}"
        assert tool["agent"] in agents
        assert tool["environment"] in {"test", "staging", "prod"}
        assert tool["input_schema"]["type"] == "object"
    twins = {t["name"]: t for t in near["tools"] if t["agent"] == "sandbox-prod"}
    for tool in catalog["tools"]:
        if tool["side_effect"]:
            twin = twins.get(tool["name"])
            assert twin is not None, f"no production twin of {tool['name']}"
            assert twin["environment"] == "prod"
            assert twin["description"] == tool["description"]
            assert twin["input_schema"] == tool["input_schema"]
    lookalikes = [t for t in near["tools"] if t["environment"] == "test" and not t["side_effect"]]
    assert {"preview_order", "validate_coupon", "estimate_delivery_fee"} <= {
        t["name"] for t in lookalikes
    }
