"""The operations testers asked for (issue 17), their legal and illegal transitions, and a seed
from which every tool can be exercised."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox.backend import REFUND_TRANSITIONS, Sandbox, tool_methods
from sandbox.catalog import build_catalog
from sandbox.clock import SandboxClock
from sandbox.errors import InvalidArgumentError, InvalidTransitionError, NotFoundError

pytestmark = pytest.mark.integration

NOW = "2029-11-24T09:00:00Z"

# One call per tool that succeeds on a freshly reset sandbox: the seed holds a state for each.
SEED_CALLS: dict[str, dict[str, Any]] = {
    "create_user": {},
    "get_user": {"user_id": 1},
    "get_user_by_account": {"account_number": "123456"},
    "list_users": {"status": "frozen"},
    "top_up_balance": {"user_id": 3, "amount": 20.0},
    "create_address": {"user_id": 3},
    "list_addresses": {"user_id": 1},
    "create_shop": {"name": "Corner shop"},
    "get_shop": {"shop_id": 1},
    "list_shops": {"city": "Springfield"},
    "delete_shop": {"shop_id": 4},
    "create_product": {},
    "get_product": {"product_id": 1},
    "list_products": {"query": "milk"},
    "update_product_price": {"product_id": 2, "price": 17.5},
    "archive_product": {"product_id": 4},
    "create_sku": {"product_id": 2, "attributes": "size=XL"},
    "list_skus": {"product_id": 2},
    "add_inventory": {"product_id": 1, "quantity": 5},
    "set_inventory": {"product_id": 3, "quantity": 0},
    "get_inventory": {"product_id": 2},
    "add_to_cart": {"user_id": 1, "product_id": 1},
    "get_cart": {"user_id": 3},
    "clear_cart": {"user_id": 3},
    "checkout_cart": {"user_id": 3},
    "create_order": {"user_id": 1, "product_id": 1},
    "get_order": {"order_id": 1},
    "list_orders": {"status": "paid"},
    "advance_order_status": {"order_id": 3, "status": "paid"},
    "cancel_order": {"order_id": 8, "refund_payment": False},
    "get_order_history": {"order_id": 9},
    "pay_order": {"order_id": 3, "method": "wechat_pay"},
    "get_payment": {"payment_id": 7},
    "list_payments": {"order_id": 9},
    "create_coupon_template": {},
    "list_coupon_templates": {},
    "issue_coupon": {"template_id": 3, "user_id": 2},
    "list_user_coupons": {"user_id": 1, "status": "issued"},
    "redeem_coupon": {"coupon_id": 2},  # on an order of Alice's (SETUP)
    "revoke_coupon": {"coupon_id": 2},
    "create_rider": {},
    "list_riders": {"status": "available"},
    "create_delivery": {"order_id": 8},
    "assign_rider": {"delivery_id": 2},
    "advance_delivery_status": {"delivery_id": 4, "status": "delivered"},
    "get_delivery": {"delivery_id": 4},
    "get_delivery_by_order": {"order_id": 7},
    "create_review": {"order_id": 6, "rating": 4},
    "list_reviews": {"product_id": 1},
    "delete_review": {"review_id": 1},
    "create_refund": {"order_id": 8, "amount": 10.0},
    "request_refund": {"order_id": 6, "amount": 5.0},
    "approve_refund": {"refund_id": 3},
    "reject_refund": {"refund_id": 3},
    "get_refund": {"refund_id": 3},
    "list_refunds": {"status": "requested"},
    "create_membership": {"user_id": 3, "days": 10},
    "extend_membership": {"membership_id": 1, "months": 1},
    "get_membership": {"user_id": 1},
    "cancel_membership": {"membership_id": 1},
}
# redeem_coupon needs a coupon of the order's user: Alice (user 1) places no unpaid order in the
# seed, so it runs on an order she creates first; every other call runs on the seed as it is.
SETUP: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "redeem_coupon": [("create_order", {"user_id": 1, "product_id": 2})],
}


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    with Sandbox(tmp_path / "sandbox.db", clock=SandboxClock.fixed(NOW)) as backend:
        yield backend


def test_every_tool_runs_on_the_seed(sandbox: Sandbox) -> None:
    names = [info.name for info, _ in tool_methods()]
    assert sorted(SEED_CALLS) == sorted(names)
    for name in names:
        sandbox.reset()
        arguments = dict(SEED_CALLS[name])
        for setup, setup_arguments in SETUP.get(name, []):
            created = getattr(sandbox, setup)(**setup_arguments)
            arguments["order_id"] = created["order_id"]
        assert getattr(sandbox, name)(**arguments), name


def test_the_new_tools_are_in_the_catalog_with_full_schemas() -> None:
    tools = {tool["name"]: tool for tool in build_catalog()["tools"]}
    for name in (
        "delete_shop",
        "delete_review",
        "set_inventory",
        "get_delivery_by_order",
        "request_refund",
        "approve_refund",
        "reject_refund",
        "extend_membership",
    ):
        tool = tools[name]
        schema = tool["input_schema"]
        for argument, spec in schema["properties"].items():
            assert spec.get("description"), f"{name}.{argument} has no description"
        assert tool["output_schema"]["type"] == "object"
        assert tool["side_effect"] == ("idempotency_key" in schema["properties"])
    method = tools["pay_order"]["input_schema"]["properties"]["method"]
    assert method["enum"] == ["card", "wallet", "cash", "alipay", "wechat_pay"]
    cancel = tools["cancel_order"]["input_schema"]["properties"]["refund_payment"]
    assert cancel["default"] is True and cancel["type"] == "boolean"


# ----------------------------------------------------------------------- paying


@pytest.mark.parametrize("method", ["alipay", "wechat_pay", "card", "cash"])
def test_pay_by_any_method_moves_created_straight_to_paid(sandbox: Sandbox, method: str) -> None:
    payment = sandbox.pay_order(order_id=3, method=method)  # type: ignore[arg-type]
    assert (payment["method"], payment["amount"], payment["status"]) == (method, 7.25, "succeeded")
    assert payment["refunded_amount"] == 0.0
    history = sandbox.get_order_history(order_id=3)
    assert history["status"] == "paid"
    assert [(h["from_status"], h["to_status"]) for h in history["history"]] == [
        (None, "created"),
        ("created", "paid"),
    ]


def test_advance_created_to_paid_records_a_manual_payment(sandbox: Sandbox) -> None:
    order = sandbox.advance_order_status(order_id=3, status="paid")
    assert order["status"] == "paid"
    [payment] = sandbox.list_payments(order_id=3)["payments"]
    assert (payment["method"], payment["amount"]) == ("manual", 7.25)
    with pytest.raises(InvalidTransitionError, match="'paid'; cannot move to 'paid'"):
        sandbox.advance_order_status(order_id=3, status="paid")


# ----------------------------------------------------------------------- cancelling


def test_cancel_a_paid_order_without_refund_then_refund_as_its_own_step(sandbox: Sandbox) -> None:
    balance = sandbox.get_user(user_id=2)["wallet_balance"]
    cancelled = sandbox.cancel_order(order_id=2, reason="out of stock", refund_payment=False)
    assert cancelled["status"] == "cancelled"
    [payment] = sandbox.list_payments(order_id=2)["payments"]
    assert payment["status"] == "succeeded"  # the money is still with the shop
    assert sandbox.get_user(user_id=2)["wallet_balance"] == balance
    assert sandbox.get_delivery(delivery_id=2)["status"] == "cancelled"
    refund = sandbox.create_refund(order_id=2, reason="cancelled order")
    assert (refund["amount"], refund["status"]) == (9.0, "completed")
    assert sandbox.get_user(user_id=2)["wallet_balance"] == balance + 9.0
    assert sandbox.get_order(order_id=2)["status"] == "cancelled"  # a final status stays
    assert sandbox.get_payment(payment_id=payment["payment_id"])["status"] == "refunded"
    with pytest.raises(InvalidArgumentError, match="already returned; nothing is left"):
        sandbox.create_refund(order_id=2)


def test_cancel_with_refund_returns_the_payment_at_once(sandbox: Sandbox) -> None:
    sandbox.cancel_order(order_id=8)
    assert sandbox.get_payment(payment_id=6)["status"] == "refunded"
    with pytest.raises(InvalidArgumentError, match="nothing is left to refund"):
        sandbox.create_refund(order_id=8)


@pytest.mark.parametrize(("order_id", "status"), [(7, "shipped"), (6, "delivered")])
def test_a_shipped_or_delivered_order_cannot_be_cancelled(
    sandbox: Sandbox, order_id: int, status: str
) -> None:
    message = f"order {order_id} is '{status}'; it can't be cancelled: refund it instead"
    with pytest.raises(InvalidTransitionError, match=message):
        sandbox.cancel_order(order_id=order_id)
    with pytest.raises(InvalidTransitionError, match=message):
        sandbox.advance_order_status(order_id=order_id, status="cancelled")
    assert sandbox.get_order(order_id=order_id)["status"] == status


# ----------------------------------------------------------------------- refunds


def test_partial_refunds_keep_the_order_until_the_payment_is_used_up(sandbox: Sandbox) -> None:
    first = sandbox.create_refund(order_id=8, amount=10.0, reason="late")
    assert first["amount"] == 10.0
    assert sandbox.get_order(order_id=8)["status"] == "paid"
    payment = sandbox.get_payment(payment_id=6)
    assert (payment["status"], payment["refunded_amount"]) == ("partially_refunded", 10.0)
    with pytest.raises(InvalidArgumentError, match="at most 39.95 \\(what is left of payment 6"):
        sandbox.create_refund(order_id=8, amount=40.0)
    rest = sandbox.create_refund(order_id=8)  # defaults to what is left
    assert rest["amount"] == 39.95
    assert sandbox.get_order(order_id=8)["status"] == "refunded"
    assert sandbox.get_payment(payment_id=6)["status"] == "refunded"
    with pytest.raises(InvalidTransitionError, match="refunded in full already"):
        sandbox.create_refund(order_id=8, amount=1.0)


def test_refunds_of_several_sizes_from_the_seed(sandbox: Sandbox) -> None:
    sizes = {p: sandbox.get_payment(payment_id=p)["amount"] for p in (2, 4, 5, 6, 7)}
    assert sizes == {2: 9.0, 4: 15.0, 5: 14.5, 6: 49.95, 7: 120.0}
    for order_id in (2, 6, 7):  # paid, delivered, shipped
        sandbox.create_refund(order_id=order_id)
        assert sandbox.get_order(order_id=order_id)["status"] == "refunded"
    assert sandbox.get_delivery(delivery_id=4)["status"] == "in_transit"  # already on its way


def test_request_approve_and_reject_refunds(sandbox: Sandbox) -> None:
    assert [r["refund_id"] for r in sandbox.list_refunds(status="requested")["refunds"]] == [3]
    approved = sandbox.approve_refund(refund_id=3)
    assert (approved["status"], approved["amount"]) == ("completed", 30.0)
    payment = sandbox.get_payment(payment_id=7)
    assert (payment["status"], payment["refunded_amount"]) == ("partially_refunded", 50.0)
    assert sandbox.get_order(order_id=9)["status"] == "delivered"
    with pytest.raises(InvalidTransitionError, match="only 'requested' refunds can be approved"):
        sandbox.approve_refund(refund_id=3)
    with pytest.raises(InvalidTransitionError, match="only 'requested' refunds can be rejected"):
        sandbox.reject_refund(refund_id=3)

    asked = sandbox.request_refund(order_id=9, amount=60.0, reason="all of it")
    assert asked["status"] == "requested"
    with pytest.raises(InvalidArgumentError, match="at most 70.00"):
        sandbox.request_refund(order_id=9, amount=80.0)
    sandbox.create_refund(order_id=9, amount=20.0)  # meanwhile, 50.00 are left
    with pytest.raises(InvalidArgumentError, match="asks for 60.00 but only 50.00"):
        sandbox.approve_refund(refund_id=asked["refund_id"])
    rejected = sandbox.reject_refund(refund_id=asked["refund_id"], reason="too much")
    assert rejected["status"] == "rejected"
    assert rejected["reason"] == "all of it (rejected: too much)"
    assert sandbox.get_payment(payment_id=7)["refunded_amount"] == 70.0  # no money moved

    last = sandbox.request_refund(order_id=9)
    assert last["amount"] == 50.0
    sandbox.approve_refund(refund_id=last["refund_id"])
    assert sandbox.get_order(order_id=9)["status"] == "refunded"


@pytest.mark.parametrize(("order_id", "status"), [(3, "created"), (5, "refunded"), (4, "cancelled")])
def test_refunds_need_a_payment_to_return(sandbox: Sandbox, order_id: int, status: str) -> None:
    for tool in (sandbox.create_refund, sandbox.request_refund):
        with pytest.raises((InvalidTransitionError, InvalidArgumentError), match=f"{order_id}"):
            tool(order_id=order_id)
    assert sandbox.get_order(order_id=order_id)["status"] == status


def test_refund_status_machine() -> None:
    assert REFUND_TRANSITIONS == {
        "requested": ("completed", "rejected"),
        "completed": (),
        "rejected": (),
    }


# ----------------------------------------------------------------------- deliveries and reviews


def test_look_up_a_delivery_by_its_order(sandbox: Sandbox) -> None:
    assert sandbox.get_delivery_by_order(order_id=7)["delivery_id"] == 4
    assert sandbox.get_delivery_by_order(order_id=2)["status"] == "pending"
    with pytest.raises(NotFoundError, match="order 8 has no delivery; book one with"):
        sandbox.get_delivery_by_order(order_id=8)
    booked = sandbox.create_delivery(order_id=8)
    assert sandbox.get_delivery_by_order(order_id=8) == booked
    with pytest.raises(InvalidArgumentError, match="already has delivery 4"):
        sandbox.create_delivery(order_id=7)
    with pytest.raises(NotFoundError, match="order 999 not found"):
        sandbox.get_delivery_by_order(order_id=999)


def test_the_seeded_delivery_in_transit_delivers_its_order(sandbox: Sandbox) -> None:
    sandbox.advance_delivery_status(delivery_id=4, status="delivered")
    assert sandbox.get_order(order_id=7)["status"] == "delivered"
    riders = {r["rider_id"]: r["status"] for r in sandbox.list_riders()["riders"]}
    assert riders[4] == "available"
    assert sandbox.create_review(order_id=7, rating=3)["product_id"] == 5


def test_review_and_delete_a_review(sandbox: Sandbox) -> None:
    for order_id in (6, 9):  # delivered, not reviewed yet
        assert sandbox.create_review(order_id=order_id, rating=5)["order_id"] == order_id
    with pytest.raises(InvalidTransitionError, match="only delivered orders can be reviewed"):
        sandbox.create_review(order_id=8)
    with pytest.raises(InvalidArgumentError, match="already reviewed"):
        sandbox.create_review(order_id=1)
    deleted = sandbox.delete_review(review_id=1)
    assert (deleted["order_id"], deleted["rating"]) == (1, 5)
    assert sandbox.list_reviews(product_id=1)["reviews"] == []
    with pytest.raises(NotFoundError, match="review 1 not found"):
        sandbox.delete_review(review_id=1)
    assert sandbox.create_review(order_id=1, rating=2)["product_id"] == 1  # again, after delete


# ----------------------------------------------------------------------- shops and stock


def test_delete_a_shop(sandbox: Sandbox) -> None:
    assert sandbox.delete_shop(shop_id=4)["name"] == "Pop-up Stall"
    with pytest.raises(NotFoundError, match="shop 4 not found"):
        sandbox.get_shop(shop_id=4)
    with pytest.raises(NotFoundError, match="shop 4 not found"):
        sandbox.delete_shop(shop_id=4)
    shop = sandbox.create_shop(name="Short-lived")
    product = sandbox.create_product(shop_id=shop["shop_id"])
    sandbox.create_sku(product_id=product["product_id"], stock=3)
    sandbox.add_to_cart(user_id=2, product_id=product["product_id"])
    sandbox.delete_shop(shop_id=shop["shop_id"])
    with pytest.raises(NotFoundError):
        sandbox.get_product(product_id=product["product_id"])
    assert sandbox.get_cart(user_id=2)["items"] == []


def test_a_shop_with_orders_cannot_be_deleted(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidArgumentError, match=r"shop 1 has orders \(1, 4, 5, 6, 8, \.\.\.\)"):
        sandbox.delete_shop(shop_id=1)
    assert sandbox.get_shop(shop_id=1)["status"] == "open"


def test_set_stock_to_an_exact_number_including_zero(sandbox: Sandbox) -> None:
    level = sandbox.set_inventory(product_id=1, quantity=0)
    assert (level["sku_id"], level["quantity"]) == (1, 0)
    with pytest.raises(InvalidArgumentError, match="0 in stock"):
        sandbox.create_order(user_id=1, product_id=1)
    assert sandbox.set_inventory(sku_id=3, quantity=7)["quantity"] == 7
    assert sandbox.set_inventory(sku_id=3, quantity=7)["quantity"] == 7  # same effect again
    assert sandbox.get_inventory(product_id=2)["total_quantity"] == 40 + 7
    with pytest.raises(InvalidArgumentError, match="sku 3 belongs to product 2"):
        sandbox.set_inventory(sku_id=3, product_id=1, quantity=1)
    with pytest.raises(InvalidArgumentError, match="cannot be negative"):
        sandbox.set_inventory(sku_id=3, quantity=-1)
    with pytest.raises(InvalidArgumentError, match="pass sku_id or product_id"):
        sandbox.set_inventory(quantity=1)


# ----------------------------------------------------------------------- memberships


def test_memberships_for_days_months_and_extended(sandbox: Sandbox) -> None:
    short = sandbox.create_membership(user_id=3, tier="silver", days=10)
    assert (short["started_at"], short["expires_at"]) == (NOW, "2029-12-04T09:00:00Z")
    both = sandbox.create_membership(user_id=4, months=1, days=15)
    assert both["expires_at"] == "2030-01-08T09:00:00Z"
    default = sandbox.create_membership(user_id=2)  # Bob's silver one expired long ago
    assert default["expires_at"] == "2030-11-19T09:00:00Z"  # 12 months of 30 days
    extended = sandbox.extend_membership(membership_id=short["membership_id"], months=2)
    assert extended["expires_at"] == "2030-02-02T09:00:00Z"
    again = sandbox.extend_membership(membership_id=short["membership_id"], days=5)
    assert again["expires_at"] == "2030-02-07T09:00:00Z"
    one_month = sandbox.extend_membership(membership_id=both["membership_id"])
    assert one_month["expires_at"] == "2030-02-07T09:00:00Z"


def test_only_active_memberships_are_extended(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidTransitionError, match="membership 2 is 'expired'.*create_membership"):
        sandbox.extend_membership(membership_id=2, months=1)
    sandbox.cancel_membership(membership_id=1)
    with pytest.raises(InvalidTransitionError, match="membership 1 is 'cancelled'"):
        sandbox.extend_membership(membership_id=1, days=3)
    with pytest.raises(NotFoundError, match="membership 999 not found"):
        sandbox.extend_membership(membership_id=999)
    sandbox.create_membership(user_id=3)
    with pytest.raises(InvalidArgumentError, match="extend it with extend_membership"):
        sandbox.create_membership(user_id=3)


# ----------------------------------------------------------------------- idempotent writers


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("delete_shop", {"shop_id": 4}),
        ("delete_review", {"review_id": 1}),
        ("set_inventory", {"product_id": 1, "quantity": 0}),
        ("request_refund", {"order_id": 8, "amount": 5.0}),
        ("approve_refund", {"refund_id": 3}),
        ("reject_refund", {"refund_id": 3}),
        ("extend_membership", {"membership_id": 1, "days": 3}),
        ("create_refund", {"order_id": 8, "amount": 5.0}),
        ("cancel_order", {"order_id": 8, "refund_payment": False}),
        ("pay_order", {"order_id": 3, "method": "alipay"}),
        ("create_membership", {"user_id": 3, "days": 3}),
    ],
)
def test_a_retried_writer_replays_instead_of_failing(
    sandbox: Sandbox, tool: str, arguments: dict[str, Any]
) -> None:
    first = getattr(sandbox, tool)(**arguments, idempotency_key=f"retry-{tool}")
    assert getattr(sandbox, tool)(**arguments, idempotency_key=f"retry-{tool}") == first


def test_only_an_active_membership_can_be_extended_or_cancelled(sandbox: Sandbox) -> None:
    sandbox.cancel_membership(membership_id=1)
    with pytest.raises(InvalidTransitionError) as extended:
        sandbox.extend_membership(membership_id=1, months=1)
    assert str(extended.value) == (
        "membership 1 is 'cancelled'; only active ones can be extended: start a new one with "
        "create_membership"
    )
    with pytest.raises(InvalidTransitionError) as cancelled:
        sandbox.cancel_membership(membership_id=1)
    assert str(cancelled.value) == "membership 1 is 'cancelled'; only active ones can be cancelled"
