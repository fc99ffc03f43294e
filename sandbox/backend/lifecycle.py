"""The sandbox's status machines in one place: orders, deliveries, refunds, payments.

The order life cycle::

    created ──→ pending_payment ──→ paid ──→ shipped ──→ delivered
       └──────────── paid ──────────↑ │         │            │
    created, pending_payment, paid ──→ cancelled (final)
    paid, shipped, delivered ──(refunds reach the full payment)──→ refunded (final)

Which tool makes which move:

- `create_order`, `checkout_cart`: a new order, 'created'.
- `advance_order_status`: any move of `ORDER_TRANSITIONS` except to 'refunded'; to 'paid' it
  records a 'manual' payment, to 'cancelled' it cancels as `cancel_order` does.
- `pay_order`: 'created' or 'pending_payment' → 'paid', with a payment in the method given.
- `advance_delivery_status`: a pick-up moves a 'paid' order to 'shipped', a delivery moves a
  'shipped' order to 'delivered'.
- `cancel_order`: 'created', 'pending_payment' or 'paid' → 'cancelled'. Stock goes back, a
  redeemed coupon is released, open deliveries are cancelled, and the payment of a paid order is
  returned at once unless `refund_payment` is false: then it stays with the shop until a refund
  (`create_refund`, or `request_refund` + `approve_refund`) returns it, as its own step.
  A shipped or delivered order cannot be cancelled: refund it instead.
- `create_refund`, `approve_refund`: money back from an order's payment, in full or in part.
  While the refunds stay below the payment the order keeps its status; once they reach it a
  'paid', 'shipped' or 'delivered' order moves to 'refunded'. A cancelled order whose payment
  was kept stays 'cancelled' when it is refunded.

A refund is 'requested' (by `request_refund`), then 'completed' (`approve_refund`; money moves)
or 'rejected' (`reject_refund`); `create_refund` completes one at once. A payment is
'succeeded', 'partially_refunded' or 'refunded'. Deliveries follow `DELIVERY_TRANSITIONS`.
"""

# Order status machine: from status -> statuses a tool may move it to.
ORDER_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "created": ("pending_payment", "paid", "cancelled"),
    "pending_payment": ("paid", "cancelled"),
    "paid": ("shipped", "cancelled", "refunded"),
    "shipped": ("delivered", "refunded"),
    "delivered": ("refunded",),
    "cancelled": (),
    "refunded": (),
}
# Orders that can be paid, and orders whose payment can be refunded (a cancelled order's only
# while its payment was kept).
PAYABLE_ORDER_STATUSES = ("created", "pending_payment")
REFUNDABLE_ORDER_STATUSES = ("paid", "shipped", "delivered", "cancelled")
# Delivery status machine. "assigned" is reached only through assign_rider.
DELIVERY_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "pending": ("assigned", "cancelled"),
    "assigned": ("picked_up", "cancelled"),
    "picked_up": ("in_transit", "failed"),
    "in_transit": ("delivered", "failed"),
    "delivered": (),
    "failed": (),
    "cancelled": (),
}
ACTIVE_DELIVERY_STATUSES = ("pending", "assigned", "picked_up", "in_transit")
# Refund status machine: approve_refund completes a request, reject_refund rejects it.
REFUND_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "requested": ("completed", "rejected"),
    "completed": (),
    "rejected": (),
}


def order_transition_error(order_id: int, current: str, target: str) -> str | None:
    """Return why an order cannot move from `current` to `target`, or None when it can.

    The message says what to do instead where there is something to do.
    """
    allowed = ORDER_TRANSITIONS[current]
    if target in allowed:
        return None
    if target == "cancelled" and current in ("shipped", "delivered"):
        return (
            f"order {order_id} is '{current}'; it can't be cancelled: refund it instead "
            "with create_refund"
        )
    if not allowed:
        return f"order {order_id} is '{current}', a final status; cannot move to '{target}'"
    shown = ", ".join(status for status in allowed if status != "refunded") or "none"
    return f"order {order_id} is '{current}'; cannot move to '{target}' (allowed: {shown})"


def refund_transition_error(refund_id: int, current: str, target: str) -> str | None:
    """Return why a refund cannot move from `current` to `target`, or None when it can."""
    if target in REFUND_TRANSITIONS[current]:
        return None
    verb = {"completed": "approved", "rejected": "rejected"}.get(target, f"moved to '{target}'")
    return (
        f"refund {refund_id} is '{current}'; only 'requested' refunds can be {verb} "
        "(create a new one with request_refund)"
    )
