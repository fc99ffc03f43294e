"""Values the schema binder reads from a request: cues, signs, units, names and lists.

Each case is a fault the binder had (written in our own words): a value went to the wrong
parameter, lost its sign, was split in two or was not read at all.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema


def _schema(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
    }


_TRIALS = _schema(
    {
        "n": {"type": "integer", "description": "Number of trials."},
        "k": {"type": "integer", "description": "Number of successes."},
        "p": {"type": "number", "description": "Probability of success."},
    }
)


def test_single_letter_names_take_the_value_after_them() -> None:
    binding = bind_schema("Give the odds with k of 3 and n of 10, p 0.3.", _TRIALS)
    assert binding.sets == [{"n": 10, "k": 3, "p": 0.3}]


def test_a_pair_at_the_end_of_a_sentence_keeps_its_number() -> None:
    binding = bind_schema("Give the odds where k = 3, n = 10 and p = 0.3.", _TRIALS)
    assert binding.sets == [{"n": 10, "k": 3, "p": 0.3}]


def test_a_unit_letter_attached_to_a_number_is_no_name() -> None:
    spans = extract_spans("Ideal gas volume at 298K and 2 atm.")
    assert [(s.kind, s.value, s.unit) for s in spans] == [
        ("number", 298, "K"),
        ("number", 2, "atm"),
    ]


def test_an_index_name_with_its_number_is_one_name() -> None:
    schema = _schema(
        {
            "index": {"type": "string", "description": "Name of the market index."},
            "days": {"type": "integer", "description": "Number of days."},
        }
    )
    binding = bind_schema("Forecast the S&P 500 over 30 days.", schema)
    assert binding.sets == [{"index": "S&P 500", "days": 30}]


def test_a_country_or_large_city_opening_a_sentence_is_a_name() -> None:
    schema = _schema({"location": {"type": "string", "description": "The city."}})
    assert bind_schema("Beijing weather today?", schema).sets == [{"location": "Beijing"}]
    assert bind_schema("Japan weather now", schema).sets == [{"location": "Japan"}]
    # a first word that is no place is still no name
    assert bind_schema("Forecast weather now", schema).missing == ["location"]


def test_a_loss_is_negative_for_a_signed_amount() -> None:
    schema = _schema(
        {
            "income": {"type": "number", "description": "Yearly income."},
            "capital_gain": {
                "type": "number",
                "description": "Capital gain or loss; negative for a loss.",
            },
        }
    )
    binding = bind_schema("Work out my tax: income of $60000 and a loss of $1500.", schema)
    assert binding.sets == [{"income": 60000.0, "capital_gain": -1500.0}]


def test_a_loss_stays_positive_for_an_amount_that_is_the_loss() -> None:
    schema = _schema({"loss": {"type": "number", "description": "The amount lost."}})
    binding = bind_schema("Claim a loss of $1500 on the policy.", schema)
    assert binding.sets == [{"loss": 1500.0}]


def test_a_year_cue_goes_to_the_year_not_to_the_amount_of_that_year() -> None:
    schema = _schema(
        {
            "year1": {"type": "integer", "description": "The first year."},
            "year1_revenue": {"type": "number", "description": "Revenue in the first year."},
            "year2": {"type": "integer", "description": "The second year."},
            "year2_revenue": {"type": "number", "description": "Revenue in the second year."},
        }
    )
    binding = bind_schema("Sales growth from $3M in 2017 to $4.5M in 2021?", schema)
    assert binding.sets == [
        {"year1": 2017, "year1_revenue": 3e6, "year2": 2021, "year2_revenue": 4.5e6}
    ]


def test_a_counted_noun_after_a_measure_word_is_the_cue() -> None:
    schema = _schema(
        {
            "eggs": {"type": "integer", "description": "How many eggs."},
            "bread": {"type": "integer", "description": "How much bread."},
        }
    )
    binding = bind_schema("Buy 3 dozen eggs and 2 loaves of bread.", schema)
    assert binding.sets == [{"eggs": 3, "bread": 2}]


def test_a_list_keeps_a_one_letter_first_item() -> None:
    schema = _schema(
        {"players": {"type": "array", "items": {"type": "string"}, "description": "Players."}}
    )
    binding = bind_schema("Rank the players A, B and C. Also, show the table.", schema)
    assert binding.sets == [{"players": ["A", "B", "C"]}]


def test_counts_separated_by_a_comma_keep_their_own_nouns() -> None:
    schema = _schema(
        {
            "bedrooms": {"type": "integer", "description": "Number of bedrooms."},
            "bathrooms": {"type": "integer", "description": "Number of bathrooms."},
        }
    )
    binding = bind_schema("Draw a flat with 4 bedrooms, 1 bathrooms and a balcony.", schema)
    assert binding.sets == [{"bedrooms": 4, "bathrooms": 1}]


def test_a_date_takes_the_order_the_description_names_in_words() -> None:
    schema = _schema(
        {
            "city": {"type": "string", "description": "The city."},
            "date": {"type": "string", "description": "The day asked for (month-day-year)."},
        }
    )
    binding = bind_schema("Pollen count in Oslo on 2021/05/09?", schema)
    assert binding.sets == [{"city": "Oslo", "date": "05-09-2021"}]


def test_a_place_with_its_state_stays_whole_beside_a_parameter_of_no_place() -> None:
    schema = _schema(
        {
            "location": {"type": "string", "description": "The city and state, e.g. Reno, NV."},
            "genre": {"type": "string", "description": "The kind of show."},
        }
    )
    binding = bind_schema("Find comedy shows in Austin, TX this week.", schema)
    assert binding.sets[0]["location"] == "Austin, TX"


def test_a_list_joined_by_and_the_keeps_both_names() -> None:
    spans = extract_spans("Compare the Gobi Desert and the Sahara Desert of Africa.")
    assert [s.kind for s in spans] == ["list"]
    assert spans[0].value == ["Gobi Desert", "Sahara Desert of Africa"]


def test_a_date_read_elsewhere_is_written_in_the_described_order() -> None:
    from nodes.planning.binding import coerce_to_schema

    described = {"type": "string", "description": "Day of the visit (month-day-year)."}
    assert coerce_to_schema("2021-05-09", described) == "05-09-2021"
    iso = {"type": "string", "description": "Travel day, in the format of yyyy-mm-dd."}
    assert coerce_to_schema("June 30th 2023", iso) == "2023-06-30"
    assert coerce_to_schema("June 30th 2023", {"type": "string"}) == "June 30th 2023"


def test_a_number_word_counts_the_noun_after_its_qualifier() -> None:
    schema = _schema(
        {
            "hobby": {"type": "string", "description": "The hobby."},
            "trait_count": {"type": "integer", "description": "How many to list."},
        },
        ["hobby"],
    )
    binding = bind_schema("List four personality traits of people who love Chess.", schema)
    assert binding.sets == [{"hobby": "Chess", "trait_count": 4}]


def test_money_ends_before_the_comma_after_it() -> None:
    spans = extract_spans("Move $1,200, then $75.")
    assert [(s.kind, s.text) for s in spans] == [("money", "$1,200"), ("money", "$75")]


def test_the_parameter_whose_whole_name_is_said_takes_the_value() -> None:
    schema = _schema(
        {
            "opening_stock": {"type": "integer", "description": "Units at the start."},
            "closing_stock": {"type": "integer", "description": "Units at the end."},
        }
    )
    text = "Compare closing stock of 40 units against opening stock of 90 units."
    assert bind_schema(text, schema).sets == [{"opening_stock": 90, "closing_stock": 40}]


def test_the_ends_of_a_range_fill_min_and_max_of_an_object() -> None:
    schema = _schema(
        {
            "city": {"type": "string", "description": "The city."},
            "price": {
                "type": "object",
                "description": "Price range.",
                "properties": {
                    "min": {"type": "number", "description": "Lowest price."},
                    "max": {"type": "number", "description": "Highest price."},
                },
            },
        }
    )
    binding = bind_schema("Find a loft in Denver priced $250,000 to $320,000.", schema)
    assert binding.sets == [{"city": "Denver", "price": {"min": 250000, "max": 320000}}]


def test_between_two_numbers_fills_lower_and_upper() -> None:
    schema = _schema(
        {
            "upper_bound": {"type": "integer", "description": "Last number."},
            "lower_bound": {"type": "integer", "description": "First number."},
        }
    )
    binding = bind_schema("Sum the primes between 10 and 90.", schema)
    assert binding.sets == [{"upper_bound": 90, "lower_bound": 10}]


def test_the_next_month_counts_one_month() -> None:
    schema = _schema(
        {
            "city": {"type": "string", "description": "The city."},
            "months": {"type": "integer", "description": "How many months ahead."},
        }
    )
    binding = bind_schema("Forecast rents in Austin for the next month.", schema)
    assert binding.sets == [{"city": "Austin", "months": 1}]


def test_a_list_fills_parameters_named_first_and_second_in_order() -> None:
    schema = _schema(
        {
            "second_tone_pitch": {"type": "integer", "description": "Pitch of the later tone."},
            "first_tone_pitch": {"type": "integer", "description": "Pitch of the earlier tone."},
        }
    )
    binding = bind_schema("Interval between tones of 330Hz and 660Hz.", schema)
    assert binding.sets == [{"first_tone_pitch": 330, "second_tone_pitch": 660}]
