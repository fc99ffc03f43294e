"""A clause about "those years" repeats its call over every value the clause it refers to used.

Before: "the rainfall in Lisbon in 1990 and 2000; also the temperature in those years" read
the second clause's year from elsewhere in the request once (1990) and made one call.
"""

from __future__ import annotations

from tests.unit_tests.test_rule_planner_schema import INT, STR, calls, plan

CITY = {**STR, "description": "The city"}
YEAR = {**INT, "description": "The year"}
RAIN = ("yearly_rainfall", "Total rainfall of a city in a year.", {"city": CITY, "year": YEAR},
        ["city", "year"])
HEAT = ("yearly_temperature", "Average temperature of a city in a year.",
        {"city": CITY, "year": YEAR}, ["city", "year"])


def test_a_clause_about_those_values_is_repeated_over_each() -> None:
    draft = plan("What was the rainfall in Lisbon in 1990 and 2000? Also, what was the "
                 "average temperature in Lisbon in those years?", RAIN, HEAT)
    assert sorted(calls(draft), key=repr) == sorted([
        ("yearly_rainfall", {"city": "Lisbon", "year": 1990}),
        ("yearly_rainfall", {"city": "Lisbon", "year": 2000}),
        ("yearly_temperature", {"city": "Lisbon", "year": 1990}),
        ("yearly_temperature", {"city": "Lisbon", "year": 2000}),
    ], key=repr)


def test_a_clause_with_its_own_value_is_not_repeated() -> None:
    draft = plan("What was the rainfall in Lisbon in 1990 and 2000? Also, what was the "
                 "average temperature in Lisbon in 1985?", RAIN, HEAT)
    assert ("yearly_temperature", {"city": "Lisbon", "year": 1985}) in calls(draft)
    assert [name for name, _ in calls(draft)].count("yearly_temperature") == 1
