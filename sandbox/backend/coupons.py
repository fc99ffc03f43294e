"""Coupon tools of the sandbox: voucher templates, issuing, redeeming and revoking coupons."""

from datetime import timedelta

from sandbox.backend.core import _iso, _money, tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError, InvalidTransitionError
from sandbox.models import (
    Coupon,
    CouponId,
    CouponList,
    CouponStatus,
    CouponTemplate,
    CouponTemplateList,
    DiscountType,
    DiscountValue,
    IdempotencyKey,
    Money,
    Order,
    OrderId,
    PositiveCount,
    TemplateId,
    UserId,
    ValidDays,
)


class CouponTools(Rules):
    """Tools on coupons (vouchers): templates, issue, list, redeem on an order, revoke."""

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
