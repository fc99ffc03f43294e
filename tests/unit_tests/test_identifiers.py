"""One home for names: words of a name, singular nouns, identifier names."""

from __future__ import annotations

import pytest

from stores.language.identifiers import identifier_base, is_identifier_name, singular, split_words


@pytest.mark.parametrize(("plural", "expected"), [
    ("orders", "order"), ("addresses", "address"), ("address", "address"),
    ("deliveries", "delivery"), ("boxes", "box"), ("statuses", "status"), ("status", "status"),
    ("buses", "bus"), ("analysis", "analysis"), ("Orders", "Order"), ("ids", "ids"),
])
def test_singular(plural: str, expected: str) -> None:
    assert singular(plural) == expected


@pytest.mark.parametrize(("name", "identifier", "base"), [
    ("order_id", True, "order"), ("accountNumber", True, "account"), ("id", True, ""),
    ("sku_code", True, "sku"), ("order_no", True, "order"), ("quantity", False, "quantity"),
    ("name", False, "name"), ("getUserByID", True, "get_user_by"),
])
def test_identifier_names(name: str, identifier: bool, base: str) -> None:
    assert is_identifier_name(name) is identifier
    assert identifier_base(name) == base


def test_split_words() -> None:
    assert split_words("getUserByID") == ["get", "user", "by", "id"]
    assert split_words("order-status_v2") == ["order", "status", "v2"]
