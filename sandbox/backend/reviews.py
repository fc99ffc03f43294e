"""Review tools of the sandbox: ratings of the products of delivered orders."""

from sandbox.backend.core import tool
from sandbox.backend.rules import Rules
from sandbox.errors import InvalidArgumentError, InvalidTransitionError
from sandbox.models import (
    IdempotencyKey,
    Limit,
    OrderId,
    ProductId,
    Rating,
    Review,
    ReviewId,
    ReviewList,
    UserId,
)


class ReviewTools(Rules):
    """Tools on reviews: review a delivered order's product, list and delete reviews."""

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

    @tool("review", side_effect=True, destructive=True, idempotent=True)
    def delete_review(self, review_id: ReviewId, idempotency_key: IdempotencyKey = None) -> Review:
        """Delete a review; the order's product can then be reviewed again.

        Args:
            review_id: The review.
            idempotency_key: Replays the first result for the same key and arguments.

        Returns:
            The review as it was before it was deleted.
        """
        review = self._review_record(self._require("reviews", "review", review_id))
        self._db.execute("DELETE FROM reviews WHERE review_id = ?", (review_id,))
        return review
