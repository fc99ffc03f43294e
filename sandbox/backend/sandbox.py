"""`Sandbox`, every domain's tools composed into one class, and `tool_methods`, its tools."""

from collections.abc import Callable
from typing import Any

from sandbox.backend.addresses import AddressTools
from sandbox.backend.carts import CartTools
from sandbox.backend.core import TOOL_ATTRIBUTE, ToolInfo
from sandbox.backend.coupons import CouponTools
from sandbox.backend.delivery import DeliveryTools
from sandbox.backend.inventory import InventoryTools
from sandbox.backend.memberships import MembershipTools
from sandbox.backend.orders import OrderTools
from sandbox.backend.payments import PaymentTools
from sandbox.backend.products import ProductTools
from sandbox.backend.refunds import RefundTools
from sandbox.backend.reviews import ReviewTools
from sandbox.backend.shops import ShopTools
from sandbox.backend.users import UserTools


class Sandbox(
    UserTools,
    AddressTools,
    ShopTools,
    ProductTools,
    InventoryTools,
    CartTools,
    OrderTools,
    PaymentTools,
    CouponTools,
    DeliveryTools,
    ReviewTools,
    RefundTools,
    MembershipTools,
):
    """The test-data backend for an e-commerce and local-delivery business.

    The database is opened (created and seeded when missing) on first use, not in the
    constructor. One instance serializes its calls with a lock; several processes may share
    a database file (WAL mode, `BEGIN IMMEDIATE` for writers).

    Args:
        db_path: SQLite file, or ":memory:".
        clock: The sandbox's clock (`sandbox.clock.SandboxClock`, or any callable returning
            an aware datetime); None takes the environment's, else the database's.
    """


def tool_methods() -> list[tuple[ToolInfo, Callable[..., Any]]]:
    """Return every tool of `Sandbox` in definition order, with its unbound method.

    Definition order is the order of the domain classes in `Sandbox`'s bases, then the order
    of the tools within each domain module; a name is taken from the first class of the MRO
    that defines it, as attribute lookup does.
    """
    found = []
    seen: set[str] = set()
    for klass in Sandbox.__mro__:
        for name, member in vars(klass).items():
            if name in seen:
                continue
            seen.add(name)
            info = getattr(member, TOOL_ATTRIBUTE, None)
            if isinstance(info, ToolInfo):
                found.append((info, member))
    return found
