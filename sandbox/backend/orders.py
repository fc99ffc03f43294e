"""Order tools of the sandbox: placing orders and moving them along the order status machine."""

from typing import Literal

from sandbox.backend.core import tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidTransitionError
from sandbox.models import (
    AddressId,
    CouponId,
    IdempotencyKey,
    Limit,
    Order,
    OrderHistory,
    OrderId,
    OrderList,
    OrderStatus,
    OrderStatusChange,
    ProductId,
    Quantity,
    SkuId,
    UserId,
)


class OrderTools(Rules):
    """Tools on orders: place, get, list, advance, cancel, show the status history."""

    @tool("order", "product", "user", side_effect=True)
    def create_order(
        self,
        user_id: UserId,
        product_id: ProductId,
        quantity: Quantity = 1,
        sku_id: SkuId | None = None,
        address_id: AddressId | None = None,
        coupon_id: CouponId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Order:
        """Place an order for a user and one product; it starts in status 'created'.

        Stock is taken at once; an optional coupon is redeemed on the order.

        Args:
            user_id: The buyer.
            product_id: The product; its default SKU unless sku_id is given.
            quantity: Units to order.
            sku_id: A specific SKU of the product.
            address_id: Delivery address; defaults to the user's default address.
            coupon_id: An issued coupon of the user to apply.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new order.
        """
        sku = self._resolve_sku(product_id, sku_id)
        order_id = self._place_order(user_id, [(sku, quantity)], address_id, coupon_id)
        return self._order_record(order_id)

    @tool("order", side_effect=False)
    def get_order(self, order_id: OrderId) -> Order:
        """Get an order by id, with its status, items and totals.

        Args:
            order_id: The order.

        Returns:
            The order.
        """
        return self._order_record(order_id)

    @tool("order", "user", side_effect=False)
    def list_orders(
        self,
        user_id: UserId | None = None,
        status: OrderStatus | None = None,
        limit: Limit = 20,
    ) -> OrderList:
        """List orders, newest first, optionally of one user or in one status.

        Args:
            user_id: Keep only this user's orders.
            status: Keep only orders in this status.
            limit: Maximum number of orders.

        Returns:
            The orders.
        """
        rows = self._all(
            "SELECT order_id FROM orders WHERE (? IS NULL OR user_id = ?) "
            "AND (? IS NULL OR status = ?) ORDER BY order_id DESC LIMIT ?",
            (user_id, user_id, status, status, limit),
        )
        return OrderList(orders=[self._order_record(row["order_id"]) for row in rows])

    @tool("order", "status", side_effect=True, destructive=True)
    def advance_order_status(
        self,
        order_id: OrderId,
        status: Literal["pending_payment", "paid", "shipped", "delivered", "cancelled"],
        note: str = "",
        idempotency_key: IdempotencyKey = None,
    ) -> Order:
        """Move an order along created → pending_payment → paid → shipped → delivered, or cancel it.

        A created order may go straight to 'paid' (a manual payment is recorded); cancelling
        returns a payment; refunds go through create_refund.

        Args:
            order_id: The order.
            status: The target status.
            note: Why, kept in the order's history.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The order in its new status.
        """
        order = self._require("orders", "order", order_id)
        current = order["status"]
        target: str = status  # callers outside MCP are not held to the enum
        if target == "refunded":
            raise InvalidTransitionError(
                f"order {order_id} cannot be moved to 'refunded' directly; use create_refund"
            )
        self._check_order_transition(order_id, current, status)
        if status == "cancelled":
            self._cancel_order(order_id, note)
        elif status == "paid":
            self._pay(order_id, "manual")
        else:
            self._record_order_status(order_id, current, status, note)
        return self._order_record(order_id)

    @tool("order", side_effect=True, destructive=True)
    def cancel_order(
        self,
        order_id: OrderId,
        reason: str = "",
        refund_payment: bool = True,
        idempotency_key: IdempotencyKey = None,
    ) -> Order:
        """Cancel an order that is created, pending payment or paid (not shipped: refund those).

        Stock is put back and a redeemed coupon is released; a paid order's payment is returned
        unless refund_payment is false (then refund it later with create_refund).

        Args:
            order_id: The order.
            reason: Why, kept in the order's history.
            refund_payment: Return a paid order's payment now; false keeps it for a refund
                as a separate step.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The cancelled order.
        """
        self._cancel_order(order_id, reason, refund_payment)
        return self._order_record(order_id)

    @tool("order", "status", side_effect=False)
    def get_order_history(self, order_id: OrderId) -> OrderHistory:
        """Show every status change of an order, oldest first.

        Args:
            order_id: The order.

        Returns:
            The order's current status and its history.
        """
        order = self._require("orders", "order", order_id)
        rows = self._all(
            "SELECT * FROM order_status_history WHERE order_id = ? ORDER BY history_id",
            (order_id,),
        )
        history = [
            OrderStatusChange(
                from_status=row["from_status"],
                to_status=row["to_status"],
                note=row["note"],
                changed_at=row["changed_at"],
            )
            for row in rows
        ]
        return OrderHistory(order_id=order_id, status=order["status"], history=history)
