"""SKU and inventory tools of the sandbox: product variants and their stock on hand."""

from sandbox.backend.core import _money, tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError
from sandbox.models import (
    IdempotencyKey,
    InventoryLevel,
    InventoryReport,
    Money,
    ProductId,
    Quantity,
    Sku,
    SkuId,
    SkuList,
    Stock,
)


class InventoryTools(Rules):
    """Tools on SKUs and stock: add a SKU, list a product's SKUs, restock, report stock."""

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

    @tool("inventory", "stock", "sku", side_effect=True, destructive=True, idempotent=True)
    def set_inventory(
        self,
        quantity: Stock,
        sku_id: SkuId | None = None,
        product_id: ProductId | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> InventoryLevel:
        """Set a SKU's stock on hand to an exact number, zero included (sold out).

        Args:
            quantity: Units in stock after the call.
            sku_id: The SKU.
            product_id: The product whose default SKU to set (when sku_id is omitted).
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The SKU's stock.
        """
        if quantity < 0:
            raise InvalidArgumentError(f"stock cannot be negative; got {quantity}")
        if sku_id is None:
            if product_id is None:
                raise InvalidArgumentError("pass sku_id or product_id")
            sku_id = self._resolve_sku(product_id, None)["sku_id"]
        sku = self._require("skus", "sku", sku_id)
        if product_id is not None and sku["product_id"] != product_id:
            raise InvalidArgumentError(
                f"sku {sku_id} belongs to product {sku['product_id']}, not product {product_id}"
            )
        self._set_stock(sku_id, quantity)
        return InventoryLevel(sku_id=sku_id, product_id=sku["product_id"], quantity=quantity)

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
