"""Business rules of the sandbox: the steps several tools share, on the status machines.

The status machines themselves (which move is allowed, and the messages when one is not) are
in `sandbox.backend.lifecycle`. The steps here (stock, coupons, order placement, status
changes, payment, cancellation, returning money) are what several domains' tools share; each
tool module calls them within its transaction.
"""

import sqlite3

from sandbox.backend.core import _money
from sandbox.backend.lifecycle import PAYABLE_ORDER_STATUSES, order_transition_error
from sandbox.backend.records import Records
from sandbox.errors import InvalidArgumentError, InvalidTransitionError

DEFAULT_DELIVERY_FEE = 3.5
DEFAULT_CITY = "Springfield"


class Rules(Records):
    """The steps tools share: stock, addresses, coupons, orders, status changes, payment."""

    def _resolve_sku(self, product_id: int, sku_id: int | None) -> sqlite3.Row:
        product = self._require("products", "product", product_id)
        if product["status"] != "active":
            raise InvalidArgumentError(f"product {product_id} is archived and cannot be sold")
        if sku_id is None:
            sku = self._one(
                "SELECT * FROM skus WHERE product_id = ? ORDER BY sku_id LIMIT 1", (product_id,)
            )
            if sku is None:
                raise InvalidArgumentError(
                    f"product {product_id} has no SKU; create one with create_sku"
                )
            return sku
        sku = self._require("skus", "sku", sku_id)
        if sku["product_id"] != product_id:
            raise InvalidArgumentError(
                f"sku {sku_id} belongs to product {sku['product_id']}, not product {product_id}"
            )
        return sku

    def _take_stock(self, sku_id: int, quantity: int) -> None:
        row = self._one("SELECT quantity FROM inventory WHERE sku_id = ?", (sku_id,))
        on_hand = 0 if row is None else int(row["quantity"])
        if on_hand < quantity:
            raise InvalidArgumentError(
                f"sku {sku_id} has {on_hand} in stock, {quantity} requested; "
                "add stock with add_inventory"
            )
        self._db.execute(
            "UPDATE inventory SET quantity = quantity - ?, updated_at = ? WHERE sku_id = ?",
            (quantity, self._now(), sku_id),
        )

    def _set_stock(self, sku_id: int, quantity: int) -> None:
        self._db.execute(
            "INSERT INTO inventory (sku_id, quantity, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (sku_id) DO UPDATE SET quantity = excluded.quantity, "
            "updated_at = excluded.updated_at",
            (sku_id, quantity, self._now()),
        )

    def _put_stock(self, sku_id: int, quantity: int) -> None:
        self._db.execute(
            "INSERT INTO inventory (sku_id, quantity, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (sku_id) DO UPDATE SET quantity = quantity + excluded.quantity, "
            "updated_at = excluded.updated_at",
            (sku_id, quantity, self._now()),
        )

    def _default_address_id(self, user_id: int, address_id: int | None) -> int | None:
        if address_id is not None:
            address = self._require("addresses", "address", address_id)
            if address["user_id"] != user_id:
                raise InvalidArgumentError(
                    f"address {address_id} belongs to user {address['user_id']}, not user {user_id}"
                )
            return address_id
        row = self._one(
            "SELECT address_id FROM addresses WHERE user_id = ? "
            "ORDER BY is_default DESC, address_id LIMIT 1",
            (user_id,),
        )
        return None if row is None else int(row["address_id"])

    def _coupon_discount(self, coupon_id: int, user_id: int, subtotal: float) -> float:
        coupon = self._coupon_record(coupon_id)
        if coupon["user_id"] != user_id:
            raise InvalidArgumentError(
                f"coupon {coupon_id} belongs to user {coupon['user_id']}, not user {user_id}"
            )
        if coupon["status"] != "issued":
            raise InvalidArgumentError(f"coupon {coupon_id} is '{coupon['status']}', not usable")
        if coupon["expires_at"] <= self._now():
            raise InvalidArgumentError(f"coupon {coupon_id} expired at {coupon['expires_at']}")
        if subtotal < coupon["min_spend"]:
            raise InvalidArgumentError(
                f"coupon {coupon_id} needs a minimum spend of {coupon['min_spend']:.2f}; "
                f"the order subtotal is {subtotal:.2f}"
            )
        if coupon["discount_type"] == "percent":
            return _money(subtotal * coupon["value"] / 100)
        return _money(min(coupon["value"], subtotal))

    def _apply_coupon(self, order_id: int, coupon_id: int) -> None:
        order = self._require("orders", "order", order_id)
        discount = self._coupon_discount(coupon_id, order["user_id"], order["subtotal"])
        self._db.execute(
            "UPDATE orders SET coupon_id = ?, discount = ?, total = ?, updated_at = ? "
            "WHERE order_id = ?",
            (coupon_id, discount, _money(order["subtotal"] - discount), self._now(), order_id),
        )
        self._db.execute(
            "UPDATE coupons SET status = 'redeemed', order_id = ? WHERE coupon_id = ?",
            (order_id, coupon_id),
        )

    def _place_order(
        self,
        user_id: int,
        lines: list[tuple[sqlite3.Row, int]],
        address_id: int | None,
        coupon_id: int | None,
    ) -> int:
        """Insert an order for (sku row, quantity) lines, taking stock; return its id."""
        self._active_user(user_id)
        address = self._default_address_id(user_id, address_id)
        first_product = self._require("products", "product", lines[0][0]["product_id"])
        subtotal = _money(sum(sku["price"] * quantity for sku, quantity in lines))
        now = self._now()
        order_id = self._insert(
            "orders",
            {
                "user_id": user_id,
                "shop_id": first_product["shop_id"],
                "address_id": address,
                "status": "created",
                "subtotal": subtotal,
                "discount": 0.0,
                "total": subtotal,
                "created_at": now,
                "updated_at": now,
            },
        )
        for sku, quantity in lines:
            self._take_stock(sku["sku_id"], quantity)
            self._insert(
                "order_items",
                {
                    "order_id": order_id,
                    "product_id": sku["product_id"],
                    "sku_id": sku["sku_id"],
                    "quantity": quantity,
                    "unit_price": sku["price"],
                },
            )
        self._record_order_status(order_id, None, "created", "")
        if coupon_id is not None:
            self._apply_coupon(order_id, coupon_id)
        return order_id

    def _record_order_status(
        self, order_id: int, from_status: str | None, to_status: str, note: str
    ) -> None:
        now = self._now()
        self._db.execute(
            "UPDATE orders SET status = ?, updated_at = ? WHERE order_id = ?",
            (to_status, now, order_id),
        )
        self._insert(
            "order_status_history",
            {
                "order_id": order_id,
                "from_status": from_status,
                "to_status": to_status,
                "note": note,
                "changed_at": now,
            },
        )

    def _check_order_transition(self, order_id: int, current: str, target: str) -> None:
        error = order_transition_error(order_id, current, target)
        if error is not None:
            raise InvalidTransitionError(error)

    def _cancel_order(self, order_id: int, reason: str, refund_payment: bool = True) -> None:
        order = self._require("orders", "order", order_id)
        self._check_order_transition(order_id, order["status"], "cancelled")
        for item in self._all("SELECT * FROM order_items WHERE order_id = ?", (order_id,)):
            self._put_stock(item["sku_id"], item["quantity"])
        if order["coupon_id"] is not None:
            self._db.execute(
                "UPDATE coupons SET status = 'issued', order_id = NULL WHERE coupon_id = ?",
                (order["coupon_id"],),
            )
        if refund_payment:
            for payment in self._all(
                "SELECT * FROM payments WHERE order_id = ? AND status != 'refunded'", (order_id,)
            ):
                self._return_payment(payment, payment["amount"] - payment["refunded_amount"])
        self._close_open_deliveries(order_id)
        self._record_order_status(order_id, order["status"], "cancelled", reason)

    def _return_payment(self, payment: sqlite3.Row, amount: float) -> None:
        """Give `amount` of a payment back (to the wallet for wallet payments)."""
        refunded = _money(payment["refunded_amount"] + amount)
        status = "refunded" if refunded >= payment["amount"] else "partially_refunded"
        self._db.execute(
            "UPDATE payments SET refunded_amount = ?, status = ? WHERE payment_id = ?",
            (refunded, status, payment["payment_id"]),
        )
        if payment["method"] == "wallet":
            order = self._require("orders", "order", payment["order_id"])
            self._db.execute(
                "UPDATE users SET wallet_balance = round(wallet_balance + ?, 2) WHERE user_id = ?",
                (amount, order["user_id"]),
            )

    def _close_open_deliveries(self, order_id: int) -> None:
        for delivery in self._all(
            "SELECT * FROM deliveries WHERE order_id = ? AND status IN ('pending', 'assigned')",
            (order_id,),
        ):
            self._set_delivery_status(delivery, "cancelled")

    def _set_delivery_status(self, delivery: sqlite3.Row, status: str) -> None:
        self._db.execute(
            "UPDATE deliveries SET status = ?, updated_at = ? WHERE delivery_id = ?",
            (status, self._now(), delivery["delivery_id"]),
        )
        if status in ("delivered", "failed", "cancelled") and delivery["rider_id"] is not None:
            self._db.execute(
                "UPDATE riders SET status = 'available' WHERE rider_id = ?",
                (delivery["rider_id"],),
            )

    def _pay(self, order_id: int, method: str) -> int:
        order = self._require("orders", "order", order_id)
        if order["status"] not in PAYABLE_ORDER_STATUSES:
            self._check_order_transition(order_id, order["status"], "paid")
        user = self._active_user(order["user_id"])
        if method == "wallet" and user["wallet_balance"] < order["total"]:
            raise InvalidArgumentError(
                f"user {user['user_id']} has a wallet balance of {user['wallet_balance']:.2f}, "
                f"order {order_id} costs {order['total']:.2f}; top up with top_up_balance"
            )
        if method == "wallet":
            self._db.execute(
                "UPDATE users SET wallet_balance = round(wallet_balance - ?, 2) WHERE user_id = ?",
                (order["total"], user["user_id"]),
            )
        payment_id = self._insert(
            "payments",
            {
                "order_id": order_id,
                "amount": order["total"],
                "method": method,
                "status": "succeeded",
                "created_at": self._now(),
            },
        )
        self._record_order_status(order_id, order["status"], "paid", f"payment {payment_id}")
        return payment_id

    @staticmethod
    def _normalize_account(account_number: str) -> str:
        digits = account_number.strip()
        if not digits.isdigit() or len(digits) > 6:
            raise InvalidArgumentError(
                f"account number {account_number!r} is not valid: use up to 6 digits, e.g. '123456'"
            )
        return digits.zfill(6)
