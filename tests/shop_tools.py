"""A small shop of real Python tools with side effects into a SQLite file (tests only).

Every writer counts its effects in the database, so tests can assert that nothing ran twice.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import TypedDict

from stores.catalog.model import Catalog

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (user_id INTEGER PRIMARY KEY, account_number TEXT UNIQUE, name TEXT);
CREATE TABLE IF NOT EXISTS products (product_id INTEGER PRIMARY KEY, name TEXT, price REAL);
CREATE TABLE IF NOT EXISTS orders (order_id INTEGER PRIMARY KEY, user_id INTEGER, product_id INTEGER,
                                   quantity INTEGER, status TEXT);
CREATE TABLE IF NOT EXISTS coupons (coupon_id INTEGER PRIMARY KEY, user_id INTEGER, amount REAL);
CREATE TABLE IF NOT EXISTS effects (key TEXT PRIMARY KEY, tool TEXT, result TEXT);
"""


class ProductOut(TypedDict):
    product_id: int
    name: str
    price: float


class UserOut(TypedDict):
    user_id: int
    account_number: str
    name: str


class OrderOut(TypedDict):
    order_id: int
    user_id: int
    product_id: int
    quantity: int
    status: str


class CouponOut(TypedDict):
    coupon_id: int
    user_id: int
    amount: float


class Shop:
    """The backend: one SQLite file, a call counter per tool, optional failure injection."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.calls: dict[str, int] = {}
        self.fail_next: dict[str, Exception] = {}
        self.hang: set[str] = set()
        self._lock = threading.Lock()
        with self._db() as db:
            db.executescript(SCHEMA)
            db.execute("INSERT OR IGNORE INTO users VALUES (1, '123456', 'Alice')")
            db.execute("INSERT OR IGNORE INTO users VALUES (2, '000042', 'Bob')")

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30, isolation_level=None)

    def _enter(self, tool: str) -> None:
        with self._lock:
            self.calls[tool] = self.calls.get(tool, 0) + 1
            failure = self.fail_next.pop(tool, None)
        if tool in self.hang:
            time.sleep(30)
        if failure is not None:
            raise failure

    def count(self, table: str) -> int:
        with self._db() as db:
            return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def catalog(self) -> Catalog:
        catalog = Catalog()
        shop = self

        def create_product(name: str = "Test product", price: float = 9.9) -> ProductOut:
            """Create a test product in the catalog."""
            shop._enter("create_product")
            with shop._db() as db:
                cursor = db.execute(
                    "INSERT INTO products (name, price) VALUES (?, ?)", (name, price)
                )
                return {"product_id": int(cursor.lastrowid or 0), "name": name, "price": price}

        def get_user_by_account(account_number: str) -> UserOut:
            """Look up a user by account number."""
            shop._enter("get_user_by_account")
            with shop._db() as db:
                row = db.execute(
                    "SELECT user_id, account_number, name FROM users WHERE account_number = ?",
                    (account_number,),
                ).fetchone()
            if row is None:
                raise ValueError(f"no user has account {account_number}")
            return {"user_id": row[0], "account_number": row[1], "name": row[2]}

        def create_order(user_id: int, product_id: int, quantity: int = 1) -> OrderOut:
            """Place an order for a user and a product."""
            shop._enter("create_order")
            with shop._db() as db:
                cursor = db.execute(
                    "INSERT INTO orders (user_id, product_id, quantity, status) VALUES (?, ?, ?, 'created')",
                    (user_id, product_id, quantity),
                )
                return {
                    "order_id": int(cursor.lastrowid or 0),
                    "user_id": user_id,
                    "product_id": product_id,
                    "quantity": quantity,
                    "status": "created",
                }

        def advance_order_status(order_id: int, status: str) -> OrderOut:
            """Advance an order's status (e.g. to pending_payment, paid, shipped)."""
            shop._enter("advance_order_status")
            with shop._db() as db:
                db.execute("UPDATE orders SET status = ? WHERE order_id = ?", (status, order_id))
                row = db.execute(
                    "SELECT order_id, user_id, product_id, quantity, status FROM orders "
                    "WHERE order_id = ?",
                    (order_id,),
                ).fetchone()
            if row is None:
                raise ValueError(f"order {order_id} does not exist")
            return dict(
                zip(("order_id", "user_id", "product_id", "quantity", "status"), row, strict=True)
            )  # type: ignore[return-value]

        def issue_coupon(user_id: int, amount: float = 5.0) -> CouponOut:
            """Issue a coupon (voucher) to a user."""
            shop._enter("issue_coupon")
            with shop._db() as db:
                cursor = db.execute(
                    "INSERT INTO coupons (user_id, amount) VALUES (?, ?)", (user_id, amount)
                )
                return {
                    "coupon_id": int(cursor.lastrowid or 0),
                    "user_id": user_id,
                    "amount": amount,
                }

        def cancel_order(order_id: int) -> OrderOut:
            """Cancel an order."""
            shop._enter("cancel_order")
            with shop._db() as db:
                db.execute("UPDATE orders SET status = 'cancelled' WHERE order_id = ?", (order_id,))
            return {
                "order_id": order_id,
                "user_id": 0,
                "product_id": 0,
                "quantity": 0,
                "status": "cancelled",
            }

        for function, side_effect in (
            (create_product, True),
            (get_user_by_account, False),
            (create_order, True),
            (advance_order_status, True),
            (issue_coupon, True),
            (cancel_order, True),
        ):
            catalog.register_function(
                function, agent="shop", environment="test", side_effect=side_effect
            )
        return catalog
