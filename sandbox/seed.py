"""The seed: a handful of rows in every table, the same on every reset up to the clock.

Dates are relative to the sandbox's clock at the reset (rows were written `SEED_AGE` before
it; coupons and memberships expire a fixed number of days from it), so the seed works at any
date. Accounts "123456" (Alice, user 1), "654321" (Bob, user 2) and "000042" (Carol, user 3)
always exist; shop 1 is the default test shop that `create_product` uses. Every tool can be
exercised from the seed; README.md lists which row is there for which tool.
"""

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sandbox.clock import iso

DEFAULT_SHOP_ID = 1
SEED_AGE = timedelta(days=30)


@dataclass(frozen=True)
class FromNow:
    """A timestamp `days` from the clock's now at the reset (negative: in the past)."""

    days: float


SEEDED_AT = FromNow(-SEED_AGE.days)

_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "users": [
        # user_id, account_number, name, email, phone, status, wallet_balance
        (1, "123456", "Alice Chen", "alice@example.test", "+1-555-0101", "active", 120.0),
        (2, "654321", "Bob Martin", "bob@example.test", "+1-555-0102", "active", 35.5),
        (3, "000042", "Carol Diaz", "carol@example.test", "+1-555-0103", "active", 0.0),
        (4, "100001", "Dan Okafor", "dan@example.test", None, "active", 10.0),
        (5, "100002", "Eve Novak", "eve@example.test", None, "frozen", 0.0),
    ],
    "addresses": [
        # address_id, user_id, label, line1, city, postcode, is_default
        (1, 1, "home", "1 Elm Street", "Springfield", "10001", 1),
        (2, 1, "work", "200 Market Road", "Springfield", "10002", 0),
        (3, 2, "home", "9 Oak Avenue", "Springfield", "10003", 1),
        (4, 3, "home", "42 Pine Lane", "Shelbyville", "20001", 1),
        (5, 4, "home", "7 Birch Court", "Shelbyville", "20002", 1),
    ],
    "shops": [
        # shop_id, name, city, status
        (1, "Zspace Test Shop", "Springfield", "open"),
        (2, "Green Grocer", "Springfield", "open"),
        (3, "Night Owl Pharmacy", "Shelbyville", "open"),
        (4, "Pop-up Stall", "Shelbyville", "open"),  # no products, no orders: deletable
    ],
    "products": [
        # product_id, shop_id, name, category, price, status
        (1, 1, "Test Widget", "general", 9.99, "active"),
        (2, 1, "Cotton T-Shirt", "apparel", 15.0, "active"),
        (3, 2, "Organic Apples 1kg", "grocery", 4.5, "active"),
        (4, 2, "Whole Milk 1L", "grocery", 1.2, "active"),
        (5, 3, "Vitamin C Tablets", "health", 7.25, "active"),
        (6, 1, "Discontinued Gadget", "general", 30.0, "archived"),
    ],
    "skus": [
        # sku_id, product_id, sku_code, attributes, price
        (1, 1, "WIDGET-STD", "", 9.99),
        (2, 2, "TSHIRT-M", "size=M", 15.0),
        (3, 2, "TSHIRT-L", "size=L", 15.0),
        (4, 3, "APPLE-1KG", "", 4.5),
        (5, 4, "MILK-1L", "", 1.2),
        (6, 5, "VITC-60", "count=60", 7.25),
        (7, 6, "GADGET-OLD", "", 30.0),
    ],
    "inventory": [
        # sku_id, quantity
        (1, 100),
        (2, 40),
        (3, 25),
        (4, 60),
        (5, 80),
        (6, 30),
        (7, 0),
    ],
    "carts": [(1, 3)],
    "cart_items": [
        # cart_item_id, cart_id, product_id, sku_id, quantity, unit_price
        (1, 1, 3, 4, 2, 4.5),
    ],
    "coupon_templates": [
        # template_id, name, discount_type, value, min_spend, valid_days, total_quantity,
        # issued_count
        (1, "Welcome 5 off", "fixed", 5.0, 20.0, 30, 1000, 3),
        (2, "Spring 10%", "percent", 10.0, 0.0, 14, 500, 1),
        (3, "Free delivery voucher", "fixed", 3.5, 0.0, 7, 100, 0),
    ],
    "orders": [
        # order_id, user_id, shop_id, address_id, status, subtotal, discount, total, coupon_id
        (1, 1, 1, 1, "delivered", 19.98, 0.0, 19.98, None),
        (2, 2, 2, 3, "paid", 9.0, 0.0, 9.0, None),
        (3, 3, 3, 4, "created", 7.25, 0.0, 7.25, None),
        (4, 1, 1, 1, "cancelled", 15.0, 0.0, 15.0, None),
        (5, 2, 1, 3, "refunded", 30.0, 5.0, 25.0, 3),
        (6, 1, 1, 1, "delivered", 15.0, 0.0, 15.0, None),  # delivered, not reviewed yet
        (7, 2, 3, 3, "shipped", 14.5, 0.0, 14.5, None),  # in delivery (delivery 4)
        (8, 4, 1, 5, "paid", 49.95, 0.0, 49.95, None),  # paid, no delivery booked yet
        (9, 3, 1, 4, "delivered", 120.0, 0.0, 120.0, None),  # partly refunded, one request
    ],
    "order_items": [
        # order_item_id, order_id, product_id, sku_id, quantity, unit_price
        (1, 1, 1, 1, 2, 9.99),
        (2, 2, 3, 4, 2, 4.5),
        (3, 3, 5, 6, 1, 7.25),
        (4, 4, 2, 2, 1, 15.0),
        (5, 5, 2, 3, 2, 15.0),
        (6, 6, 2, 2, 1, 15.0),
        (7, 7, 5, 6, 2, 7.25),
        (8, 8, 1, 1, 5, 9.99),
        (9, 9, 2, 3, 8, 15.0),
    ],
    "order_status_history": [
        # history_id, order_id, from_status, to_status, note
        (1, 1, None, "created", ""),
        (2, 1, "created", "pending_payment", ""),
        (3, 1, "pending_payment", "paid", "payment 1"),
        (4, 1, "paid", "shipped", "delivery 1 picked up"),
        (5, 1, "shipped", "delivered", "delivery 1 delivered"),
        (6, 2, None, "created", ""),
        (7, 2, "created", "pending_payment", ""),
        (8, 2, "pending_payment", "paid", "payment 2"),
        (9, 3, None, "created", ""),
        (10, 4, None, "created", ""),
        (11, 4, "created", "cancelled", "changed my mind"),
        (12, 5, None, "created", ""),
        (13, 5, "created", "pending_payment", ""),
        (14, 5, "pending_payment", "paid", "payment 3"),
        (15, 5, "paid", "refunded", "refund 1"),
        (16, 6, None, "created", ""),
        (17, 6, "created", "paid", "payment 4"),
        (18, 6, "paid", "shipped", "delivery 3 picked up"),
        (19, 6, "shipped", "delivered", "delivery 3 delivered"),
        (20, 7, None, "created", ""),
        (21, 7, "created", "pending_payment", ""),
        (22, 7, "pending_payment", "paid", "payment 5"),
        (23, 7, "paid", "shipped", "delivery 4 picked up"),
        (24, 8, None, "created", ""),
        (25, 8, "created", "paid", "payment 6"),
        (26, 9, None, "created", ""),
        (27, 9, "created", "pending_payment", ""),
        (28, 9, "pending_payment", "paid", "payment 7"),
        (29, 9, "paid", "shipped", "delivery 5 picked up"),
        (30, 9, "shipped", "delivered", "delivery 5 delivered"),
    ],
    "coupons": [
        # coupon_id, template_id, user_id, code, status, order_id, expires_at
        (1, 1, 1, "WELCOME-0001", "issued", None, FromNow(335)),
        (2, 2, 1, "SPRING-0002", "issued", None, FromNow(335)),
        (3, 1, 2, "WELCOME-0003", "redeemed", 5, FromNow(335)),
        (4, 1, 3, "WELCOME-0004", "issued", None, FromNow(-7)),  # expired a week ago
    ],
    "payments": [
        # payment_id, order_id, amount, refunded_amount, method, status
        (1, 1, 19.98, 0.0, "card", "succeeded"),
        (2, 2, 9.0, 0.0, "wallet", "succeeded"),
        (3, 5, 25.0, 25.0, "card", "refunded"),
        (4, 6, 15.0, 0.0, "card", "succeeded"),
        (5, 7, 14.5, 0.0, "alipay", "succeeded"),
        (6, 8, 49.95, 0.0, "card", "succeeded"),
        (7, 9, 120.0, 20.0, "card", "partially_refunded"),
    ],
    "riders": [
        # rider_id, name, phone, city, status
        (1, "Raj Patel", "+1-555-0201", "Springfield", "available"),
        (2, "Mia Wong", "+1-555-0202", "Springfield", "available"),
        (3, "Leo Rossi", "+1-555-0203", "Shelbyville", "off"),
        (4, "Sam Lee", "+1-555-0204", "Springfield", "busy"),  # riding delivery 4
    ],
    "deliveries": [
        # delivery_id, order_id, address_id, rider_id, status, fee
        (1, 1, 1, 1, "delivered", 3.5),
        (2, 2, 3, None, "pending", 3.5),
        (3, 6, 1, 2, "delivered", 0.0),
        (4, 7, 3, 4, "in_transit", 3.5),
        (5, 9, 4, 1, "delivered", 3.5),
    ],
    "reviews": [
        # review_id, order_id, user_id, product_id, rating, comment
        (1, 1, 1, 1, 5, "Works exactly as a test widget should."),
    ],
    "refunds": [
        # refund_id, order_id, payment_id, amount, reason, status
        (1, 5, 3, 25.0, "wrong size", "completed"),
        (2, 9, 7, 20.0, "one shirt arrived torn", "completed"),
        (3, 9, 7, 30.0, "two shirts came in the wrong colour", "requested"),
    ],
    "memberships": [
        # membership_id, user_id, tier, status, started_at, expires_at
        (1, 1, "gold", "active", SEEDED_AT, FromNow(335)),
        (2, 2, "silver", "expired", FromNow(-760), FromNow(-395)),
    ],
}

# Columns per table, in the order of the tuples above; timestamp columns are appended.
_COLUMNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "users": (
        ("user_id", "account_number", "name", "email", "phone", "status", "wallet_balance"),
        ("created_at",),
    ),
    "addresses": (
        ("address_id", "user_id", "label", "line1", "city", "postcode", "is_default"),
        ("created_at",),
    ),
    "shops": (("shop_id", "name", "city", "status"), ("created_at",)),
    "products": (
        ("product_id", "shop_id", "name", "category", "price", "status"),
        ("created_at",),
    ),
    "skus": (("sku_id", "product_id", "sku_code", "attributes", "price"), ("created_at",)),
    "inventory": (("sku_id", "quantity"), ("updated_at",)),
    "carts": (("cart_id", "user_id"), ("created_at",)),
    "cart_items": (
        ("cart_item_id", "cart_id", "product_id", "sku_id", "quantity", "unit_price"),
        (),
    ),
    "coupon_templates": (
        (
            "template_id",
            "name",
            "discount_type",
            "value",
            "min_spend",
            "valid_days",
            "total_quantity",
            "issued_count",
        ),
        ("created_at",),
    ),
    "orders": (
        (
            "order_id",
            "user_id",
            "shop_id",
            "address_id",
            "status",
            "subtotal",
            "discount",
            "total",
            "coupon_id",
        ),
        ("created_at", "updated_at"),
    ),
    "order_items": (
        ("order_item_id", "order_id", "product_id", "sku_id", "quantity", "unit_price"),
        (),
    ),
    "order_status_history": (
        ("history_id", "order_id", "from_status", "to_status", "note"),
        ("changed_at",),
    ),
    "coupons": (
        ("coupon_id", "template_id", "user_id", "code", "status", "order_id", "expires_at"),
        ("issued_at",),
    ),
    "payments": (
        ("payment_id", "order_id", "amount", "refunded_amount", "method", "status"),
        ("created_at",),
    ),
    "riders": (("rider_id", "name", "phone", "city", "status"), ("created_at",)),
    "deliveries": (
        ("delivery_id", "order_id", "address_id", "rider_id", "status", "fee"),
        ("created_at", "updated_at"),
    ),
    "reviews": (
        ("review_id", "order_id", "user_id", "product_id", "rating", "comment"),
        ("created_at",),
    ),
    "refunds": (
        ("refund_id", "order_id", "payment_id", "amount", "reason", "status"),
        ("created_at",),
    ),
    "memberships": (
        ("membership_id", "user_id", "tier", "status", "started_at", "expires_at"),
        (),
    ),
}


def seed(conn: sqlite3.Connection, now: datetime) -> None:
    """Insert the seed rows into empty tables; the caller owns the transaction.

    Args:
        conn: A connection to a database whose schema exists and whose tables are empty.
        now: The sandbox clock's time at the reset; every seeded date is relative to it.
    """

    def value(cell: Any) -> Any:
        return iso(now + timedelta(days=cell.days)) if isinstance(cell, FromNow) else cell

    seeded_at = value(SEEDED_AT)
    for table, rows in _ROWS.items():
        columns, stamped = _COLUMNS[table]
        names = ", ".join(columns + stamped)
        marks = ", ".join("?" * (len(columns) + len(stamped)))
        conn.executemany(
            f"INSERT INTO {table} ({names}) VALUES ({marks})",
            [tuple(value(cell) for cell in row) + (seeded_at,) * len(stamped) for row in rows],
        )
