"""Delivery tools of the sandbox: riders, and deliveries along the delivery status machine."""

from typing import Literal

from sandbox.backend.core import _money, tool
from sandbox.backend.lifecycle import ACTIVE_DELIVERY_STATUSES, DELIVERY_TRANSITIONS
from sandbox.backend.rules import DEFAULT_CITY, DEFAULT_DELIVERY_FEE, Rules
from sandbox.errors import InvalidArgumentError, InvalidTransitionError, NotFoundError
from sandbox.models import (
    AddressId,
    Delivery,
    DeliveryId,
    IdempotencyKey,
    Money,
    OrderId,
    Rider,
    RiderId,
    RiderList,
    RiderStatus,
)


class DeliveryTools(Rules):
    """Tools on riders and deliveries: register riders, book, assign, advance, get deliveries."""

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

    @tool("delivery", "order", side_effect=False)
    def get_delivery_by_order(self, order_id: OrderId) -> Delivery:
        """Look up the delivery of an order: its open one, else its latest.

        Args:
            order_id: The order.

        Returns:
            The delivery.
        """
        self._require("orders", "order", order_id)
        marks = ", ".join("?" * len(ACTIVE_DELIVERY_STATUSES))
        row = self._one(
            f"SELECT delivery_id FROM deliveries WHERE order_id = ? "
            f"ORDER BY status IN ({marks}) DESC, delivery_id DESC LIMIT 1",
            (order_id, *ACTIVE_DELIVERY_STATUSES),
        )
        if row is None:
            raise NotFoundError(f"order {order_id} has no delivery; book one with create_delivery")
        return self._delivery_record(row["delivery_id"])
