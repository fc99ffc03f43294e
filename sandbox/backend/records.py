"""Row helpers of the sandbox backend: SQL shorthands and rows turned into tool records."""

import sqlite3
from typing import Any

from sandbox.backend.core import SandboxBase, _money
from sandbox.errors import InvalidArgumentError, NotFoundError
from sandbox.models import (
    Address,
    Coupon,
    CouponTemplate,
    Delivery,
    Membership,
    Order,
    OrderItem,
    Payment,
    Product,
    Refund,
    Review,
    Rider,
    Shop,
    Sku,
    User,
)


class Records(SandboxBase):
    """Read and write rows, and turn them into the records (TypedDicts) the tools return."""

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._db.execute(sql, params).fetchone()
        return row

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return list(self._db.execute(sql, params).fetchall())

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        names = ", ".join(values)
        marks = ", ".join("?" * len(values))
        cursor = self._db.execute(
            f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(values.values())
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _require(self, table: str, entity: str, row_id: int) -> sqlite3.Row:
        row = self._one(f"SELECT * FROM {table} WHERE {entity}_id = ?", (row_id,))
        if row is None:
            raise NotFoundError(f"{entity.replace('_', ' ')} {row_id} not found")
        return row

    def _user_record(self, user_id: int) -> User:
        row = self._require("users", "user", user_id)
        return User(
            user_id=row["user_id"],
            account_number=row["account_number"],
            name=row["name"],
            email=row["email"],
            phone=row["phone"],
            status=row["status"],
            wallet_balance=_money(row["wallet_balance"]),
            created_at=row["created_at"],
        )

    def _active_user(self, user_id: int) -> sqlite3.Row:
        row = self._require("users", "user", user_id)
        if row["status"] != "active":
            raise InvalidArgumentError(f"user {user_id} is '{row['status']}' and cannot transact")
        return row

    @staticmethod
    def _address_record(row: sqlite3.Row) -> Address:
        return Address(
            address_id=row["address_id"],
            user_id=row["user_id"],
            label=row["label"],
            line1=row["line1"],
            city=row["city"],
            postcode=row["postcode"],
            is_default=bool(row["is_default"]),
        )

    @staticmethod
    def _shop_record(row: sqlite3.Row) -> Shop:
        return Shop(
            shop_id=row["shop_id"], name=row["name"], city=row["city"], status=row["status"]
        )

    def _product_record(self, product_id: int) -> Product:
        row = self._require("products", "product", product_id)
        stock = self._one(
            "SELECT MIN(s.sku_id) AS sku_id, COALESCE(SUM(i.quantity), 0) AS stock FROM skus s "
            "LEFT JOIN inventory i ON i.sku_id = s.sku_id WHERE s.product_id = ?",
            (product_id,),
        )
        assert stock is not None
        return Product(
            product_id=row["product_id"],
            shop_id=row["shop_id"],
            sku_id=stock["sku_id"],
            name=row["name"],
            category=row["category"],
            price=_money(row["price"]),
            status=row["status"],
            stock=int(stock["stock"]),
        )

    def _sku_record(self, sku_id: int) -> Sku:
        row = self._one(
            "SELECT s.*, COALESCE(i.quantity, 0) AS stock FROM skus s "
            "LEFT JOIN inventory i ON i.sku_id = s.sku_id WHERE s.sku_id = ?",
            (sku_id,),
        )
        if row is None:
            raise NotFoundError(f"sku {sku_id} not found")
        return Sku(
            sku_id=row["sku_id"],
            product_id=row["product_id"],
            sku_code=row["sku_code"],
            attributes=row["attributes"],
            price=_money(row["price"]),
            stock=int(row["stock"]),
        )

    def _order_record(self, order_id: int) -> Order:
        row = self._require("orders", "order", order_id)
        items = [
            OrderItem(
                product_id=item["product_id"],
                sku_id=item["sku_id"],
                quantity=item["quantity"],
                unit_price=_money(item["unit_price"]),
            )
            for item in self._all(
                "SELECT * FROM order_items WHERE order_id = ? ORDER BY order_item_id", (order_id,)
            )
        ]
        return Order(
            order_id=row["order_id"],
            user_id=row["user_id"],
            shop_id=row["shop_id"],
            address_id=row["address_id"],
            status=row["status"],
            subtotal=_money(row["subtotal"]),
            discount=_money(row["discount"]),
            total=_money(row["total"]),
            coupon_id=row["coupon_id"],
            items=items,
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )

    @staticmethod
    def _payment_record(row: sqlite3.Row) -> Payment:
        return Payment(
            payment_id=row["payment_id"],
            order_id=row["order_id"],
            amount=_money(row["amount"]),
            refunded_amount=_money(row["refunded_amount"]),
            method=row["method"],
            status=row["status"],
            created_at=row["created_at"],
        )

    @staticmethod
    def _template_record(row: sqlite3.Row) -> CouponTemplate:
        return CouponTemplate(
            template_id=row["template_id"],
            name=row["name"],
            discount_type=row["discount_type"],
            value=_money(row["value"]),
            min_spend=_money(row["min_spend"]),
            valid_days=row["valid_days"],
            total_quantity=row["total_quantity"],
            issued_count=row["issued_count"],
        )

    _COUPON_SELECT = (
        "SELECT c.*, t.discount_type, t.value, t.min_spend FROM coupons c "
        "JOIN coupon_templates t ON t.template_id = c.template_id "
    )

    def _coupon_record(self, coupon_id: int) -> Coupon:
        row = self._one(self._COUPON_SELECT + "WHERE c.coupon_id = ?", (coupon_id,))
        if row is None:
            raise NotFoundError(f"coupon {coupon_id} not found")
        return self._coupon_from_row(row)

    @staticmethod
    def _coupon_from_row(row: sqlite3.Row) -> Coupon:
        return Coupon(
            coupon_id=row["coupon_id"],
            template_id=row["template_id"],
            user_id=row["user_id"],
            code=row["code"],
            status=row["status"],
            discount_type=row["discount_type"],
            value=_money(row["value"]),
            min_spend=_money(row["min_spend"]),
            order_id=row["order_id"],
            issued_at=row["issued_at"],
            expires_at=row["expires_at"],
        )

    @staticmethod
    def _rider_record(row: sqlite3.Row) -> Rider:
        return Rider(
            rider_id=row["rider_id"],
            name=row["name"],
            phone=row["phone"],
            city=row["city"],
            status=row["status"],
        )

    def _delivery_record(self, delivery_id: int) -> Delivery:
        row = self._require("deliveries", "delivery", delivery_id)
        return Delivery(
            delivery_id=row["delivery_id"],
            order_id=row["order_id"],
            address_id=row["address_id"],
            rider_id=row["rider_id"],
            status=row["status"],
            fee=_money(row["fee"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )

    @staticmethod
    def _review_record(row: sqlite3.Row) -> Review:
        return Review(
            review_id=row["review_id"],
            order_id=row["order_id"],
            user_id=row["user_id"],
            product_id=row["product_id"],
            rating=row["rating"],
            comment=row["comment"],
            created_at=row["created_at"],
        )

    @staticmethod
    def _refund_record(row: sqlite3.Row) -> Refund:
        return Refund(
            refund_id=row["refund_id"],
            order_id=row["order_id"],
            payment_id=row["payment_id"],
            amount=_money(row["amount"]),
            reason=row["reason"],
            status=row["status"],
            created_at=row["created_at"],
        )

    def _membership_record(self, row: sqlite3.Row) -> Membership:
        """The membership as of the sandbox clock: an active one past its expiry is 'expired'."""
        lapsed = row["status"] == "active" and row["expires_at"] <= self._now()
        return Membership(
            membership_id=row["membership_id"],
            user_id=row["user_id"],
            tier=row["tier"],
            status="expired" if lapsed else row["status"],
            started_at=row["started_at"],
            expires_at=row["expires_at"],
        )
