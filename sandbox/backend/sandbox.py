"""The sandbox backend: one method per tool over a SQLite database, usable without MCP.

Every public method marked with `@tool` is a tool. The decorator runs the method in one
transaction (`BEGIN IMMEDIATE` for writers, a read snapshot for readers) and, for writers,
implements idempotency keys: the same key with the same arguments replays the stored result,
the same key with other arguments is an `IdempotencyConflictError`. The MCP layer
(`sandbox.server`) exposes these methods unchanged, so their signatures, docstrings and return
types are the tools' contracts.
"""

import functools
import hashlib
import inspect
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from sandbox.errors import (
    IdempotencyConflictError,
    InvalidArgumentError,
    InvalidTransitionError,
    NotFoundError,
)
from sandbox.models import (
    AccountNumber,
    Address,
    AddressId,
    AddressList,
    Cart,
    CartItem,
    Coupon,
    CouponId,
    CouponList,
    CouponStatus,
    CouponTemplate,
    CouponTemplateList,
    Delivery,
    DeliveryId,
    DiscountType,
    DiscountValue,
    IdempotencyKey,
    InventoryLevel,
    InventoryReport,
    Limit,
    Membership,
    MembershipId,
    MembershipTier,
    Money,
    Months,
    Order,
    OrderHistory,
    OrderId,
    OrderItem,
    OrderList,
    OrderStatus,
    OrderStatusChange,
    Payment,
    PaymentId,
    PaymentList,
    PaymentMethod,
    PositiveCount,
    Product,
    ProductId,
    ProductList,
    Quantity,
    Rating,
    Refund,
    RefundId,
    RefundList,
    Review,
    ReviewList,
    Rider,
    RiderId,
    RiderList,
    RiderStatus,
    Shop,
    ShopId,
    ShopList,
    Sku,
    SkuId,
    SkuList,
    Stock,
    TemplateId,
    User,
    UserId,
    UserList,
    ValidDays,
)
from sandbox.seed import DEFAULT_SHOP_ID, seed

F = TypeVar("F", bound=Callable[..., Any])

TOOL_ATTRIBUTE = "__sandbox_tool__"

# Order status machine. "refunded" is reached only through create_refund.
ORDER_TRANSITIONS: dict[str, tuple[str, ...]] = {
    "created": ("pending_payment", "cancelled"),
    "pending_payment": ("paid", "cancelled"),
    "paid": ("shipped", "cancelled", "refunded"),
    "shipped": ("delivered", "refunded"),
    "delivered": ("refunded",),
    "cancelled": (),
    "refunded": (),
}
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
DEFAULT_DELIVERY_FEE = 3.5
DEFAULT_CITY = "Springfield"
_FIRST_GENERATED_ACCOUNT = 200001


@dataclass(frozen=True)
class ToolInfo:
    """How a backend method is exposed as a tool.

    Attributes:
        name: Tool name (the method name).
        side_effect: Whether the tool writes; writers accept `idempotency_key`.
        destructive: Whether it may change or remove existing data (MCP `destructiveHint`).
        idempotent: Whether repeating the same call has no further effect (`idempotentHint`).
        entity_tags: Business entities the tool touches, for retrieval.
    """

    name: str
    side_effect: bool
    destructive: bool
    idempotent: bool
    entity_tags: tuple[str, ...]

    @property
    def capability(self) -> str:
        """Return the tool's verb, e.g. "create" for create_order."""
        return self.name.split("_", 1)[0]


def tool(
    *entity_tags: str,
    side_effect: bool,
    destructive: bool = False,
    idempotent: bool | None = None,
) -> Callable[[F], F]:
    """Mark a `Sandbox` method as a tool and run it in one transaction.

    Args:
        *entity_tags: Business entities the tool touches.
        side_effect: Whether the tool writes. Writers must declare `idempotency_key`.
        destructive: Whether it may change or remove existing data.
        idempotent: Whether repeating the call has no further effect; defaults to `not
            side_effect`.

    Returns:
        A decorator that wraps the method.
    """

    def decorate(method: F) -> F:
        signature = inspect.signature(method)
        if side_effect and "idempotency_key" not in signature.parameters:
            raise TypeError(f"writer tool {method.__name__} must accept idempotency_key")
        info = ToolInfo(
            name=method.__name__,
            side_effect=side_effect,
            destructive=destructive,
            idempotent=(not side_effect) if idempotent is None else idempotent,
            entity_tags=entity_tags,
        )

        @functools.wraps(method)
        def run(self: "Sandbox", *args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
            key = arguments.pop("idempotency_key", None)
            with self._transaction(write=side_effect):
                if key is None:
                    return method(self, *args, **kwargs)
                args_hash = _canonical_hash(arguments)
                replay = self._lookup_idempotency_key(key, info.name, args_hash)
                if replay is not None:
                    return replay
                result = method(self, *args, **kwargs)
                self._store_idempotency_key(key, info.name, args_hash, result)
                return result

        setattr(run, TOOL_ATTRIBUTE, info)
        return cast(F, run)

    return decorate


def tool_methods() -> list[tuple[ToolInfo, Callable[..., Any]]]:
    """Return every tool of `Sandbox` in definition order, with its unbound method."""
    found = []
    for member in vars(Sandbox).values():
        info = getattr(member, TOOL_ATTRIBUTE, None)
        if isinstance(info, ToolInfo):
            found.append((info, member))
    return found


def tool_description(method: Callable[..., Any]) -> str:
    """Return a tool's description: its docstring up to the Google-style sections.

    Args:
        method: A `@tool` method.

    Returns:
        The summary and extended description, as one paragraph.
    """
    doc = inspect.cleandoc(method.__doc__ or "")
    lines = []
    for line in doc.splitlines():
        if line.rstrip().endswith(":") and line.strip() in {"Args:", "Returns:", "Raises:"}:
            break
        lines.append(line.strip())
    return " ".join(part for part in lines if part)


def tool_argument_docs(method: Callable[..., Any]) -> dict[str, str]:
    """Return the per-argument descriptions of a tool's Google-style `Args:` section.

    Args:
        method: A `@tool` method.

    Returns:
        Argument name to description (continuation lines joined).
    """
    docs: dict[str, str] = {}
    current: str | None = None
    in_args = False
    for line in inspect.cleandoc(method.__doc__ or "").splitlines():
        stripped = line.strip()
        if stripped in {"Args:", "Returns:", "Raises:", "Yields:"}:
            in_args = stripped == "Args:"
            current = None
            continue
        if not in_args or not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        name, colon, text = stripped.partition(":")
        if indent <= 4 and colon and name.lstrip("*").isidentifier():
            current = name.lstrip("*")
            docs[current] = text.strip()
        elif current is not None:
            docs[current] = f"{docs[current]} {stripped}"
    return docs


def _canonical_hash(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _money(value: float) -> float:
    return round(float(value), 2)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _system_clock() -> datetime:
    return datetime.now(UTC)


class Sandbox:
    """The test-data backend for an e-commerce and local-delivery business.

    The database is opened (created and seeded when missing) on first use, not in the
    constructor. One instance serializes its calls with a lock; several processes may share
    a database file (WAL mode, `BEGIN IMMEDIATE` for writers).

    Args:
        db_path: SQLite file, or ":memory:".
        clock: Returns the current time; tests may inject a fixed one.
    """

    def __init__(self, db_path: str | Path, clock: Callable[[], datetime] = _system_clock) -> None:
        self.db_path = str(db_path)
        self._clock = clock
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    # ----------------------------------------------------------------- lifecycle

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection; the next call reopens it."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def reset(self) -> None:
        """Drop every table and load the deterministic seed again."""
        with self._lock:
            conn = self._connection()
            conn.execute("PRAGMA foreign_keys = OFF")
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%'"
                )
            ]
            conn.execute("BEGIN IMMEDIATE")
            try:
                for table in tables:
                    conn.execute(f'DROP TABLE IF EXISTS "{table}"')
                self._create_schema(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            finally:
                conn.execute("PRAGMA foreign_keys = ON")

    def count_rows(self, table: str) -> int:
        """Return the number of rows of a table (for tests and diagnostics).

        Args:
            table: A table name of the sandbox schema.

        Returns:
            The row count.
        """
        with self._transaction(write=False) as conn:
            names = {
                row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if table not in names:
                raise NotFoundError(f"table {table!r} does not exist")
            return int(conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            if self.db_path != ":memory:":
                Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.db_path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("BEGIN IMMEDIATE")
            try:
                exists = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'"
                ).fetchone()
                if exists is None:
                    self._create_schema(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @staticmethod
    def _create_schema(conn: sqlite3.Connection) -> None:
        ddl = resources.files("sandbox").joinpath("schema.sql").read_text(encoding="utf-8")
        # executescript would commit the caller's transaction: run statement by statement.
        code = "\n".join(line for line in ddl.splitlines() if not line.lstrip().startswith("--"))
        for statement in code.split(";"):
            if statement.strip():
                conn.execute(statement)
        seed(conn)

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            if conn.in_transaction:  # a tool called from another tool: join its transaction
                yield conn
                return
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @property
    def _db(self) -> sqlite3.Connection:
        assert self._conn is not None and self._conn.in_transaction, "outside a tool call"
        return self._conn

    def _now(self) -> str:
        return _iso(self._clock())

    def _lookup_idempotency_key(self, key: str, tool_name: str, args_hash: str) -> Any:
        row = self._db.execute(
            "SELECT tool, args_hash, result_json FROM idempotency_keys WHERE idempotency_key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        if row["tool"] != tool_name:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used by {row['tool']}; "
                f"use a new key for {tool_name}"
            )
        if row["args_hash"] != args_hash:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used by {tool_name} with different "
                "arguments; use a new key for a different request"
            )
        return json.loads(row["result_json"])

    def _store_idempotency_key(self, key: str, tool_name: str, args_hash: str, result: Any) -> None:
        self._db.execute(
            "INSERT INTO idempotency_keys (idempotency_key, tool, args_hash, result_json, "
            "created_at) VALUES (?, ?, ?, ?, ?)",
            (key, tool_name, args_hash, json.dumps(result, sort_keys=True), self._now()),
        )

    # ----------------------------------------------------------------- row helpers

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

    @staticmethod
    def _membership_record(row: sqlite3.Row) -> Membership:
        return Membership(
            membership_id=row["membership_id"],
            user_id=row["user_id"],
            tier=row["tier"],
            status=row["status"],
            started_at=row["started_at"],
            expires_at=row["expires_at"],
        )

    # ----------------------------------------------------------------- business rules

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
        allowed = ORDER_TRANSITIONS[current]
        if target in allowed:
            return
        if not allowed:
            raise InvalidTransitionError(
                f"order {order_id} is '{current}', a final status; cannot move to '{target}'"
            )
        raise InvalidTransitionError(
            f"order {order_id} is '{current}'; cannot move to '{target}' "
            f"(allowed: {', '.join(s for s in allowed if s != 'refunded') or 'none'})"
        )

    def _cancel_order(self, order_id: int, reason: str) -> None:
        order = self._require("orders", "order", order_id)
        self._check_order_transition(order_id, order["status"], "cancelled")
        for item in self._all("SELECT * FROM order_items WHERE order_id = ?", (order_id,)):
            self._put_stock(item["sku_id"], item["quantity"])
        if order["coupon_id"] is not None:
            self._db.execute(
                "UPDATE coupons SET status = 'issued', order_id = NULL WHERE coupon_id = ?",
                (order["coupon_id"],),
            )
        for payment in self._all(
            "SELECT * FROM payments WHERE order_id = ? AND status = 'succeeded'", (order_id,)
        ):
            self._return_payment(payment, payment["amount"])
        self._close_open_deliveries(order_id)
        self._record_order_status(order_id, order["status"], "cancelled", reason)

    def _return_payment(self, payment: sqlite3.Row, amount: float) -> None:
        self._db.execute(
            "UPDATE payments SET status = 'refunded' WHERE payment_id = ?", (payment["payment_id"],)
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
        if order["status"] not in ("created", "pending_payment"):
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
        if order["status"] == "created":
            self._record_order_status(order_id, "created", "pending_payment", "")
        self._record_order_status(order_id, "pending_payment", "paid", f"payment {payment_id}")
        return payment_id

    @staticmethod
    def _normalize_account(account_number: str) -> str:
        digits = account_number.strip()
        if not digits.isdigit() or len(digits) > 6:
            raise InvalidArgumentError(
                f"account number {account_number!r} is not valid: use up to 6 digits, e.g. '123456'"
            )
        return digits.zfill(6)

    # ================================================================= tools: users

    @tool("user", "account", side_effect=True)
    def create_user(
        self,
        name: str | None = None,
        account_number: str | None = None,
        email: str | None = None,
        phone: str | None = None,
        wallet_balance: Money = 0.0,
        idempotency_key: IdempotencyKey = None,
    ) -> User:
        """Create a test user with an account; the account number is generated when omitted.

        Args:
            name: Display name; defaults to "Test user <n>".
            account_number: 6-digit account number to use; must be unused.
            email: Contact e-mail.
            phone: Contact phone number.
            wallet_balance: Starting wallet balance.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new user.
        """
        if account_number is None:
            top = self._one("SELECT MAX(CAST(account_number AS INTEGER)) AS top FROM users")
            highest = 0 if top is None or top["top"] is None else int(top["top"])
            account = str(max(highest + 1, _FIRST_GENERATED_ACCOUNT)).zfill(6)
            if len(account) > 6:
                raise InvalidArgumentError("no 6-digit account numbers are left; pass one")
        else:
            account = self._normalize_account(account_number)
            if self._one("SELECT 1 FROM users WHERE account_number = ?", (account,)):
                raise InvalidArgumentError(f"account number {account} is already taken")
        user_id = self._insert(
            "users",
            {
                "account_number": account,
                "name": name or "",
                "email": email,
                "phone": phone,
                "status": "active",
                "wallet_balance": _money(wallet_balance),
                "created_at": self._now(),
            },
        )
        if not name:
            self._db.execute(
                "UPDATE users SET name = ? WHERE user_id = ?", (f"Test user {user_id}", user_id)
            )
        return self._user_record(user_id)

    @tool("user", side_effect=False)
    def get_user(self, user_id: UserId) -> User:
        """Get a user by user id, with account number, status and wallet balance.

        Args:
            user_id: The user.

        Returns:
            The user.
        """
        return self._user_record(user_id)

    @tool("user", "account", side_effect=False)
    def get_user_by_account(self, account_number: AccountNumber) -> User:
        """Look up the user who owns an account number (e.g. "123456"); returns their user_id.

        Args:
            account_number: Account number; shorter numbers are zero-padded ("42" -> "000042").

        Returns:
            The user.
        """
        account = self._normalize_account(account_number)
        row = self._one("SELECT user_id FROM users WHERE account_number = ?", (account,))
        if row is None:
            raise NotFoundError(f"no user has account number {account}")
        return self._user_record(row["user_id"])

    @tool("user", side_effect=False)
    def list_users(
        self, status: Literal["active", "frozen"] | None = None, limit: Limit = 50
    ) -> UserList:
        """List users, optionally only active or frozen ones.

        Args:
            status: Keep only users with this status.
            limit: Maximum number of users.

        Returns:
            The users, by user id.
        """
        rows = self._all(
            "SELECT user_id FROM users WHERE (? IS NULL OR status = ?) ORDER BY user_id LIMIT ?",
            (status, status, limit),
        )
        return UserList(users=[self._user_record(row["user_id"]) for row in rows])

    @tool("user", "wallet", side_effect=True, destructive=True)
    def top_up_balance(
        self, user_id: UserId, amount: Money = 50.0, idempotency_key: IdempotencyKey = None
    ) -> User:
        """Add money to a user's wallet balance.

        Args:
            user_id: The user.
            amount: Amount to add.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The user with the new balance.
        """
        self._require("users", "user", user_id)
        if amount <= 0:
            raise InvalidArgumentError("amount must be positive")
        self._db.execute(
            "UPDATE users SET wallet_balance = round(wallet_balance + ?, 2) WHERE user_id = ?",
            (amount, user_id),
        )
        return self._user_record(user_id)

    # ================================================================= tools: addresses

    @tool("address", "user", side_effect=True)
    def create_address(
        self,
        user_id: UserId,
        line1: str = "1 Test Street",
        city: str = DEFAULT_CITY,
        postcode: str = "10001",
        label: str = "home",
        is_default: bool = False,
        idempotency_key: IdempotencyKey = None,
    ) -> Address:
        """Add a delivery address to a user; the user's first address becomes the default.

        Args:
            user_id: The user.
            line1: Street and number.
            city: City.
            postcode: Postal code.
            label: A name such as "home" or "work".
            is_default: Make it the user's default address.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new address.
        """
        self._require("users", "user", user_id)
        has_any = self._one("SELECT 1 FROM addresses WHERE user_id = ?", (user_id,))
        make_default = is_default or has_any is None
        if make_default:
            self._db.execute("UPDATE addresses SET is_default = 0 WHERE user_id = ?", (user_id,))
        address_id = self._insert(
            "addresses",
            {
                "user_id": user_id,
                "label": label,
                "line1": line1,
                "city": city,
                "postcode": postcode,
                "is_default": int(make_default),
                "created_at": self._now(),
            },
        )
        row = self._require("addresses", "address", address_id)
        return self._address_record(row)

    @tool("address", "user", side_effect=False)
    def list_addresses(self, user_id: UserId) -> AddressList:
        """List a user's delivery addresses, default first.

        Args:
            user_id: The user.

        Returns:
            The addresses.
        """
        self._require("users", "user", user_id)
        rows = self._all(
            "SELECT * FROM addresses WHERE user_id = ? ORDER BY is_default DESC, address_id",
            (user_id,),
        )
        return AddressList(user_id=user_id, addresses=[self._address_record(r) for r in rows])

    # ================================================================= tools: shops

    @tool("shop", side_effect=True)
    def create_shop(
        self,
        name: str | None = None,
        city: str = DEFAULT_CITY,
        idempotency_key: IdempotencyKey = None,
    ) -> Shop:
        """Open a test shop that products can be listed in.

        Args:
            name: Shop name; defaults to "Test shop <n>".
            city: City the shop delivers from.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new shop.
        """
        shop_id = self._insert(
            "shops", {"name": name or "", "city": city, "status": "open", "created_at": self._now()}
        )
        if not name:
            self._db.execute(
                "UPDATE shops SET name = ? WHERE shop_id = ?", (f"Test shop {shop_id}", shop_id)
            )
        return self._shop_record(self._require("shops", "shop", shop_id))

    @tool("shop", side_effect=False)
    def get_shop(self, shop_id: ShopId) -> Shop:
        """Get a shop by id.

        Args:
            shop_id: The shop.

        Returns:
            The shop.
        """
        return self._shop_record(self._require("shops", "shop", shop_id))

    @tool("shop", side_effect=False)
    def list_shops(self, city: str | None = None) -> ShopList:
        """List shops, optionally in one city.

        Args:
            city: Keep only shops in this city.

        Returns:
            The shops, by shop id.
        """
        rows = self._all(
            "SELECT * FROM shops WHERE (? IS NULL OR city = ?) ORDER BY shop_id", (city, city)
        )
        return ShopList(shops=[self._shop_record(row) for row in rows])

    # ================================================================= tools: products

    @tool("product", "sku", "inventory", side_effect=True)
    def create_product(
        self,
        name: str | None = None,
        price: Money = 9.99,
        shop_id: ShopId | None = None,
        category: str = "general",
        stock: Stock = 100,
        idempotency_key: IdempotencyKey = None,
    ) -> Product:
        """Create a test product with a default SKU and stock in a shop (the default test shop).

        Args:
            name: Product name; defaults to "Test product <n>".
            price: Unit price.
            shop_id: Shop to list it in; defaults to the default test shop.
            category: Product category.
            stock: Units in stock for the default SKU.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new product, with `sku_id` of its default SKU.
        """
        shop = self._require("shops", "shop", DEFAULT_SHOP_ID if shop_id is None else shop_id)
        now = self._now()
        product_id = self._insert(
            "products",
            {
                "shop_id": shop["shop_id"],
                "name": name or "",
                "category": category,
                "price": _money(price),
                "status": "active",
                "created_at": now,
            },
        )
        if not name:
            self._db.execute(
                "UPDATE products SET name = ? WHERE product_id = ?",
                (f"Test product {product_id}", product_id),
            )
        sku_id = self._insert(
            "skus",
            {
                "product_id": product_id,
                "sku_code": f"P{product_id}-DEFAULT",
                "attributes": "",
                "price": _money(price),
                "created_at": now,
            },
        )
        self._put_stock(sku_id, stock)
        return self._product_record(product_id)

    @tool("product", side_effect=False)
    def get_product(self, product_id: ProductId) -> Product:
        """Get a product by id, with its price, default SKU and total stock.

        Args:
            product_id: The product.

        Returns:
            The product.
        """
        return self._product_record(product_id)

    @tool("product", side_effect=False)
    def list_products(
        self,
        shop_id: ShopId | None = None,
        query: str | None = None,
        include_archived: bool = False,
        limit: Limit = 50,
    ) -> ProductList:
        """List or search products, optionally in one shop or by a name fragment.

        Args:
            shop_id: Keep only this shop's products.
            query: Case-insensitive fragment of the product name.
            include_archived: Also list archived products.
            limit: Maximum number of products.

        Returns:
            The products, by product id.
        """
        rows = self._all(
            "SELECT product_id FROM products WHERE (? IS NULL OR shop_id = ?) "
            "AND (? IS NULL OR name LIKE '%' || ? || '%') AND (? OR status = 'active') "
            "ORDER BY product_id LIMIT ?",
            (shop_id, shop_id, query, query, int(include_archived), limit),
        )
        return ProductList(products=[self._product_record(row["product_id"]) for row in rows])

    @tool("product", "price", side_effect=True, destructive=True, idempotent=True)
    def update_product_price(
        self, product_id: ProductId, price: Money, idempotency_key: IdempotencyKey = None
    ) -> Product:
        """Change a product's price; its default SKU gets the same price.

        Args:
            product_id: The product.
            price: New unit price.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The product with the new price.
        """
        product = self._product_record(product_id)
        self._db.execute(
            "UPDATE products SET price = ? WHERE product_id = ?", (_money(price), product_id)
        )
        if product["sku_id"] is not None:
            self._db.execute(
                "UPDATE skus SET price = ? WHERE sku_id = ?", (_money(price), product["sku_id"])
            )
        return self._product_record(product_id)

    @tool("product", side_effect=True, destructive=True, idempotent=True)
    def archive_product(
        self, product_id: ProductId, idempotency_key: IdempotencyKey = None
    ) -> Product:
        """Archive a product so it can no longer be ordered or added to carts.

        Args:
            product_id: The product.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The archived product.
        """
        self._require("products", "product", product_id)
        self._db.execute(
            "UPDATE products SET status = 'archived' WHERE product_id = ?", (product_id,)
        )
        return self._product_record(product_id)

    # ================================================================= tools: SKUs, inventory

    @tool("sku", "product", side_effect=True)
    def create_sku(
        self,
        product_id: ProductId,
        attributes: str = "",
        price: Money | None = None,
        stock: Stock = 0,
        idempotency_key: IdempotencyKey = None,
    ) -> Sku:
        """Add a SKU (a variant such as size=L) to a product, with optional starting stock.

        Args:
            product_id: The product.
            attributes: Variant attributes, e.g. "size=L,color=red".
            price: Unit price; defaults to the product's price.
            stock: Units in stock.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new SKU.
        """
        product = self._require("products", "product", product_id)
        sku_id = self._insert(
            "skus",
            {
                "product_id": product_id,
                "sku_code": "",
                "attributes": attributes,
                "price": _money(product["price"] if price is None else price),
                "created_at": self._now(),
            },
        )
        self._db.execute(
            "UPDATE skus SET sku_code = ? WHERE sku_id = ?", (f"P{product_id}-S{sku_id}", sku_id)
        )
        self._put_stock(sku_id, stock)
        return self._sku_record(sku_id)

    @tool("sku", "product", side_effect=False)
    def list_skus(self, product_id: ProductId) -> SkuList:
        """List the SKUs of a product with their prices and stock.

        Args:
            product_id: The product.

        Returns:
            The SKUs, by SKU id.
        """
        self._require("products", "product", product_id)
        rows = self._all(
            "SELECT sku_id FROM skus WHERE product_id = ? ORDER BY sku_id", (product_id,)
        )
        return SkuList(product_id=product_id, skus=[self._sku_record(r["sku_id"]) for r in rows])

    @tool("inventory", "stock", "sku", side_effect=True, destructive=True)
    def add_inventory(
        self,
        quantity: Quantity = 10,
        sku_id: SkuId | None = None,
        product_id: ProductId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> InventoryLevel:
        """Restock a SKU, or a product's default SKU when only product_id is given.

        Args:
            quantity: Units to add.
            sku_id: The SKU to restock.
            product_id: The product whose default SKU to restock (when sku_id is omitted).
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The SKU's stock after the restock.
        """
        if sku_id is None:
            if product_id is None:
                raise InvalidArgumentError("pass sku_id or product_id")
            sku_id = self._resolve_sku(product_id, None)["sku_id"]
        sku = self._require("skus", "sku", sku_id)
        self._put_stock(sku_id, quantity)
        level = self._sku_record(sku_id)
        return InventoryLevel(sku_id=sku_id, product_id=sku["product_id"], quantity=level["stock"])

    @tool("inventory", "stock", "product", side_effect=False)
    def get_inventory(
        self, product_id: ProductId | None = None, sku_id: SkuId | None = None
    ) -> InventoryReport:
        """Get stock on hand of a product (all its SKUs) or of one SKU.

        Args:
            product_id: The product.
            sku_id: A single SKU (its product is reported).

        Returns:
            Stock per SKU and in total.
        """
        if sku_id is not None:
            sku = self._sku_record(sku_id)
            levels = [
                InventoryLevel(sku_id=sku_id, product_id=sku["product_id"], quantity=sku["stock"])
            ]
            return InventoryReport(
                product_id=sku["product_id"], total_quantity=sku["stock"], skus=levels
            )
        if product_id is None:
            raise InvalidArgumentError("pass product_id or sku_id")
        skus = self.list_skus(product_id)["skus"]
        levels = [
            InventoryLevel(sku_id=s["sku_id"], product_id=product_id, quantity=s["stock"])
            for s in skus
        ]
        return InventoryReport(
            product_id=product_id, total_quantity=sum(s["stock"] for s in skus), skus=levels
        )

    # ================================================================= tools: carts

    def _cart_record(self, user_id: int) -> Cart:
        cart = self._one("SELECT cart_id FROM carts WHERE user_id = ?", (user_id,))
        if cart is None:
            return Cart(cart_id=None, user_id=user_id, items=[], subtotal=0.0)
        items = [
            CartItem(
                cart_item_id=row["cart_item_id"],
                product_id=row["product_id"],
                sku_id=row["sku_id"],
                quantity=row["quantity"],
                unit_price=_money(row["unit_price"]),
            )
            for row in self._all(
                "SELECT * FROM cart_items WHERE cart_id = ? ORDER BY cart_item_id",
                (cart["cart_id"],),
            )
        ]
        subtotal = _money(sum(i["unit_price"] * i["quantity"] for i in items))
        return Cart(cart_id=cart["cart_id"], user_id=user_id, items=items, subtotal=subtotal)

    @tool("cart", "product", side_effect=True)
    def add_to_cart(
        self,
        user_id: UserId,
        product_id: ProductId,
        quantity: Quantity = 1,
        sku_id: SkuId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Cart:
        """Put a product (its default SKU unless sku_id is given) into a user's shopping cart.

        Args:
            user_id: The user.
            product_id: The product.
            quantity: Units to add.
            sku_id: A specific SKU of the product.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The whole cart.
        """
        self._active_user(user_id)
        sku = self._resolve_sku(product_id, sku_id)
        cart = self._one("SELECT cart_id FROM carts WHERE user_id = ?", (user_id,))
        cart_id = (
            self._insert("carts", {"user_id": user_id, "created_at": self._now()})
            if cart is None
            else cart["cart_id"]
        )
        self._db.execute(
            "INSERT INTO cart_items (cart_id, product_id, sku_id, quantity, unit_price) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (cart_id, sku_id) "
            "DO UPDATE SET quantity = quantity + excluded.quantity",
            (cart_id, product_id, sku["sku_id"], quantity, sku["price"]),
        )
        return self._cart_record(user_id)

    @tool("cart", side_effect=False)
    def get_cart(self, user_id: UserId) -> Cart:
        """Show a user's shopping cart and its subtotal.

        Args:
            user_id: The user.

        Returns:
            The cart (empty, with cart_id null, when the user has none).
        """
        self._require("users", "user", user_id)
        return self._cart_record(user_id)

    @tool("cart", side_effect=True, destructive=True, idempotent=True)
    def clear_cart(self, user_id: UserId, idempotency_key: IdempotencyKey = None) -> Cart:
        """Remove every item from a user's shopping cart.

        Args:
            user_id: The user.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The emptied cart.
        """
        self._require("users", "user", user_id)
        self._db.execute(
            "DELETE FROM cart_items WHERE cart_id IN (SELECT cart_id FROM carts WHERE user_id = ?)",
            (user_id,),
        )
        return self._cart_record(user_id)

    @tool("cart", "order", side_effect=True, destructive=True)
    def checkout_cart(
        self,
        user_id: UserId,
        address_id: AddressId | None = None,
        coupon_id: CouponId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Order:
        """Turn a user's cart into an order in status 'created' and empty the cart.

        Args:
            user_id: The user.
            address_id: Delivery address; defaults to the user's default address.
            coupon_id: An issued coupon of the user to apply.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new order.
        """
        cart = self._cart_record(user_id)
        if not cart["items"]:
            raise InvalidArgumentError(f"the cart of user {user_id} is empty; use add_to_cart")
        lines = [
            (self._resolve_sku(item["product_id"], item["sku_id"]), item["quantity"])
            for item in cart["items"]
        ]
        order_id = self._place_order(user_id, lines, address_id, coupon_id)
        self._db.execute("DELETE FROM cart_items WHERE cart_id = ?", (cart["cart_id"],))
        return self._order_record(order_id)

    # ================================================================= tools: orders

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

        Moving to 'paid' records a manual payment; refunds go through create_refund.

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
        self, order_id: OrderId, reason: str = "", idempotency_key: IdempotencyKey = None
    ) -> Order:
        """Cancel an order that is created, pending payment or paid.

        Stock is put back, a redeemed coupon is released and a payment is returned.

        Args:
            order_id: The order.
            reason: Why, kept in the order's history.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The cancelled order.
        """
        self._cancel_order(order_id, reason)
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

    # ================================================================= tools: payments

    @tool("payment", "order", side_effect=True, destructive=True)
    def pay_order(
        self,
        order_id: OrderId,
        method: PaymentMethod = "card",
        idempotency_key: IdempotencyKey = None,
    ) -> Payment:
        """Pay an order in full (card, wallet or cash); the order moves to 'paid'.

        Args:
            order_id: An order in status 'created' or 'pending_payment'.
            method: Payment method; 'wallet' debits the user's wallet balance.
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

    # ================================================================= tools: coupons

    @tool("coupon", "voucher", "template", side_effect=True)
    def create_coupon_template(
        self,
        name: str | None = None,
        discount_type: DiscountType = "fixed",
        value: DiscountValue = 5.0,
        min_spend: Money = 0.0,
        valid_days: ValidDays = 30,
        total_quantity: PositiveCount = 100,
        idempotency_key: IdempotencyKey = None,
    ) -> CouponTemplate:
        """Create a coupon (voucher) template: a fixed or percent discount to issue to users.

        Args:
            name: Campaign name; defaults to "Test coupon <n>".
            discount_type: 'fixed' amount off or 'percent' off the subtotal.
            value: Amount or percentage off.
            min_spend: Minimum order subtotal for the coupon to apply.
            valid_days: Days an issued coupon stays valid.
            total_quantity: How many coupons may be issued.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new template.
        """
        if discount_type == "percent" and value > 100:
            raise InvalidArgumentError("a percent discount cannot exceed 100")
        template_id = self._insert(
            "coupon_templates",
            {
                "name": name or "",
                "discount_type": discount_type,
                "value": _money(value),
                "min_spend": _money(min_spend),
                "valid_days": valid_days,
                "total_quantity": total_quantity,
                "issued_count": 0,
                "created_at": self._now(),
            },
        )
        if not name:
            self._db.execute(
                "UPDATE coupon_templates SET name = ? WHERE template_id = ?",
                (f"Test coupon {template_id}", template_id),
            )
        row = self._require("coupon_templates", "template", template_id)
        return self._template_record(row)

    @tool("coupon", "voucher", "template", side_effect=False)
    def list_coupon_templates(self) -> CouponTemplateList:
        """List all coupon (voucher) templates and how many of each were issued.

        Returns:
            The templates, by template id.
        """
        rows = self._all("SELECT * FROM coupon_templates ORDER BY template_id")
        return CouponTemplateList(templates=[self._template_record(row) for row in rows])

    @tool("coupon", "voucher", "user", side_effect=True)
    def issue_coupon(
        self,
        template_id: TemplateId,
        user_id: UserId,
        idempotency_key: IdempotencyKey = None,
    ) -> Coupon:
        """Issue a coupon (voucher) from a template to a user.

        Args:
            template_id: The coupon template.
            user_id: The user who receives it.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The issued coupon with its code.
        """
        template = self._require("coupon_templates", "template", template_id)
        self._require("users", "user", user_id)
        if template["issued_count"] >= template["total_quantity"]:
            raise InvalidArgumentError(
                f"coupon template {template_id} is used up ({template['total_quantity']} issued)"
            )
        now = self._clock()
        coupon_id = self._insert(
            "coupons",
            {
                "template_id": template_id,
                "user_id": user_id,
                "code": f"pending-{template_id}-{user_id}-{template['issued_count']}",
                "status": "issued",
                "issued_at": _iso(now),
                "expires_at": _iso(now + timedelta(days=template["valid_days"])),
            },
        )
        self._db.execute(
            "UPDATE coupons SET code = ? WHERE coupon_id = ?",
            (f"T{template_id}-{coupon_id:05d}", coupon_id),
        )
        self._db.execute(
            "UPDATE coupon_templates SET issued_count = issued_count + 1 WHERE template_id = ?",
            (template_id,),
        )
        return self._coupon_record(coupon_id)

    @tool("coupon", "voucher", "user", side_effect=False)
    def list_user_coupons(self, user_id: UserId, status: CouponStatus | None = None) -> CouponList:
        """List the coupons (vouchers) issued to a user, optionally only usable ones.

        Args:
            user_id: The user.
            status: Keep only coupons in this status ('issued' ones are usable).

        Returns:
            The coupons, by coupon id.
        """
        self._require("users", "user", user_id)
        rows = self._all(
            self._COUPON_SELECT
            + "WHERE c.user_id = ? AND (? IS NULL OR c.status = ?) ORDER BY c.coupon_id",
            (user_id, status, status),
        )
        return CouponList(user_id=user_id, coupons=[self._coupon_from_row(r) for r in rows])

    @tool("coupon", "voucher", "order", side_effect=True, destructive=True)
    def redeem_coupon(
        self, coupon_id: CouponId, order_id: OrderId, idempotency_key: IdempotencyKey = None
    ) -> Order:
        """Apply a user's coupon (voucher) to their unpaid order and lower its total.

        Args:
            coupon_id: An issued coupon of the order's user.
            order_id: An order in status 'created' or 'pending_payment' without a coupon.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The order with the discount.
        """
        order = self._require("orders", "order", order_id)
        if order["status"] not in ("created", "pending_payment"):
            raise InvalidTransitionError(
                f"order {order_id} is '{order['status']}'; coupons apply only to orders that "
                "are 'created' or 'pending_payment'"
            )
        if order["coupon_id"] is not None:
            raise InvalidArgumentError(f"order {order_id} already uses coupon {order['coupon_id']}")
        self._apply_coupon(order_id, coupon_id)
        return self._order_record(order_id)

    @tool("coupon", "voucher", side_effect=True, destructive=True, idempotent=False)
    def revoke_coupon(self, coupon_id: CouponId, idempotency_key: IdempotencyKey = None) -> Coupon:
        """Revoke an issued, unused coupon (voucher) so it can no longer be redeemed.

        Args:
            coupon_id: The coupon.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The revoked coupon.
        """
        coupon = self._coupon_record(coupon_id)
        if coupon["status"] != "issued":
            raise InvalidTransitionError(
                f"coupon {coupon_id} is '{coupon['status']}'; only 'issued' coupons can be revoked"
            )
        self._db.execute("UPDATE coupons SET status = 'revoked' WHERE coupon_id = ?", (coupon_id,))
        return self._coupon_record(coupon_id)

    # ================================================================= tools: riders, delivery

    @tool("rider", side_effect=True)
    def create_rider(
        self,
        name: str | None = None,
        city: str = DEFAULT_CITY,
        phone: str = "+1-555-0299",
        idempotency_key: IdempotencyKey = None,
    ) -> Rider:
        """Register an available delivery rider in a city.

        Args:
            name: Rider name; defaults to "Test rider <n>".
            city: City the rider works in.
            phone: Contact phone number.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new rider.
        """
        rider_id = self._insert(
            "riders",
            {
                "name": name or "",
                "phone": phone,
                "city": city,
                "status": "available",
                "created_at": self._now(),
            },
        )
        if not name:
            self._db.execute(
                "UPDATE riders SET name = ? WHERE rider_id = ?",
                (f"Test rider {rider_id}", rider_id),
            )
        return self._rider_record(self._require("riders", "rider", rider_id))

    @tool("rider", side_effect=False)
    def list_riders(self, status: RiderStatus | None = None, city: str | None = None) -> RiderList:
        """List delivery riders, optionally by status (e.g. 'available') or city.

        Args:
            status: Keep only riders in this status.
            city: Keep only riders in this city.

        Returns:
            The riders, by rider id.
        """
        rows = self._all(
            "SELECT * FROM riders WHERE (? IS NULL OR status = ?) AND (? IS NULL OR city = ?) "
            "ORDER BY rider_id",
            (status, status, city, city),
        )
        return RiderList(riders=[self._rider_record(row) for row in rows])

    @tool("delivery", "order", side_effect=True)
    def create_delivery(
        self,
        order_id: OrderId,
        address_id: AddressId | None = None,
        fee: Money | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Delivery:
        """Book a local delivery for a paid order; it waits in 'pending' for a rider.

        Active members deliver free; others pay the standard fee unless fee is given.

        Args:
            order_id: A paid or shipped order.
            address_id: Where to deliver; defaults to the order's address.
            fee: Delivery fee.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new delivery.
        """
        order = self._require("orders", "order", order_id)
        if order["status"] not in ("paid", "shipped"):
            raise InvalidTransitionError(
                f"order {order_id} is '{order['status']}'; only 'paid' or 'shipped' orders "
                "can be delivered (pay it with pay_order)"
            )
        open_delivery = self._one(
            "SELECT delivery_id FROM deliveries WHERE order_id = ? AND status IN "
            "('pending', 'assigned', 'picked_up', 'in_transit', 'delivered')",
            (order_id,),
        )
        if open_delivery is not None:
            raise InvalidArgumentError(
                f"order {order_id} already has delivery {open_delivery['delivery_id']}"
            )
        address = (
            self._default_address_id(order["user_id"], address_id)
            if address_id is not None
            else order["address_id"]
        )
        if fee is None:
            member = self._one(
                "SELECT 1 FROM memberships WHERE user_id = ? AND status = 'active' "
                "AND expires_at > ?",
                (order["user_id"], self._now()),
            )
            fee = 0.0 if member else DEFAULT_DELIVERY_FEE
        now = self._now()
        delivery_id = self._insert(
            "deliveries",
            {
                "order_id": order_id,
                "address_id": address,
                "rider_id": None,
                "status": "pending",
                "fee": _money(fee),
                "created_at": now,
                "updated_at": now,
            },
        )
        return self._delivery_record(delivery_id)

    @tool("delivery", "rider", side_effect=True, destructive=True)
    def assign_rider(
        self,
        delivery_id: DeliveryId,
        rider_id: RiderId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Delivery:
        """Assign a rider to a pending delivery; picks an available rider when none is given.

        Args:
            delivery_id: A delivery in status 'pending' or 'assigned' (reassignment).
            rider_id: The rider; must be available.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The delivery in status 'assigned'.
        """
        delivery = self._require("deliveries", "delivery", delivery_id)
        if delivery["status"] not in ("pending", "assigned"):
            raise InvalidTransitionError(
                f"delivery {delivery_id} is '{delivery['status']}'; riders can be assigned only "
                "to 'pending' or 'assigned' deliveries"
            )
        if rider_id is None:
            order = self._require("orders", "order", delivery["order_id"])
            shop = self._require("shops", "shop", order["shop_id"])
            pick = self._one(
                "SELECT rider_id FROM riders WHERE status = 'available' "
                "ORDER BY city = ? DESC, rider_id LIMIT 1",
                (shop["city"],),
            )
            if pick is None:
                raise InvalidArgumentError("no rider is available; add one with create_rider")
            rider_id = int(pick["rider_id"])
        rider = self._require("riders", "rider", rider_id)
        if rider["status"] != "available":
            raise InvalidArgumentError(f"rider {rider_id} is '{rider['status']}', not available")
        if delivery["rider_id"] is not None:
            self._db.execute(
                "UPDATE riders SET status = 'available' WHERE rider_id = ?", (delivery["rider_id"],)
            )
        self._db.execute("UPDATE riders SET status = 'busy' WHERE rider_id = ?", (rider_id,))
        self._db.execute(
            "UPDATE deliveries SET rider_id = ?, status = 'assigned', updated_at = ? "
            "WHERE delivery_id = ?",
            (rider_id, self._now(), delivery_id),
        )
        return self._delivery_record(delivery_id)

    @tool("delivery", "status", side_effect=True, destructive=True)
    def advance_delivery_status(
        self,
        delivery_id: DeliveryId,
        status: Literal["picked_up", "in_transit", "delivered", "failed", "cancelled"],
        idempotency_key: IdempotencyKey = None,
    ) -> Delivery:
        """Move a delivery along assigned → picked_up → in_transit → delivered (or failed).

        Pick-up marks a paid order 'shipped'; delivery marks a shipped order 'delivered'.

        Args:
            delivery_id: The delivery.
            status: The target status.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The delivery in its new status.
        """
        delivery = self._require("deliveries", "delivery", delivery_id)
        current = delivery["status"]
        allowed = DELIVERY_TRANSITIONS[current]
        target: str = status  # callers outside MCP are not held to the enum
        if target not in allowed or target == "assigned":
            shown = ", ".join(s for s in allowed if s != "assigned") or "none"
            hint = "; assign a rider with assign_rider" if "assigned" in allowed else ""
            raise InvalidTransitionError(
                f"delivery {delivery_id} is '{current}'; cannot move to '{status}' "
                f"(allowed: {shown}){hint}"
            )
        self._set_delivery_status(delivery, status)
        order = self._require("orders", "order", delivery["order_id"])
        if status == "picked_up" and order["status"] == "paid":
            self._record_order_status(
                order["order_id"], "paid", "shipped", f"delivery {delivery_id} picked up"
            )
        elif status == "delivered" and order["status"] == "shipped":
            self._record_order_status(
                order["order_id"], "shipped", "delivered", f"delivery {delivery_id} delivered"
            )
        return self._delivery_record(delivery_id)

    @tool("delivery", side_effect=False)
    def get_delivery(self, delivery_id: DeliveryId) -> Delivery:
        """Get a delivery by id, with its rider, status and fee.

        Args:
            delivery_id: The delivery.

        Returns:
            The delivery.
        """
        return self._delivery_record(delivery_id)

    # ================================================================= tools: reviews

    @tool("review", "product", "order", side_effect=True)
    def create_review(
        self,
        order_id: OrderId,
        rating: Rating = 5,
        comment: str = "",
        product_id: ProductId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Review:
        """Review a product of a delivered order, rating it from 1 to 5.

        Args:
            order_id: A delivered order.
            rating: Stars from 1 to 5.
            comment: Review text.
            product_id: The product to review; defaults to the order's first product.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new review.
        """
        order = self._order_record(order_id)
        if order["status"] != "delivered":
            raise InvalidTransitionError(
                f"order {order_id} is '{order['status']}'; only delivered orders can be reviewed"
            )
        products = [item["product_id"] for item in order["items"]]
        chosen = products[0] if product_id is None else product_id
        if chosen not in products:
            raise InvalidArgumentError(f"product {chosen} is not in order {order_id}")
        if self._one(
            "SELECT 1 FROM reviews WHERE order_id = ? AND product_id = ?", (order_id, chosen)
        ):
            raise InvalidArgumentError(f"product {chosen} of order {order_id} is already reviewed")
        review_id = self._insert(
            "reviews",
            {
                "order_id": order_id,
                "user_id": order["user_id"],
                "product_id": chosen,
                "rating": rating,
                "comment": comment,
                "created_at": self._now(),
            },
        )
        return self._review_record(self._require("reviews", "review", review_id))

    @tool("review", "product", side_effect=False)
    def list_reviews(
        self,
        product_id: ProductId | None = None,
        user_id: UserId | None = None,
        limit: Limit = 20,
    ) -> ReviewList:
        """List reviews, newest first, optionally of one product or by one user.

        Args:
            product_id: Keep only this product's reviews.
            user_id: Keep only this user's reviews.
            limit: Maximum number of reviews.

        Returns:
            The reviews.
        """
        rows = self._all(
            "SELECT * FROM reviews WHERE (? IS NULL OR product_id = ?) "
            "AND (? IS NULL OR user_id = ?) ORDER BY review_id DESC LIMIT ?",
            (product_id, product_id, user_id, user_id, limit),
        )
        return ReviewList(reviews=[self._review_record(row) for row in rows])

    # ================================================================= tools: refunds

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

    # ================================================================= tools: memberships

    @tool("membership", "user", side_effect=True)
    def create_membership(
        self,
        user_id: UserId,
        tier: MembershipTier = "gold",
        months: Months = 12,
        idempotency_key: IdempotencyKey = None,
    ) -> Membership:
        """Start a paid membership (silver, gold or platinum) for a user; members deliver free.

        Args:
            user_id: The user; must have no active membership.
            tier: Membership tier.
            months: Length of the membership.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The new membership.
        """
        self._active_user(user_id)
        active = self._one(
            "SELECT membership_id FROM memberships WHERE user_id = ? AND status = 'active'",
            (user_id,),
        )
        if active is not None:
            raise InvalidArgumentError(
                f"user {user_id} already has active membership {active['membership_id']}; "
                "cancel it with cancel_membership first"
            )
        start = self._clock()
        membership_id = self._insert(
            "memberships",
            {
                "user_id": user_id,
                "tier": tier,
                "status": "active",
                "started_at": _iso(start),
                "expires_at": _iso(start + timedelta(days=30 * months)),
            },
        )
        return self._membership_record(self._require("memberships", "membership", membership_id))

    @tool("membership", "user", side_effect=False)
    def get_membership(self, user_id: UserId) -> Membership:
        """Get a user's current membership (the active one, else the latest).

        Args:
            user_id: The user.

        Returns:
            The membership.
        """
        self._require("users", "user", user_id)
        row = self._one(
            "SELECT * FROM memberships WHERE user_id = ? "
            "ORDER BY status = 'active' DESC, membership_id DESC LIMIT 1",
            (user_id,),
        )
        if row is None:
            raise NotFoundError(
                f"user {user_id} has no membership; start one with create_membership"
            )
        return self._membership_record(row)

    @tool("membership", side_effect=True, destructive=True)
    def cancel_membership(
        self, membership_id: MembershipId, idempotency_key: IdempotencyKey = None
    ) -> Membership:
        """Cancel an active membership.

        Args:
            membership_id: The membership.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The cancelled membership.
        """
        row = self._require("memberships", "membership", membership_id)
        if row["status"] != "active":
            raise InvalidTransitionError(
                f"membership {membership_id} is '{row['status']}'; only active ones can be "
                "cancelled"
            )
        self._db.execute(
            "UPDATE memberships SET status = 'cancelled' WHERE membership_id = ?", (membership_id,)
        )
        return self._membership_record(self._require("memberships", "membership", membership_id))
