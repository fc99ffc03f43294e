"""Values said in a later clause or sentence of a chatty request reach the one call it makes.

Requests written here in the style users write: the action first, a preference or option in
a sentence of its own afterwards ("Could you give it in fahrenheit?", "Also apply
standardization."). The rule planner is run on tools it has never seen.
"""

from __future__ import annotations

from tests.unit_tests.test_rule_planner_schema import STR, calls, plan

FORECAST = (
    "get_forecast", "Get the weather forecast of a city.",
    {"city": {**STR, "description": "The city."},
     "unit": {**STR, "enum": ["celsius", "fahrenheit"], "description": "Temperature unit.",
              "default": "celsius"}},
    ["city"],
)
REGRESSION = (
    "fit_model", "Fit a regression model on a dataset.",
    {"dataset": {**STR, "description": "The dataset file."},
     "standardize": {"type": "boolean", "description": "Apply standardization to inputs.",
                     "default": False}},
    ["dataset"],
)


def test_an_enum_value_said_in_a_later_sentence_joins_the_call() -> None:
    draft = plan("I'm flying out tomorrow and want the weather forecast for 'Lisbon'. "
                 "Could you give it to me in fahrenheit?", FORECAST)
    assert calls(draft) == [("get_forecast", {"city": "Lisbon", "unit": "fahrenheit"})]


def test_a_flag_said_in_a_later_sentence_joins_the_call() -> None:
    draft = plan("Fit a regression model on the dataset 'sales.csv'. Also apply "
                 "standardization.", REGRESSION)
    assert calls(draft) == [("fit_model", {"dataset": "sales.csv", "standardize": True})]


def test_a_later_clause_that_says_no_option_stays_a_gap() -> None:
    draft = plan("I want the weather forecast for 'Lisbon'. Also book me a table for two.",
                 FORECAST)
    assert calls(draft) == [("get_forecast", {"city": "Lisbon"})]
    assert any("table for two" in gap for gap in draft.gaps) or draft.retrieve_again


def test_a_flag_said_negated_in_a_later_sentence_is_false() -> None:
    draft = plan("Fit a regression model on the dataset 'sales.csv'. Please don't apply "
                 "standardization.", REGRESSION)
    assert calls(draft) == [("fit_model", {"dataset": "sales.csv", "standardize": False})]


def test_a_later_clause_about_an_object_of_its_own_is_no_option() -> None:
    draft = plan("I want the weather forecast for 'Lisbon'. Then cancel my order in "
                 "fahrenheit.", FORECAST)
    assert calls(draft) == [("get_forecast", {"city": "Lisbon"})]
