import pytest

from nodes.planning.binding import (
    coerce_to_schema,
    enum_mentioned,
    find_named_value,
    param_bases,
    plain_bases,
)
from stores.language.lexicon import Lexicon

LEXICON = Lexicon.default()


@pytest.mark.parametrize(("param", "named", "expected"), [
    ("account_number", {"account": "123456"}, "123456"),
    ("order_id", {"order": "17"}, "17"),
    ("orderId", {"order": "17"}, "17"),
    ("user_id", {"user": "42"}, "42"),
    ("coupon_id", {"voucher": "7"}, "7"),
    ("quantity", {"quantity": 3}, 3),
    ("status", {"status": "paid"}, "paid"),
])
def test_named_values_fill_parameters(param: str, named: dict[str, object], expected: object) -> None:
    found, value, _ = find_named_value(param, named, LEXICON)
    assert found and value == expected


def test_an_account_number_never_fills_a_user_id() -> None:
    assert find_named_value("user_id", {"account": "123456"}, LEXICON)[0] is False
    assert "user" not in param_bases("account_number", LEXICON)


def test_plain_bases_strip_identifier_suffixes() -> None:
    assert plain_bases("orderId") == ["orderId", "order_id", "order"]
    assert plain_bases("account_number")[-1] == "account"


@pytest.mark.parametrize(("param", "bases"), [
    ("paid", ["paid"]),  # no identifier: "pa" is nobody's name
    ("user_uuid", ["user_uuid", "user"]),
    ("team_ids", ["team_ids", "team"]),
    ("id", ["id"]),
    ("number", ["number"]),
])
def test_plain_bases_follow_the_one_identifier_rule(param: str, bases: list[str]) -> None:
    assert plain_bases(param) == bases


@pytest.mark.parametrize(("value", "schema", "expected"), [
    ("17", {"type": "integer"}, 17),
    ("000042", {"type": "string"}, "000042"),
    (42, {"type": "string"}, "42"),
    ("$9.50", {"type": "number"}, 9.5),
    ("yes", {"type": "boolean"}, True),
    ("Pending Payment", {"type": "string", "enum": ["created", "pending_payment"]}, "pending_payment"),
    ("abc", {"type": "integer"}, "abc"),
    (3.0, {"type": ["integer", "null"]}, 3),
])
def test_coercion_to_the_parameter_type(value: object, schema: dict[str, object], expected: object) -> None:
    assert coerce_to_schema(value, schema) == expected


def test_enum_values_named_in_a_clause() -> None:
    schema = {"enum": ["created", "pending_payment", "paid", "shipped"]}
    assert enum_mentioned("advance the order status to pending payment", schema) == "pending_payment"
    assert enum_mentioned("mark it as shipped", schema) == "shipped"
    assert enum_mentioned("cancel it", schema) is None


def test_optional_parameters_are_coerced_to_their_non_null_option() -> None:
    optional_id = {"anyOf": [{"type": "integer", "description": "Rider id."}, {"type": "null"}]}
    assert coerce_to_schema("1", optional_id) == 1
    optional_status = {"anyOf": [{"enum": ["created", "paid"], "type": "string"}, {"type": "null"}]}
    assert coerce_to_schema("Paid", optional_status) == "paid"
    assert coerce_to_schema(None, optional_id) is None
