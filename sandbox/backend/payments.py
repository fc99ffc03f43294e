"""Payment tools of the sandbox: paying orders and reading their payments."""

from sandbox.backend.core import tool
from sandbox.backend.rules import Rules
from sandbox.models import IdempotencyKey, OrderId, Payment, PaymentId, PaymentList, PaymentMethod


class PaymentTools(Rules):
    """Tools on payments: pay an order, get a payment, list an order's payments."""

    @tool("payment", "order", side_effect=True, destructive=True)
    def pay_order(
        self,
        order_id: OrderId,
        method: PaymentMethod = "card",
        idempotency_key: IdempotencyKey = None,
    ) -> Payment:
        """Pay an order in full by card, wallet, cash, Alipay or WeChat Pay; it becomes 'paid'.

        Args:
            order_id: An order in status 'created' or 'pending_payment'.
            method: Payment method; 'wallet' debits the user's wallet balance, 'alipay' and
                'wechat_pay' are the Alipay and WeChat Pay apps.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The payment.
        """
        payment_id = self._pay(order_id, method)
        return self._payment_record(self._require("payments", "payment", payment_id))

    @tool("payment", side_effect=False)
    def get_payment(self, payment_id: PaymentId) -> Payment:
        """Get a payment by id.

        Args:
            payment_id: The payment.

        Returns:
            The payment.
        """
        return self._payment_record(self._require("payments", "payment", payment_id))

    @tool("payment", "order", side_effect=False)
    def list_payments(self, order_id: OrderId) -> PaymentList:
        """List the payments of an order.

        Args:
            order_id: The order.

        Returns:
            The payments, oldest first.
        """
        self._require("orders", "order", order_id)
        rows = self._all(
            "SELECT * FROM payments WHERE order_id = ? ORDER BY payment_id", (order_id,)
        )
        return PaymentList(order_id=order_id, payments=[self._payment_record(r) for r in rows])
