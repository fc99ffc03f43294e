"""Refund tools of the sandbox: full and partial refunds, refund requests and their approval."""

import sqlite3

from sandbox.backend.core import _money, tool
from sandbox.backend.lifecycle import REFUNDABLE_ORDER_STATUSES, refund_transition_error
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError, InvalidTransitionError
from sandbox.models import (
    IdempotencyKey,
    Limit,
    Money,
    OrderId,
    Refund,
    RefundId,
    RefundList,
    RefundStatus,
)

# Below a cent, what is left of a payment is nothing.
_CENT = 0.005


class RefundTools(Rules):
    """Tools on refunds: refund at once, request / approve / reject, get and list refunds."""

    def _refundable_payment(self, order_id: int) -> tuple[sqlite3.Row, sqlite3.Row, float]:
        """Return the order, the payment a refund comes from and what is left of it."""
        order = self._require("orders", "order", order_id)
        status = order["status"]
        if status == "refunded":
            raise InvalidTransitionError(
                f"order {order_id} is 'refunded'; its payment was refunded in full already"
            )
        if status not in REFUNDABLE_ORDER_STATUSES:
            raise InvalidTransitionError(
                f"order {order_id} is '{status}'; only 'paid', 'shipped' or 'delivered' orders "
                "(or cancelled ones whose payment was kept) can be refunded; an unpaid order "
                "is cancelled with cancel_order"
            )
        payment = self._one(
            "SELECT * FROM payments WHERE order_id = ? AND status != 'refunded' "
            "ORDER BY payment_id DESC LIMIT 1",
            (order_id,),
        )
        if payment is None:
            paid = self._one("SELECT 1 FROM payments WHERE order_id = ?", (order_id,))
            if paid is None:
                raise InvalidArgumentError(f"order {order_id} was never paid; nothing to refund")
            raise InvalidArgumentError(
                f"order {order_id} is '{status}' and its payment was already returned; "
                "nothing is left to refund"
            )
        return order, payment, _money(payment["amount"] - payment["refunded_amount"])

    @staticmethod
    def _refund_amount(amount: float | None, left: float, payment: sqlite3.Row) -> float:
        wanted = _money(left if amount is None else amount)
        if wanted <= 0 or wanted > left + _CENT:
            raise InvalidArgumentError(
                f"refund amount must be above 0 and at most {left:.2f} (what is left of "
                f"payment {payment['payment_id']}, {payment['amount']:.2f})"
            )
        return wanted

    def _pay_back(self, refund_id: int, order: sqlite3.Row, payment: sqlite3.Row) -> None:
        """Move a refund's money; the order is 'refunded' once nothing of its payment is left."""
        refund = self._require("refunds", "refund", refund_id)
        self._return_payment(payment, refund["amount"])
        left = payment["amount"] - payment["refunded_amount"] - refund["amount"]
        if left < _CENT and order["status"] in ("paid", "shipped", "delivered"):
            self._close_open_deliveries(order["order_id"])
            self._record_order_status(
                order["order_id"], order["status"], "refunded", f"refund {refund_id}"
            )

    def _new_refund(
        self, order_id: int, amount: float | None, reason: str, status: str
    ) -> tuple[int, sqlite3.Row, sqlite3.Row]:
        order, payment, left = self._refundable_payment(order_id)
        refund_amount = self._refund_amount(amount, left, payment)
        refund_id = self._insert(
            "refunds",
            {
                "order_id": order_id,
                "payment_id": payment["payment_id"],
                "amount": refund_amount,
                "reason": reason,
                "status": status,
                "created_at": self._now(),
            },
        )
        return refund_id, order, payment

    @tool("refund", "order", "payment", side_effect=True, destructive=True)
    def create_refund(
        self,
        order_id: OrderId,
        amount: Money | None = None,
        reason: str = "",
        idempotency_key: IdempotencyKey = None,
    ) -> Refund:
        """Refund a paid, shipped or delivered order in full or in part; money goes back at once.

        Wallet payments go back to the wallet. A full refund moves the order to 'refunded'.

        Args:
            order_id: The order (or a cancelled order whose payment was kept).
            amount: Amount to refund; defaults to all that is left of the payment.
            reason: Why, kept on the refund.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The completed refund.
        """
        refund_id, order, payment = self._new_refund(order_id, amount, reason, "completed")
        self._pay_back(refund_id, order, payment)
        return self._refund_record(self._require("refunds", "refund", refund_id))

    @tool("refund", "order", "payment", side_effect=True)
    def request_refund(
        self,
        order_id: OrderId,
        amount: Money | None = None,
        reason: str = "",
        idempotency_key: IdempotencyKey = None,
    ) -> Refund:
        """Request a refund of an order, full or partial, for approval; no money moves yet.

        Args:
            order_id: A paid, shipped or delivered order.
            amount: Amount asked for; defaults to all that is left of the payment.
            reason: Why the customer asks.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The refund in status 'requested'.
        """
        refund_id, _, _ = self._new_refund(order_id, amount, reason, "requested")
        return self._refund_record(self._require("refunds", "refund", refund_id))

    def _decide(self, refund_id: int, target: str) -> sqlite3.Row:
        refund = self._require("refunds", "refund", refund_id)
        error = refund_transition_error(refund_id, refund["status"], target)
        if error is not None:
            raise InvalidTransitionError(error)
        return refund

    @tool("refund", side_effect=True, destructive=True, idempotent=True)
    def approve_refund(self, refund_id: RefundId, idempotency_key: IdempotencyKey = None) -> Refund:
        """Approve a requested refund: the money goes back and the refund is 'completed'.

        Args:
            refund_id: A refund in status 'requested'.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The completed refund.
        """
        refund = self._decide(refund_id, "completed")
        order, payment, left = self._refundable_payment(refund["order_id"])
        if refund["amount"] > left + _CENT:
            raise InvalidArgumentError(
                f"refund {refund_id} asks for {refund['amount']:.2f} but only {left:.2f} of "
                f"payment {payment['payment_id']} is left to refund; reject it with "
                "reject_refund"
            )
        self._db.execute(
            "UPDATE refunds SET status = 'completed', payment_id = ? WHERE refund_id = ?",
            (payment["payment_id"], refund_id),
        )
        self._pay_back(refund_id, order, payment)
        return self._refund_record(self._require("refunds", "refund", refund_id))

    @tool("refund", side_effect=True, destructive=True, idempotent=True)
    def reject_refund(
        self, refund_id: RefundId, reason: str = "", idempotency_key: IdempotencyKey = None
    ) -> Refund:
        """Reject a requested refund; no money moves and the refund is 'rejected'.

        Args:
            refund_id: A refund in status 'requested'.
            reason: Why, appended to the refund's reason.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The rejected refund.
        """
        refund = self._decide(refund_id, "rejected")
        note = refund["reason"] if not reason else f"{refund['reason']} (rejected: {reason})"
        self._db.execute(
            "UPDATE refunds SET status = 'rejected', reason = ? WHERE refund_id = ?",
            (note.strip(), refund_id),
        )
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
    def list_refunds(
        self,
        order_id: OrderId | None = None,
        status: RefundStatus | None = None,
        limit: Limit = 20,
    ) -> RefundList:
        """List refunds, newest first, optionally of one order or in one status ('requested').

        Args:
            order_id: Keep only this order's refunds.
            status: Keep only refunds in this status.
            limit: Maximum number of refunds.

        Returns:
            The refunds.
        """
        rows = self._all(
            "SELECT * FROM refunds WHERE (? IS NULL OR order_id = ?) "
            "AND (? IS NULL OR status = ?) ORDER BY refund_id DESC LIMIT ?",
            (order_id, order_id, status, status, limit),
        )
        return RefundList(refunds=[self._refund_record(row) for row in rows])
