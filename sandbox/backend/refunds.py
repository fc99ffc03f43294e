"""Refund tools of the sandbox: refunding paid orders and reading refunds."""

from sandbox.backend.core import _money, tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError, InvalidTransitionError
from sandbox.models import IdempotencyKey, Limit, Money, OrderId, Refund, RefundId, RefundList


class RefundTools(Rules):
    """Tools on refunds: refund an order, get a refund, list refunds."""

    @tool("refund", "order", "payment", side_effect=True, destructive=True)
    def create_refund(
        self,
        order_id: OrderId,
        amount: Money | None = None,
        reason: str = "",
        idempotency_key: IdempotencyKey = None,
    ) -> Refund:
        """Refund a paid, shipped or delivered order; the order moves to 'refunded'.

        Wallet payments go back to the wallet; an open delivery is cancelled.

        Args:
            order_id: The order.
            amount: Amount to refund; defaults to the full payment.
            reason: Why, kept on the refund.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The completed refund.
        """
        order = self._require("orders", "order", order_id)
        if order["status"] not in ("paid", "shipped", "delivered"):
            raise InvalidTransitionError(
                f"order {order_id} is '{order['status']}'; only 'paid', 'shipped' or "
                "'delivered' orders can be refunded"
            )
        payment = self._one(
            "SELECT * FROM payments WHERE order_id = ? AND status = 'succeeded' "
            "ORDER BY payment_id DESC LIMIT 1",
            (order_id,),
        )
        if payment is None:
            raise InvalidArgumentError(f"order {order_id} has no payment to refund")
        refund_amount = _money(payment["amount"] if amount is None else amount)
        if refund_amount <= 0 or refund_amount > payment["amount"]:
            raise InvalidArgumentError(
                f"refund amount must be above 0 and at most {payment['amount']:.2f}"
            )
        self._return_payment(payment, refund_amount)
        self._close_open_deliveries(order_id)
        refund_id = self._insert(
            "refunds",
            {
                "order_id": order_id,
                "payment_id": payment["payment_id"],
                "amount": refund_amount,
                "reason": reason,
                "status": "completed",
                "created_at": self._now(),
            },
        )
        self._record_order_status(order_id, order["status"], "refunded", f"refund {refund_id}")
        return self._refund_record(self._require("refunds", "refund", refund_id))

    @tool("refund", side_effect=False)
    def get_refund(self, refund_id: RefundId) -> Refund:
        """Get a refund by id.

        Args:
            refund_id: The refund.

        Returns:
            The refund.
        """
        return self._refund_record(self._require("refunds", "refund", refund_id))

    @tool("refund", "order", side_effect=False)
    def list_refunds(self, order_id: OrderId | None = None, limit: Limit = 20) -> RefundList:
        """List refunds, newest first, optionally of one order.

        Args:
            order_id: Keep only this order's refunds.
            limit: Maximum number of refunds.

        Returns:
            The refunds.
        """
        rows = self._all(
            "SELECT * FROM refunds WHERE (? IS NULL OR order_id = ?) "
            "ORDER BY refund_id DESC LIMIT ?",
            (order_id, order_id, limit),
        )
        return RefundList(refunds=[self._refund_record(row) for row in rows])
