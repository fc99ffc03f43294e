"""Two currencies said in words fill a conversion's from and to currencies, as ISO codes."""

from __future__ import annotations

from typing import Any

from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def bind(text: str, tool: dict[str, Any]) -> list[dict[str, Any]]:
    return bind_schema(text, tool, spans=extract_spans(text)).sets


CONVERT = schema(
    ["amount", "from_currency", "to_currency"],
    amount={"type": "number", "description": "Amount to convert."},
    from_currency={"type": "string", "description": "The currency to convert from."},
    to_currency={"type": "string", "description": "The currency to convert to."},
)
RATE = schema(
    ["base", "target"],
    base={"type": "string", "description": "The base currency."},
    target={"type": "string", "description": "The target currency."},
)


def test_the_amounts_currency_is_the_one_converted_from() -> None:
    assert bind("Convert 250 euros into Japanese yen for me", CONVERT) == [
        {"amount": 250.0, "from_currency": "EUR", "to_currency": "JPY"}
    ]
    assert bind("How many Swiss francs would I get for 40 British pounds?", CONVERT) == [
        {"amount": 40.0, "from_currency": "GBP", "to_currency": "CHF"}
    ]


def test_from_and_to_tell_the_currencies_apart_without_an_amount() -> None:
    assert bind("What's the exchange rate from Canadian dollars to Mexican pesos today?", RATE) \
        == [{"base": "CAD", "target": "MXN"}]
    assert bind("rate for USD to INR please", RATE) == [{"base": "USD", "target": "INR"}]


def test_one_currency_is_no_pair() -> None:
    sets = bind("What's the euro worth today?", RATE)
    assert sets[0].get("base") in (None, "EUR") and "target" not in sets[0]


def test_a_currency_parameter_with_an_example_code_still_takes_the_pair() -> None:
    tool = schema(
        ["amount", "from_currency", "to_currency"],
        amount={"type": "number", "description": "Amount to convert."},
        from_currency={"type": "string", "description": "Currency code to convert from, e.g. USD"},
        to_currency={"type": "string", "description": "Currency code to convert to, e.g. EUR"},
    )
    assert bind("Convert 250 euros into Japanese yen for me", tool) == [
        {"from_currency": "EUR", "to_currency": "JPY", "amount": 250.0}
    ]
