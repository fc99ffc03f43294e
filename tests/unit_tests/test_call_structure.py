"""The rule planner's call structure: how many calls, to which tools, in which order.

Table-driven: a request and the schemas of tools it has never seen, against the calls the
plan makes (tool and literal arguments, in plan order) and the order it imposes.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit_tests.test_rule_planner_schema import INT, STR, calls, plan

NUM = {"type": "number"}
SQRT = ("math_sqrt", "Calculate the square root of a number.",
        {"number": {**NUM, "description": "The number to take the root of."}}, ["number"])
TRAVEL = ("flight_duration", "Estimate the flight duration between two airports.",
          {"origin": {**STR, "description": "Departure city."},
           "destination": {**STR, "description": "Arrival city."},
           "nonstop": {"type": "boolean", "description": "If true, only nonstop flights."}},
          ["origin", "destination"])
RATE = ("exchange_rate", "Get the exchange rate of a currency pair.",
        {"base": {**STR, "description": "The base currency of the pair."},
         "quote": {**STR, "description": "The currency the base is priced in."}},
        ["base", "quote"])
FORECAST = ("rain_forecast", "Forecast the chance of rain.",
            {"location": {**STR, "description": "City and state."},
             "days": {**INT, "description": "Number of days ahead."}}, ["location", "days"])
TOTAL = ("sum_values", "Add up a list of numbers.",
         {"values": {"type": "array", "items": NUM, "description": "The numbers to add."}},
         ["values"])

Case = tuple[str, tuple[Any, ...], list[tuple[str, dict[str, Any]]]]
CASES: list[Case] = [
    (
        "Calculate the square root of 16, the square root of 25, and the square root of 36.",
        (SQRT,),
        [("math_sqrt", {"number": 16}), ("math_sqrt", {"number": 25}),
         ("math_sqrt", {"number": 36})],
    ),
    (
        "How long is the flight between Boston and Denver, and between Seattle and Austin "
        "with nonstop flights only?",
        (TRAVEL,),
        [("flight_duration", {"origin": "Boston", "destination": "Denver", "nonstop": True}),
         ("flight_duration", {"origin": "Seattle", "destination": "Austin", "nonstop": True})],
    ),
    (
        "Give me the exchange rates for these pairs: EUR to GBP and EUR to JPY.",
        (RATE,),
        [("exchange_rate", {"base": "EUR", "quote": "GBP"}),
         ("exchange_rate", {"base": "EUR", "quote": "JPY"})],
    ),
    (
        "What is the chance of rain in Austin, Texas over the next 4 days?",
        (FORECAST,),
        [("rain_forecast", {"location": "Austin, Texas", "days": 4})],
    ),
    (
        "Calculate the sum of the numbers 2.5, 4 and 7.",
        (TOTAL,),
        [("sum_values", {"values": [2.5, 4, 7]})],
    ),
]


@pytest.mark.parametrize(("request_text", "tools", "expected"), CASES,
                         ids=[c[0][:40] for c in CASES])
def test_one_call_per_repeated_argument_set(
    request_text: str, tools: tuple[Any, ...], expected: list[tuple[str, dict[str, Any]]]
) -> None:
    got = calls(plan(request_text, *tools))
    assert sorted(map(_shown, got)) == sorted(map(_shown, expected))


def _shown(call: tuple[str, dict[str, Any]]) -> str:
    """A call as compared: 16 and 16.0 are one number; the calls' order is not compared."""

    def plain(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return [plain(v) for v in value] if isinstance(value, list) else value

    return repr((call[0], sorted((k, plain(v)) for k, v in call[1].items())))
