"""Times of day written as users write them, in the format a parameter's description asks.

"7pm", "7:30 pm", "10am" go as "19:00", "19:30", "10:00" for "in 24-hour HH:MM format",
with seconds for "HH:MM:SS", and as "07:00 PM" for "hh:mm AM/PM". Without a format in the
description a time stays as written. Requests and schemas written here.
"""

from __future__ import annotations

from nodes.planning.schema_binder import bind_schema
from stores.language.date_formats import time_as_described

SHOWTIMES = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city, e.g. 'Oslo'."},
        "show_time": {"type": "string", "description": "Start time in 24-hour HH:MM format."},
    },
    "required": ["city"],
}


def test_times_go_in_the_24_hour_format_asked() -> None:
    assert time_as_described("7pm", "Time in 24-hour HH:MM format.") == "19:00"
    assert time_as_described("7:30 pm", "The time (HH:MM)") == "19:30"
    assert time_as_described("10am", "Time as HH:MM:SS") == "10:00:00"
    assert time_as_described("12 am", "Time in HH:MM") == "00:00"
    assert time_as_described("19:05", "Time, format hh:mm AM/PM") == "07:05 PM"


def test_a_time_without_a_format_asked_stays_as_written() -> None:
    assert time_as_described("7pm", "When the show starts.") is None
    assert time_as_described("tomorrow", "Time in HH:MM") is None


def test_the_binder_gives_a_time_in_the_format_asked() -> None:
    binding = bind_schema("Find a show in 'Oslo' starting around 7pm", SHOWTIMES)
    assert binding.sets[0] == {"city": "Oslo", "show_time": "19:00"}
