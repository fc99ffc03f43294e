"""Shop tools of the sandbox: the shops products are listed in and deliver from."""

from sandbox.backend.core import tool
from sandbox.backend.rules import DEFAULT_CITY, Rules
from sandbox.errors import InvalidArgumentError
from sandbox.models import IdempotencyKey, Shop, ShopId, ShopList


class ShopTools(Rules):
    """Tools on shops: open, get, list, delete."""

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

    @tool("shop", side_effect=True, destructive=True, idempotent=True)
    def delete_shop(self, shop_id: ShopId, idempotency_key: IdempotencyKey = None) -> Shop:
        """Delete a shop and its products; a shop whose products were ever ordered stays.

        Args:
            shop_id: The shop.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The shop as it was before it was deleted.
        """
        shop = self._shop_record(self._require("shops", "shop", shop_id))
        ordered = [
            row["order_id"]
            for row in self._all(
                "SELECT order_id FROM orders WHERE shop_id = ? UNION "
                "SELECT i.order_id FROM order_items i JOIN products p "
                "ON p.product_id = i.product_id WHERE p.shop_id = ? ORDER BY 1",
                (shop_id, shop_id),
            )
        ]
        if ordered:
            shown = ", ".join(str(order_id) for order_id in ordered[:5])
            more = ", ..." if len(ordered) > 5 else ""
            raise InvalidArgumentError(
                f"shop {shop_id} has orders ({shown}{more}) and cannot be deleted; archive "
                "its products with archive_product instead"
            )
        products = "SELECT product_id FROM products WHERE shop_id = ?"
        skus = f"SELECT sku_id FROM skus WHERE product_id IN ({products})"
        for statement in (
            f"DELETE FROM cart_items WHERE product_id IN ({products})",
            f"DELETE FROM inventory WHERE sku_id IN ({skus})",
            f"DELETE FROM skus WHERE product_id IN ({products})",
            "DELETE FROM products WHERE shop_id = ?",
            "DELETE FROM shops WHERE shop_id = ?",
        ):
            self._db.execute(statement, (shop_id,))
        return shop
