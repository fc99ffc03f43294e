"""Cart tools of the sandbox: a user's shopping cart and its checkout into an order."""

from sandbox.backend.core import _money, tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError
from sandbox.models import (
    AddressId,
    Cart,
    CartItem,
    CouponId,
    IdempotencyKey,
    Order,
    ProductId,
    Quantity,
    SkuId,
    UserId,
)


class CartTools(Rules):
    """Tools on shopping carts: add to, show, clear and check out a user's cart."""

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
