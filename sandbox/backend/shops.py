"""Shop tools of the sandbox: the shops products are listed in and deliver from."""

from sandbox.backend.core import tool
from sandbox.backend.rules import DEFAULT_CITY, Rules
from sandbox.models import IdempotencyKey, Shop, ShopId, ShopList


class ShopTools(Rules):
    """Tools on shops: open, get, list."""

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
