"""The rule intent parser: splitting, operations and targets, entities, links, actions."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

from nodes.parsing import IntentParseError
from nodes.parsing.rules import RuleIntentParser, parse_request
from nodes.state import Intent


class Step(NamedTuple):
    """Expected sub-intent: entities is a subset check, depends_on exact."""

    operation: str
    target: str
    entities: dict[str, Any] = {}
    depends_on: tuple[str, ...] = ()
    action: str = "call_api"


@pytest.fixture(scope="module")
def parser() -> RuleIntentParser:
    return RuleIntentParser()


CASES: list[tuple[str, list[Step]]] = [
    # the paper's example
    (
        "create a test product, place an order using account 123456, and advance the order "
        "status to pending payment",
        [
            Step("create", "product"),
            Step("create", "order", {"account": "123456"}, ("s1",)),
            Step("advance", "order", {"status": "pending_payment"}, ("s2",)),
        ],
    ),
    # synonyms of create for orders
    ("place an order for user 42", [Step("create", "order", {"user": "42"})]),
    ("Make an order with account 123456", [Step("create", "order", {"account": "123456"})]),
    ("submit an order for account 123456", [Step("create", "order", {"account": "123456"})]),
    ("I need a new voucher for account 123456", [Step("create", "coupon", {"account": "123456"})]),
    # synonyms of get / search
    ("look up order 17", [Step("get", "order", {"order": "17"})]),
    ("fetch the voucher ABC123", [Step("get", "coupon", {"voucher": "ABC123"})]),
    ("find all orders of user 42", [Step("list", "order", {"user": "42"})]),
    ("give me the order details for order #17", [Step("get", "order", {"order": "17"})]),
    ("What's the status of order ORD-2024-001?", [Step("get", "order", {"order": "ORD-2024-001"})]),
    ("How many orders does user 42 have?", [Step("count", "order", {"user": "42"})]),
    # passive voice and nominalizations
    ("An order should be created for user 42", [Step("create", "order", {"user": "42"})]),
    (
        "the order for account 123456 should be paid with wallet",
        [Step("pay", "order", {"account": "123456", "method": "wallet"})],
    ),
    ("creation of a coupon for user 7", [Step("create", "coupon", {"user": "7"})]),
    ("cancellation of order 17, please", [Step("cancel", "order", {"order": "17"})]),
    # clause order
    (
        "After creating a user, issue them a coupon",
        [Step("create", "user"), Step("issue", "coupon", {}, ("s1",))],
    ),
    (
        "pay the order after creating it",
        [Step("create", "order"), Step("pay", "order", {}, ("s1",))],
    ),
    (
        "Create a user before placing an order for them",
        [Step("create", "user"), Step("create", "order", {}, ("s1",))],
    ),
    (
        "Before paying the order, apply coupon SAVE10 to order 17",
        [
            Step("redeem", "coupon", {"coupon": "SAVE10", "order": "17"}),
            Step("pay", "order", {"order": "17"}, ("s1",)),
        ],
    ),
    # connectors
    (
        "Make an order for user 42 then pay it",
        [Step("create", "order", {"user": "42"}), Step("pay", "order", {}, ("s1",))],
    ),
    (
        "create a product; create a shop",
        [Step("create", "product"), Step("create", "shop")],
    ),
    (
        "Create a user. After that, create an address for them. Finally place an order.",
        [
            Step("create", "user"),
            Step("create", "address", {}, ("s1",)),
            Step("create", "order", {}, ("s1", "s2")),
        ],
    ),
    (
        "1) create a user 2) create a product 3) place an order",
        [
            Step("create", "user"),
            Step("create", "product"),
            Step("create", "order", {}, ("s1", "s2")),
        ],
    ),
    (
        "create a product. Next, create an order for it using account 123456",
        [Step("create", "product"), Step("create", "order", {"account": "123456"}, ("s1",))],
    ),
    # numbers written out, quantities, prices, names
    (
        "order three items of product 5 for user 42",
        [Step("create", "order", {"quantity": 3, "product": "5", "user": "42"})],
    ),
    (
        "create two users and twenty-five products",
        [Step("create", "user", {"quantity": 2}), Step("create", "product", {"quantity": 25})],
    ),
    (
        "create a product named 'Blue Mug' priced at $30; then place 2 orders for it using "
        "account 123456",
        [
            Step("create", "product", {"name": "Blue Mug", "price": 30.0}),
            Step("create", "order", {"quantity": 2, "account": "123456"}, ("s1",)),
        ],
    ),
    (
        "Create a shop called Fresh Mart, add a product named Apple priced at 5 yuan with stock "
        "100, then create a coupon of 20% off",
        [
            Step("create", "shop", {"name": "Fresh Mart"}),
            Step("create", "product", {"name": "Apple", "price": 5.0, "stock": 100}, ("s1",)),
            Step("create", "coupon", {"percent": 20.0}),
        ],
    ),
    (
        "Update the price of product 5 to $20",
        [Step("update", "product", {"product": "5", "price": 20.0})],
    ),
    (
        "Restock product 9 with fifty units",
        [Step("create", "inventory", {"product": "9", "quantity": 50})],
    ),
    # pronouns and references
    (
        "create a product, then order it",
        [Step("create", "product"), Step("create", "order", {}, ("s1",))],
    ),
    (
        "get order 17 and then cancel it",
        [Step("get", "order", {"order": "17"}), Step("cancel", "order", {"order": "17"}, ("s1",))],
    ),
    (
        "Get user 42. Then create an order for the same user",
        [Step("get", "user", {"user": "42"}), Step("create", "order", {"user": "42"}, ("s1",))],
    ),
    (
        "Create an order for user 42, then cancel that order",
        [Step("create", "order", {"user": "42"}), Step("cancel", "order", {}, ("s1",))],
    ),
    (
        "Create an order, pay for it, ship it, and mark it as delivered",
        [
            Step("create", "order"),
            Step("pay", "order", {}, ("s1",)),
            Step("ship", "order", {}, ("s2",)),
            Step("advance", "order", {"status": "delivered"}, ("s3",)),
        ],
    ),
    (
        "Find the user whose account is 123456 and cancel their latest order",
        [
            Step("search", "user", {"account": "123456"}),
            Step("cancel", "order", {"account": "123456"}, ("s1",)),
        ],
    ),
    # key=value
    (
        "Create order for user_id=42, product_id=7, qty=2",
        [Step("create", "order", {"user_id": "42", "product_id": "7", "quantity": 2})],
    ),
    (
        "set order 17 status=shipped",
        [Step("advance", "order", {"order": "17", "status": "shipped"})],
    ),
    # single steps with other operations
    ("Set the status of order 17 to shipped", [Step("advance", "order", {"status": "shipped"})]),
    ("Mark order #17 as delivered", [Step("advance", "order", {"order": "17"})]),
    (
        "Cancel order 17 because the customer changed their mind",
        [Step("cancel", "order", {"order": "17", "reason": "the customer changed their mind"})],
    ),
    (
        "Leave a 5-star review for order 17 saying 'great'",
        [Step("create", "review", {"rating": 5, "order": "17", "comment": "great"})],
    ),
    ("Top up user 42's wallet by 100 yuan", [Step("pay", "wallet", {"amount": 100.0})]),
    ("issue user 42 a voucher", [Step("issue", "coupon", {"user": "42"})]),
    (
        "Register a user with phone +1-555-0100 and email a@b.com",
        [Step("create", "user", {"phone": "+1-555-0100", "email": "a@b.com"})],
    ),
    (
        "Add product 7 to the cart of user 42 and check out",
        [Step("create", "cart", {"product": "7", "user": "42"}), Step("pay", "cart", {}, ("s1",))],
    ),
    (
        "create a membership of gold tier for user 42 for 12 months",
        [Step("create", "membership", {"tier": "gold", "months": 12, "user": "42"})],
    ),
    (
        "For account 123456, create an order of product 7 and pay for it with the wallet",
        [
            Step("create", "order", {"account": "123456", "product": "7"}),
            Step("pay", "order", {"method": "wallet"}, ("s1",)),
        ],
    ),
    (
        "Advance order 1001 to shipped, then to delivered",
        [
            Step("advance", "order", {"order": "1001", "status": "shipped"}),
            Step("advance", "order", {"order": "1001", "status": "delivered"}, ("s1",)),
        ],
    ),
    (
        "create a product, then have user 42 buy it",
        [Step("create", "product"), Step("create", "order", {"user": "42"}, ("s1",))],
    ),
    ("review order 17 with 4 stars", [Step("create", "review", {"order": "17", "rating": 4})]),
    ("give me a coupon for user 42", [Step("issue", "coupon", {"user": "42"})]),
    # "and" that must not split
    ("show orders and payments for user 42", [Step("list", "order", {"user": "42"})]),
    ("list users and their addresses", [Step("list", "user")]),
    ("create an order for a user and a product", [Step("create", "order")]),
    ("list all orders and refunds of user 42", [Step("list", "order", {"user": "42"})]),
    # lists of things to create do split
    ("create a coupon and a product", [Step("create", "coupon"), Step("create", "product")]),
    # direct answers
    ("hi", [Step("", "", action="direct_answer")]),
    ("thanks!", [Step("", "", action="direct_answer")]),
    ("what can you do?", [Step("", "", action="direct_answer")]),
    # arithmetic: a tool of the catalog may do it; its own answer is kept for when none does
    ("what is 2+2", [Step("", "", action="retrieve_api")]),
    ("what is a coupon?", [Step("", "", action="direct_answer")]),
    # greetings around a task are dropped
    ("Hi, please create an order for user 42. Thanks!", [Step("create", "order", {"user": "42"})]),
    # clarification
    ("cancel the order", [Step("cancel", "order", action="clarify_intent")]),
    ("Delete the coupon", [Step("delete", "coupon", action="clarify_intent")]),
    ("refund it", [Step("refund", "", action="clarify_intent")]),
    # no clarification when something names or produces the object
    ("cancel all pending orders", [Step("cancel", "order", {"status": "pending_payment"})]),
    ("delete a coupon", [Step("delete", "coupon")]),
    (
        "Create a delivery for order 17, then assign a rider",
        [Step("create", "delivery", {"order": "17"}), Step("assign", "rider")],
    ),
    # nothing in the lexicon
    ("translate this sentence to French", [Step("", "", action="retrieve_api")]),
    # "order" as a verb before what is bought, also after a leading phrase
    (
        "Order product 2 for account 654321, then cancel that order",
        [
            Step("create", "order", {"product": "2", "account": "654321"}),
            Step("cancel", "order", depends_on=("s1",)),
        ],
    ),
    (
        "Using account 123456, order product 3 and move the order to pending payment",
        [
            Step("create", "order", {"account": "123456", "product": "3"}),
            Step("advance", "order", {"status": "pending_payment"}, ("s1",)),
        ],
    ),
    (
        "After ordering product 5 for account 654321, pay the order with the wallet",
        [
            Step("create", "order", {"product": "5"}),
            Step("pay", "order", {"method": "wallet"}, ("s1",)),
        ],
    ),
    # plurals list, questions about what exists look up, "list a product" creates one
    ("Which shops are there in Springfield?", [Step("list", "shop", {"city": "Springfield"})]),
    ("What payments were made for order 2?", [Step("list", "payment", {"order": "2"})]),
    (
        "Create a shop, list a product in it",
        [Step("create", "shop"), Step("create", "product", depends_on=("s1",))],
    ),
    # written-out ids, a verb that is also a noun, "its <object>" after a lookup
    ("Show refund number 1", [Step("get", "refund", {"refund": "1"})]),
    ("Show order three", [Step("get", "order", {"order": "3"})]),
    (
        "Show product 1 and its stock",
        [Step("get", "product", {"product": "1"}), Step("get", "inventory", {}, ("s1",))],
    ),
    # "it" as the object of a giving verb; giving what one does not issue creates it
    (
        "Create a voucher template and give it to user 3",
        [Step("create", "coupon"), Step("issue", "coupon", {"user": "3"}, ("s1",))],
    ),
    (
        "Create a user named Pia and give her a platinum membership",
        [
            Step("create", "user", {"name": "Pia"}),
            Step("create", "membership", {"tier": "platinum"}, ("s1",)),
        ],
    ),
]


def _check(intent: Intent, expected: list[Step]) -> None:
    subs = intent["sub_intents"]
    got = [(s["operation"], s["target"], s["action"], s["text"]) for s in subs]
    assert len(subs) == len(expected), got
    for index, (sub, step) in enumerate(zip(subs, expected, strict=True)):
        assert sub["id"] == f"s{index + 1}"
        assert (sub["operation"], sub["target"], sub["action"]) == (
            step.operation,
            step.target,
            step.action,
        ), got
        for key, value in step.entities.items():
            assert sub["entities"].get(key) == value, (key, sub["entities"])
        assert sub["depends_on"] == list(step.depends_on), (sub["id"], sub["depends_on"])


@pytest.mark.parametrize(("request_text", "expected"), CASES, ids=[c[0][:60] for c in CASES])
def test_rule_parser(parser: RuleIntentParser, request_text: str, expected: list[Step]) -> None:
    _check(parser.parse(request_text), expected)


def test_there_are_many_cases() -> None:
    assert len(CASES) >= 40


def test_paper_example_intent_fields(parser: RuleIntentParser) -> None:
    request = (
        "create a test product, place an order using account 123456, and advance the order "
        "status to pending payment"
    )
    intent = parser.parse(request)
    assert intent["request"] == request
    assert intent["parser"] == "rules"
    assert (intent["category"], intent["operation"], intent["target"]) == (
        "product",
        "create",
        "product",
    )
    assert intent["entities"]["named"] == {"account": "123456", "status": "pending_payment"}
    assert intent["output_format"] is None
    keywords = intent["keywords"]
    assert keywords[:2] == ["create", "product"] and "order" in keywords and "advance" in keywords
    third = intent["sub_intents"][2]
    assert third["keywords"][:2] == ["advance", "order"]
    assert "payment" not in third["keywords"]  # "pending payment" is a value, not an object


def test_sub_intent_text_is_its_clause(parser: RuleIntentParser) -> None:
    intent = parser.parse("Make an order for user 42 then pay it")
    assert [s["text"] for s in intent["sub_intents"]] == ["Make an order for user 42", "pay it"]


@pytest.mark.parametrize(
    ("request_text", "output_format"),
    [
        ("list all paid orders as a table", "md"),
        ("show orders of user 42 in a markdown table", "md"),
        ("Show me the refunds of user 42 in JSON", "json"),
        ("list orders of user 42 and give them to me as a summary", "text"),
        ("list orders of user 42", None),
    ],
)
def test_output_format(parser: RuleIntentParser, request_text: str, output_format: str) -> None:
    intent = parser.parse(request_text)
    assert intent["output_format"] == output_format
    assert len(intent["sub_intents"]) == 1
    assert intent["sub_intents"][0]["action"] == "call_api"


def test_direct_answers_carry_answers(parser: RuleIntentParser) -> None:
    assert parser.parse("what is 2+2")["sub_intents"][0]["answer"] == "2+2 = 4"
    assert "84" in str(parser.parse("compute 12 * (3 + 4)")["sub_intents"][0]["answer"])
    assert "zero" in str(parser.parse("what is 1/0")["sub_intents"][0]["answer"])
    hello = parser.parse("Hello!")
    assert hello["category"] == "general" and hello["sub_intents"][0]["answer"]


def test_clarification_names_what_is_missing(parser: RuleIntentParser) -> None:
    sub = parser.parse("cancel the order")["sub_intents"][0]
    assert sub["question"] is not None and "order" in sub["question"]
    assert "id" in sub["question"]


def test_quoted_values_are_not_split_or_read_as_terms(parser: RuleIntentParser) -> None:
    intent = parser.parse("create a product named 'Cancel and Refund Mug' then pay order 17")
    subs = intent["sub_intents"]
    assert [(s["operation"], s["target"]) for s in subs] == [
        ("create", "product"),
        ("pay", "order"),
    ]
    assert subs[0]["entities"]["name"] == "Cancel and Refund Mug"


def test_custom_lexicon_is_used() -> None:
    from stores.language.lexicon import Lexicon

    extra = Lexicon.from_yaml_text("operations:\n  create: [conjure]\nobjects:\n  order: [deal]\n")
    intent = RuleIntentParser(Lexicon.default().extended(extra)).parse("conjure a deal")
    assert (intent["operation"], intent["target"]) == ("create", "order")


@pytest.mark.parametrize(
    "request_text", ["", "   ", "?!", "asdf qwerty", "and then and then", "'", "x" * 3000]
)
def test_garbage_never_crashes(parser: RuleIntentParser, request_text: str) -> None:
    intent = parser.parse(request_text)
    assert intent["sub_intents"], "an intent always has at least one sub-intent"
    for sub in intent["sub_intents"]:
        assert sub["action"] in {"direct_answer", "clarify_intent", "retrieve_api", "call_api"}


def test_empty_request_asks_what_to_do(parser: RuleIntentParser) -> None:
    sub = parser.parse("")["sub_intents"][0]
    assert sub["action"] == "clarify_intent" and sub["question"]


def test_parse_request_defaults_to_rules_and_rejects_non_text() -> None:
    assert parse_request("look up order 17")["parser"] == "rules"
    with pytest.raises(IntentParseError, match="must be text"):
        parse_request(None)  # type: ignore[arg-type]


def test_intent_is_plain_data(parser: RuleIntentParser) -> None:
    import json

    intent = parser.parse("create a product named 'Blue Mug' for $30, then order it")
    assert json.loads(json.dumps(intent)) == intent
