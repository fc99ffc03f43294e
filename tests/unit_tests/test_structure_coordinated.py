"""One clause naming several tools' jobs ("the mean and the spread of ...") calls each."""

from __future__ import annotations

from typing import Any

from tests.unit_tests.test_rule_planner_schema import calls, plan

NUMBERS = {"type": "array", "items": {"type": "number"}, "description": "The numbers"}
MEAN = ("stats_mean", "Compute the mean of numbers.", {"numbers": NUMBERS}, ["numbers"])
SPREAD = ("stats_spread", "Compute the spread of numbers.", {"numbers": NUMBERS}, ["numbers"])
CITY = {"type": "string", "description": "The city"}
RAIN = ("forecast_rain", "Rain forecast of a city.", {"city": CITY}, ["city"])
WIND = ("forecast_wind", "Wind forecast of a city.", {"city": CITY}, ["city"])


def tools_called(draft: Any) -> list[str]:
    return sorted(name for name, _ in calls(draft))


def test_two_jobs_joined_by_and_call_both_tools() -> None:
    draft = plan("Compute the mean and the spread of 4, 8 and 15.", MEAN, SPREAD)
    assert sorted(calls(draft)) == [
        ("stats_mean", {"numbers": [4, 8, 15]}),
        ("stats_spread", {"numbers": [4, 8, 15]}),
    ]


def test_jobs_named_together_before_the_values() -> None:
    draft = plan("Get the rain and wind forecast for Lisbon.", RAIN, WIND)
    assert tools_called(draft) == ["forecast_rain", "forecast_wind"]


def test_a_job_the_clause_does_not_name_is_not_called() -> None:
    draft = plan("Get the rain forecast for Lisbon and Porto.", RAIN, WIND)
    assert tools_called(draft) == ["forecast_rain", "forecast_rain"]



def test_a_tool_whose_name_says_another_thing_is_not_added() -> None:
    circle = ("circle_area", "Area of a circle.", {"radius": {"type": "integer"}}, ["radius"])
    square = ("square_perimeter", "Perimeter of a square.",
              {"radius": {"type": "integer"}}, ["radius"])
    draft = plan("Find the area and perimeter of a circle with a radius of 5.", circle, square)
    assert tools_called(draft) == ["circle_area"]
