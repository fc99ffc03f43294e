"""Records the sandbox tools return, and the annotated argument types they accept.

Records are `TypedDict`s (from `typing_extensions`, which pydantic needs on Python 3.11) so that
the MCP layer derives each tool's output schema from the same type the backend returns. Field
names line up across tools: an `order_id` in one tool's output is the `order_id` another takes.
"""

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypedDict

OrderStatus = Literal[
    "created", "pending_payment", "paid", "shipped", "delivered", "cancelled", "refunded"
]
DeliveryStatus = Literal[
    "pending", "assigned", "picked_up", "in_transit", "delivered", "failed", "cancelled"
]
# "wallet" is the user's balance in the shop; "alipay" and "wechat_pay" are the Alipay and
# WeChat Pay apps. A payment recorded by advance_order_status has the method "manual".
PaymentMethod = Literal["card", "wallet", "cash", "alipay", "wechat_pay"]
PaymentStatus = Literal["succeeded", "partially_refunded", "refunded"]
RefundStatus = Literal["requested", "completed", "rejected"]
DiscountType = Literal["fixed", "percent"]
MembershipTier = Literal["silver", "gold", "platinum"]
CouponStatus = Literal["issued", "redeemed", "revoked"]
RiderStatus = Literal["available", "busy", "off"]

# Annotated argument types: the descriptions end up in every tool's input schema.
UserId = Annotated[int, Field(description="User id (from get_user_by_account or create_user).")]
AccountNumber = Annotated[
    str, Field(description="6-digit account number, e.g. '123456'.", pattern=r"^\d{6}$")
]
ShopId = Annotated[int, Field(description="Shop id (from create_shop or list_shops).")]
ProductId = Annotated[int, Field(description="Product id (from create_product or list_products).")]
SkuId = Annotated[int, Field(description="SKU id (from create_sku, create_product or list_skus).")]
AddressId = Annotated[int, Field(description="Address id (from create_address).")]
OrderId = Annotated[int, Field(description="Order id (from create_order or list_orders).")]
PaymentId = Annotated[int, Field(description="Payment id (from pay_order).")]
TemplateId = Annotated[int, Field(description="Coupon template id (from create_coupon_template).")]
CouponId = Annotated[int, Field(description="Issued coupon id (from issue_coupon).")]
RiderId = Annotated[int, Field(description="Rider id (from create_rider or list_riders).")]
DeliveryId = Annotated[int, Field(description="Delivery id (from create_delivery).")]
RefundId = Annotated[
    int, Field(description="Refund id (from create_refund, request_refund or list_refunds).")
]
ReviewId = Annotated[int, Field(description="Review id (from create_review or list_reviews).")]
MembershipId = Annotated[int, Field(description="Membership id (from create_membership).")]
Quantity = Annotated[int, Field(description="Number of units.", ge=1, le=10_000)]
Money = Annotated[float, Field(description="Amount in the shop currency.", ge=0)]
Stock = Annotated[int, Field(description="Units in stock.", ge=0, le=1_000_000)]
DiscountValue = Annotated[
    float, Field(description="Amount off (fixed) or percentage off (percent).", gt=0)
]
ValidDays = Annotated[int, Field(description="Days an issued coupon stays valid.", ge=1, le=3650)]
PositiveCount = Annotated[int, Field(description="A count of at least 1.", ge=1)]
Rating = Annotated[int, Field(description="Stars from 1 (worst) to 5 (best).", ge=1, le=5)]
Months = Annotated[int, Field(description="Length in months.", ge=1, le=120)]
Days = Annotated[int, Field(description="Length in days.", ge=1, le=3650)]
Limit = Annotated[int, Field(description="Maximum number of rows to return.", ge=1, le=200)]
IdempotencyKey = Annotated[
    str | None,
    Field(
        description=(
            "Optional key: a retry with the same key and arguments returns the first result "
            "instead of writing again."
        )
    ),
]


class User(TypedDict):
    """A customer and their account."""

    user_id: int
    account_number: str
    name: str
    email: str | None
    phone: str | None
    status: Literal["active", "frozen"]
    wallet_balance: float
    created_at: str


class UserList(TypedDict):
    """A page of users."""

    users: list[User]


class Address(TypedDict):
    """A delivery address of a user."""

    address_id: int
    user_id: int
    label: str
    line1: str
    city: str
    postcode: str
    is_default: bool


class AddressList(TypedDict):
    """A user's addresses."""

    user_id: int
    addresses: list[Address]


class Shop(TypedDict):
    """A shop that sells products."""

    shop_id: int
    name: str
    city: str
    status: Literal["open", "closed"]


class ShopList(TypedDict):
    """A page of shops."""

    shops: list[Shop]


class Product(TypedDict):
    """A product; `sku_id` is its default SKU."""

    product_id: int
    shop_id: int
    sku_id: int | None
    name: str
    category: str
    price: float
    status: Literal["active", "archived"]
    stock: int


class ProductList(TypedDict):
    """A page of products."""

    products: list[Product]


class Sku(TypedDict):
    """A sellable variant of a product, with its stock on hand."""

    sku_id: int
    product_id: int
    sku_code: str
    attributes: str
    price: float
    stock: int


class SkuList(TypedDict):
    """The SKUs of one product."""

    product_id: int
    skus: list[Sku]


class InventoryLevel(TypedDict):
    """Stock on hand of one SKU."""

    sku_id: int
    product_id: int
    quantity: int


class InventoryReport(TypedDict):
    """Stock of a product, per SKU and in total."""

    product_id: int
    total_quantity: int
    skus: list[InventoryLevel]


class CartItem(TypedDict):
    """One line of a cart."""

    cart_item_id: int
    product_id: int
    sku_id: int
    quantity: int
    unit_price: float


class Cart(TypedDict):
    """A user's shopping cart."""

    cart_id: int | None
    user_id: int
    items: list[CartItem]
    subtotal: float


class OrderItem(TypedDict):
    """One line of an order."""

    product_id: int
    sku_id: int
    quantity: int
    unit_price: float


class Order(TypedDict):
    """An order with its lines and money totals."""

    order_id: int
    user_id: int
    shop_id: int
    address_id: int | None
    status: OrderStatus
    subtotal: float
    discount: float
    total: float
    coupon_id: int | None
    items: list[OrderItem]
    created_at: str
    updated_at: str


class OrderList(TypedDict):
    """A page of orders, newest first."""

    orders: list[Order]


class OrderStatusChange(TypedDict):
    """One status change of an order."""

    from_status: OrderStatus | None
    to_status: OrderStatus
    note: str
    changed_at: str


class OrderHistory(TypedDict):
    """Every status an order went through, oldest first."""

    order_id: int
    status: OrderStatus
    history: list[OrderStatusChange]


class Payment(TypedDict):
    """A payment of an order."""

    payment_id: int
    order_id: int
    amount: float
    refunded_amount: float
    method: Literal["card", "wallet", "cash", "alipay", "wechat_pay", "manual"]
    status: PaymentStatus
    created_at: str


class PaymentList(TypedDict):
    """The payments of one order."""

    order_id: int
    payments: list[Payment]


class CouponTemplate(TypedDict):
    """A coupon (voucher) campaign from which coupons are issued to users."""

    template_id: int
    name: str
    discount_type: DiscountType
    value: float
    min_spend: float
    valid_days: int
    total_quantity: int
    issued_count: int


class CouponTemplateList(TypedDict):
    """All coupon templates."""

    templates: list[CouponTemplate]


class Coupon(TypedDict):
    """A coupon (voucher) issued to one user."""

    coupon_id: int
    template_id: int
    user_id: int
    code: str
    status: CouponStatus
    discount_type: DiscountType
    value: float
    min_spend: float
    order_id: int | None
    issued_at: str
    expires_at: str


class CouponList(TypedDict):
    """The coupons of one user."""

    user_id: int
    coupons: list[Coupon]


class Rider(TypedDict):
    """A delivery rider."""

    rider_id: int
    name: str
    phone: str
    city: str
    status: RiderStatus


class RiderList(TypedDict):
    """A page of riders."""

    riders: list[Rider]


class Delivery(TypedDict):
    """The local delivery of an order."""

    delivery_id: int
    order_id: int
    address_id: int | None
    rider_id: int | None
    status: DeliveryStatus
    fee: float
    created_at: str
    updated_at: str


class Review(TypedDict):
    """A product review left after a delivered order."""

    review_id: int
    order_id: int
    user_id: int
    product_id: int
    rating: int
    comment: str
    created_at: str


class ReviewList(TypedDict):
    """A page of reviews, newest first."""

    reviews: list[Review]


class Refund(TypedDict):
    """A refund of (part of) an order's payment: requested, then completed or rejected."""

    refund_id: int
    order_id: int
    payment_id: int
    amount: float
    reason: str
    status: RefundStatus
    created_at: str


class RefundList(TypedDict):
    """A page of refunds, newest first."""

    refunds: list[Refund]


class Membership(TypedDict):
    """A paid membership of a user."""

    membership_id: int
    user_id: int
    tier: MembershipTier
    status: Literal["active", "cancelled", "expired"]
    started_at: str
    expires_at: str
