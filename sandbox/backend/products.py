"""Product tools of the sandbox: products with their default SKU, prices and archiving."""

from sandbox.backend.core import _money, tool
from sandbox.backend.rules import Rules
from sandbox.models import (
    IdempotencyKey,
    Limit,
    Money,
    Product,
    ProductId,
    ProductList,
    ShopId,
    Stock,
)
from sandbox.seed import DEFAULT_SHOP_ID


class ProductTools(Rules):
    """Tools on products: create, get, list or search, reprice, archive."""

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
