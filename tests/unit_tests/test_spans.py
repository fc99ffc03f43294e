"""Typed spans of requests: kinds, values, units and offsets, in English, Chinese and both.

The requests are written in the shape of public function-calling benchmarks (geometry with
units, weather for several cities, bookings with dates, e-mails, files, stock and discounts)
but none is copied from one.
"""

from __future__ import annotations

import random
import time
from datetime import datetime
from typing import Any

import pytest

from stores.language.spans import SPAN_KINDS, Span, context_words, extract_spans

# A Tuesday: "next Monday" is 2026-11-30, "tomorrow" 2026-11-25.
NOW = datetime(2026, 11, 24, 12, 0)

Expected = tuple[Any, ...]  # (kind, text, value) or (kind, text, value, unit)

CASES: list[tuple[str, list[Expected]]] = [
    # --- numbers with units, number words, fractions ---------------------------------------
    (
        "Compute the area of a triangle with base 10 units and height 5 units",
        [("number", "10 units", 10, "units"), ("number", "5 units", 5, "units")],
    ),
    ("set stock to 250", [("number", "250", 250)]),
    ("What is 3/4 of 200?", [("number", "3/4", 0.75), ("number", "200", 200)]),
    (
        "the temperature dropped to -3 degrees celsius",
        [("number", "-3 degrees celsius", -3, "celsius")],
    ),
    ("learning rate 1e-5 for 3 epochs", [("number", "1e-5", 1e-5), ("number", "3", 3)]),
    ("I need twenty five chairs", [("number", "twenty five", 25)]),
    ("order a dozen roses", [("number", "a dozen", 12)]),
    ("cut the recipe in half", [("number", "half", 0.5)]),
    ("show me the third result", [("number", "third", 3)]),
    ("add one hundred and five points", [("number", "one hundred and five", 105)]),
    ("open the twenty-first item", [("number", "twenty-first", 21)]),
    ("the second page", [("number", "second", 2)]),
    ("this one is fine", []),
    ("First, create a user", []),
    ("wait a second", []),
    ("population over 1,000,000", [("number", "1,000,000", 1_000_000)]),
    ("upgrade to version 3.11", [("number", "3.11", 3.11)]),
    ("page 2 of 10", [("number", "2", 2), ("number", "10", 10)]),
    ("sales in the year 2024", [("number", "2024", 2024)]),
    ("distance of 42.195 km", [("number", "42.195 km", 42.195, "km")]),
    ("it weighs 70kg", [("number", "70kg", 70, "kg")]),
    ("preheat the oven to 350°F", [("number", "350°F", 350, "fahrenheit")]),
    ("round 3.14159 to 2 decimal places", [("number", "3.14159", 3.14159), ("number", "2", 2)]),
    ("a hundred people", [("number", "a hundred", 100)]),
    ("user u_42 ordered 3 items", [("identifier", "u_42", "u_42"), ("number", "3 items", 3, "items")]),
    # --- money, percent, duration ----------------------------------------------------------
    ("apply a discount of 15% to the cart", [("percent", "15%", 15.0, "%")]),
    ("raise the fee by 12.5 percent", [("percent", "12.5 percent", 12.5, "%")]),
    ("It costs 20 euros", [("money", "20 euros", 20.0, "EUR")]),
    ("pay ¥300 for the tickets", [("money", "¥300", 300.0, "CNY")]),
    ("a loan of 5 million dollars", [("money", "5 million dollars", 5_000_000.0, "USD")]),
    (
        "Transfer $1,250.50 to account 00123456",
        [("money", "$1,250.50", 1250.5, "USD"), ("identifier", "00123456", "00123456")],
    ),
    ("convert 100 USD to EUR", [("money", "100 USD", 100.0, "USD"), ("name", "EUR", "EUR")]),
    ("reserve the room for 3 hours", [("duration", "3 hours", 10800, "hours")]),
    ("wait 30 seconds", [("duration", "30 seconds", 30, "seconds")]),
    ("a 2-hour meeting", [("duration", "2-hour", 7200, "hour")]),
    ("rest for two and a half hours", [("duration", "two and a half hours", 9000, "hours")]),
    ("rent it for 10 days", [("duration", "10 days", 864000, "days")]),
    # --- quoted, paths, urls, e-mails, identifiers -----------------------------------------
    ("send an email to bob@example.com saying hi", [("email", "bob@example.com", "bob@example.com")]),
    ("read /tmp/notes.txt and summarise it", [("path", "/tmp/notes.txt", "/tmp/notes.txt")]),
    ("edit src/app.py", [("path", "src/app.py", "src/app.py")]),
    ("list files in /var/log", [("path", "/var/log", "/var/log")]),
    ("open C:\\Users\\me\\report.docx", [("path", "C:\\Users\\me\\report.docx", "C:\\Users\\me\\report.docx")]),
    ("summarise report.pdf", [("path", "report.pdf", "report.pdf")]),
    ("visit www.python.org for docs", [("url", "www.python.org", "www.python.org")]),
    (
        "fetch https://example.com/api/v1/items?page=2 please",
        [("url", "https://example.com/api/v1/items?page=2", "https://example.com/api/v1/items?page=2")],
    ),
    ("rename the file to 'final draft.txt'", [("quoted", "'final draft.txt'", "final draft.txt")]),
    ('search for "machine learning" papers', [("quoted", '"machine learning"', "machine learning")]),
    (
        "play “Shake It Off” by Taylor Swift",
        [("quoted", "“Shake It Off”", "Shake It Off"), ("name", "Taylor Swift", "Taylor Swift")],
    ),
    ("run `ls -la` in the shell", [("quoted", "`ls -la`", "ls -la")]),
    ('he said "don\'t do it"', [("quoted", '"don\'t do it"', "don't do it")]),
    ("look up order ORD-2024-001", [("identifier", "ORD-2024-001", "ORD-2024-001")]),
    ("track package #123456", [("identifier", "#123456", "123456")]),
    ("the coupon A12B expired", [("identifier", "A12B", "A12B")]),
    # --- names -----------------------------------------------------------------------------
    ("find Italian restaurants in San Francisco, CA",
     [("name", "Italian", "Italian"), ("name", "San Francisco, CA", "San Francisco, CA")]),
    ("What is the capital of France?", [("name", "France", "France")]),
    ("Tell me about Bank of America", [("name", "Bank of America", "Bank of America")]),
    ("Apple Inc stock price", [("name", "Apple Inc", "Apple Inc")]),
    ("it is John's book", [("name", "John", "John")]),
    ("translate 'good morning' into French",
     [("quoted", "'good morning'", "good morning"), ("name", "French", "French")]),
    # --- lists -----------------------------------------------------------------------------
    ("What's the weather like in Paris and London today?",
     [("list", "Paris and London", ["Paris", "London"]), ("date", "today", "2026-11-24")]),
    ("Compare prices in Paris, London and Tokyo",
     [("list", "Paris, London and Tokyo", ["Paris", "London", "Tokyo"])]),
    ("Paris, London and Tokyo are big",
     [("list", "Paris, London and Tokyo", ["Paris", "London", "Tokyo"])]),
    ("weather for Boston, MA and Austin, TX",
     [("list", "Boston, MA and Austin, TX", ["Boston, MA", "Austin, TX"])]),
    ("sum the numbers [1, 2, 3, 4]", [("list", "[1, 2, 3, 4]", [1, 2, 3, 4])]),
    ("average of 10, 20 and 30", [("list", "10, 20 and 30", [10, 20, 30])]),
    ("choose between 3 and 5 options", [("number", "3", 3), ("number", "5", 5)]),
    ("email alice.smith+news@mail.co.uk and bob@example.org",
     [("list", "alice.smith+news@mail.co.uk and bob@example.org",
       ["alice.smith+news@mail.co.uk", "bob@example.org"])]),
    ("open ./src/app.py and ~/notes.md",
     [("list", "./src/app.py and ~/notes.md", ["./src/app.py", "~/notes.md"])]),
    ("tags ['red', 'blue']", [("list", "['red', 'blue']", ["red", "blue"])]),
    ("Taylor Swift and Ed Sheeran in New York City",
     [("list", "Taylor Swift and Ed Sheeran", ["Taylor Swift", "Ed Sheeran"]),
      ("name", "New York City", "New York City")]),
    # --- dates and times -------------------------------------------------------------------
    ("Book 2 tickets for March 3rd", [("number", "2", 2), ("date", "March 3rd", "2027-03-03")]),
    ("Get the forecast for New York City next Monday",
     [("name", "New York City", "New York City"), ("date", "next Monday", "2026-11-30")]),
    ("Schedule a meeting tomorrow at 3pm",
     [("datetime", "tomorrow at 3pm", "2026-11-25T15:00")]),
    ("remind me at 15:30", [("time", "15:30", "15:30")]),
    ("born on 03/15/1990", [("date", "03/15/1990", "1990-03-15")]),
    ("from 2024-01-01 to 2024-01-31",
     [("date", "2024-01-01", "2024-01-01"), ("date", "2024-01-31", "2024-01-31")]),
    ("ship it in 3 days", [("date", "in 3 days", "2026-11-27")]),
    ("what happened 2 weeks ago", [("date", "2 weeks ago", "2026-11-10")]),
    ("book a table for four people on Friday at 7pm",
     [("number", "four", 4), ("datetime", "Friday at 7pm", "2026-11-27T19:00")]),
    ("tickets for Dec 25, 2025 and Jan 1, 2026",
     [("list", "Dec 25, 2025 and Jan 1, 2026", ["2025-12-25", "2026-01-01"])]),
    ("due on the 3rd of March", [("date", "the 3rd of March", "2027-03-03")]),
    ("released March 3rd 2024", [("date", "March 3rd 2024", "2024-03-03")]),
    ("log in at 2024-03-03T09:15", [("datetime", "2024-03-03T09:15", "2024-03-03T09:15")]),
    ("lunch at noon", [("time", "noon", "12:00")]),
    # --- key/value pairs, booleans, JSON ---------------------------------------------------
    ("call the api with limit=10 and verbose=true",
     [("keyvalue", "limit=10", 10), ("keyvalue", "verbose=true", True)]),
    ("customer id is 000042", [("keyvalue", "customer id is 000042", "000042")]),
    ("price: $25.99", [("keyvalue", "price: $25.99", 25.99, "USD")]),
    ("status=shipped", [("keyvalue", "status=shipped", "shipped")]),
    ("mode: fast", [("keyvalue", "mode: fast", "fast")]),
    ("Note: please call me", []),
    ("the deadline is 2024-03-03", [("keyvalue", "deadline is 2024-03-03", "2024-03-03")]),
    ("IDs: 1, 2 and 3", [("keyvalue", "IDs: 1, 2 and 3", [1, 2, 3])]),
    ("set notifications to false", [("boolean", "false", False)]),
    ("answer yes or no", []),
    ("enable dark mode: yes", [("keyvalue", "dark mode: yes", True)]),
    ('post {"title": "hi", "tags": ["a", "b"]} to the endpoint',
     [("json", '{"title": "hi", "tags": ["a", "b"]}', {"title": "hi", "tags": ["a", "b"]})]),
    ("update with {'a': 1}", [("json", "{'a': 1}", {"a": 1})]),
    # --- Chinese ---------------------------------------------------------------------------
    ("帮我创建一个订单，数量是3", [("number", "一", 1), ("number", "3", 3)]),
    ("把库存设为 250", [("number", "250", 250)]),
    ("我要三个苹果", [("number", "三", 3)]),
    ("预算两百元", [("money", "两百元", 200.0, "CNY")]),
    ("预算两百", [("number", "两百", 200)]),
    ("数量为十五", [("number", "十五", 15)]),
    ("明天提醒我", [("date", "明天", "2026-11-25")]),
    ("2024年3月5日出发", [("date", "2024年3月5日", "2024-03-05")]),
    ("3月5号出发", [("date", "3月5号", "2027-03-05")]),
    ("下周一开会", [("date", "下周一", "2026-11-30")]),
    ("3天后发货", [("date", "3天后", "2026-11-27")]),
    ("下午3点见", [("time", "下午3点", "15:00")]),
    ("明天下午3点开会", [("datetime", "明天下午3点", "2026-11-25T15:00")]),
    ("订《三体》这本书", [("quoted", "《三体》", "三体")]),
    ("搜索「机器学习」", [("quoted", "「机器学习」", "机器学习")]),
    ("优惠15%", [("percent", "15%", 15.0, "%")]),
    ("百分之二十的折扣", [("percent", "百分之二十", 20.0, "%")]),
    ("价格是¥99", [("money", "¥99", 99.0, "CNY")]),
    ("会议时长2小时", [("duration", "2小时", 7200, "小时")]),
    ("发送邮件到 alice@example.com", [("email", "alice@example.com", "alice@example.com")]),
    ("城市：北京", [("keyvalue", "城市：北京", "北京")]),
    ("选第三个", [("number", "第三", 3)]),
    ("一起去吧", []),
    ("查询订单 ORD-2024-001 的状态", [("identifier", "ORD-2024-001", "ORD-2024-001")]),
    # --- mixed and typos -------------------------------------------------------------------
    ("帮我 book 2 tickets to Tokyo", [("number", "2", 2), ("name", "Tokyo", "Tokyo")]),
    ("set quantity=5 然后 checkout", [("keyvalue", "quantity=5", 5)]),
    ("把 price 改成 30 dollars", [("money", "30 dollars", 30.0, "USD")]),
    ("读取/tmp/data.csv文件", [("path", "/tmp/data.csv", "/tmp/data.csv")]),
    ("用户ID是 123456", [("identifier", "123456", "123456")]),
    ("calcualte 5 plus 3", [("number", "5", 5), ("number", "3", 3)]),
    ("shedule a meeting tomorow at 3pm", [("datetime", "tomorow at 3pm", "2026-11-25T15:00")]),
    ("deliver on wensday", [("date", "wensday", "2026-11-25")]),
    ("flights on Febuary 3rd 2025", [("date", "Febuary 3rd 2025", "2025-02-03")]),
    ("Augusta is lovely", []),
    ("returning 05/20", [("date", "05/20", "2027-05-20")]),
    ("order #A-778 status", [("identifier", "#A-778", "A-778")]),
    ("add 2 cups of rice", [("number", "2 cups", 2, "cups")]),
    ("I'm at 40.7128, -74.0060 now", [("list", "40.7128, -74.0060", [40.7128, -74.006])]),
]


def _shape(span: Span) -> Expected:
    if span.unit is None:
        return (span.kind, span.text, span.value)
    return (span.kind, span.text, span.value, span.unit)


@pytest.mark.parametrize(("request_text", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_spans_of_requests(request_text: str, expected: list[Expected]) -> None:
    spans = extract_spans(request_text, now=NOW)
    for span in spans:
        assert span.text == request_text[span.start : span.end]
        assert span.kind in SPAN_KINDS
    assert [_shape(s) for s in spans] == expected


def test_there_are_many_cases() -> None:
    assert len(CASES) >= 80


def test_list_items_are_spans_inside_the_list() -> None:
    text = "weather in Paris, London and Tokyo"
    (listed,) = extract_spans(text, now=NOW)
    assert [(i.kind, i.value, text[i.start : i.end]) for i in listed.items] == [
        ("name", "Paris", "Paris"),
        ("name", "London", "London"),
        ("name", "Tokyo", "Tokyo"),
    ]
    assert all(listed.start <= i.start < i.end <= listed.end for i in listed.items)


def test_a_pair_keeps_its_key_and_the_span_of_its_value() -> None:
    text = "ship to alice@example.com with deadline: 2024-03-03 and retries=3"
    spans = extract_spans(text, now=NOW)
    pairs = [s for s in spans if s.kind == "keyvalue"]
    assert [(p.key, p.value) for p in pairs] == [("deadline", "2024-03-03"), ("retries", 3)]
    assert [p.items[0].kind for p in pairs] == ["date", "number"]
    assert spans[0].kind == "email"


def test_units_of_numbers_are_lower_case_as_written() -> None:
    spans = extract_spans("run 5 KM then rest 10 Minutes", now=NOW)
    assert [(s.kind, s.value, s.unit) for s in spans] == [
        ("number", 5, "km"),
        ("duration", 600, "minutes"),
    ]


def test_context_words_give_the_cue_words_around_a_span() -> None:
    text = "Calculate the area with base 10 units and height 5 units"
    first, second = extract_spans(text, now=NOW)
    assert context_words(text, first) == (
        ["the", "area", "with", "base"],
        ["and", "height", "5", "units"],
    )
    assert context_words(text, second, window=2) == (["and", "height"], [])


def test_context_words_stop_at_quotes() -> None:
    text = 'rename "old name 5" to 7 please'
    number = next(s for s in extract_spans(text, now=NOW) if s.kind == "number")
    assert context_words(text, number) == (["to"], ["please"])


def test_context_words_segment_chinese() -> None:
    text = "帮我创建一个订单，数量是3"
    three = extract_spans(text, now=NOW)[-1]
    before, after = context_words(text, three)
    assert "数量" in before and before[-1] == "是"
    assert after == []


def test_now_defaults_to_the_current_time() -> None:
    (today,) = extract_spans("report for today")
    assert today.value == datetime.now().date().isoformat()


def test_empty_and_non_text_give_no_spans() -> None:
    assert extract_spans("") == []
    assert extract_spans("   ") == []


_FRAGMENTS = [
    "10", " ", ", ", " and ", "$", "5%", "km", "Paris", "London", "New York", "2024-03-03",
    "tomorrow", "at 3pm", "'x y'", '"q"', "/tmp/a.txt", "a@b.co", "ORD-1-2", "#42", "=", ":",
    "key", "true", "twenty", "five", "[1, 2]", '{"a": 1}', "三个", "明天", "数量是", "。",
    "hours", "http://e.com/x", "-3", "1/2", "half", "March", "3rd", "《书》", "is", "ID",
]  # fmt: skip


def _check_well_formed(text: str, spans: list[Span]) -> None:
    previous_end = 0
    for span in spans:
        assert span.kind in SPAN_KINDS
        assert 0 <= span.start < span.end <= len(text)
        assert span.text == text[span.start : span.end]
        assert span.start >= previous_end, (text, spans)
        previous_end = span.end
        for item in span.items:
            assert span.start <= item.start < item.end <= span.end
            assert item.text == text[item.start : item.end]


def test_offsets_slice_back_and_spans_never_overlap() -> None:
    rng = random.Random(15)
    for _ in range(400):
        text = "".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 12)))
        _check_well_formed(text, extract_spans(text, now=NOW))


def test_offsets_hold_for_arbitrary_text() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    strategies = hypothesis.strategies

    @hypothesis.settings(max_examples=60, deadline=None, database=None)
    @hypothesis.given(strategies.text(alphabet="aA1 ,.:=$%'\"/-#@[]{}三明天是", max_size=40))
    def check(text: str) -> None:
        _check_well_formed(text, extract_spans(text, now=NOW))

    check()


@pytest.mark.parametrize("piece", ["{[", "1, ", "x=1 ", "2024年", "first ", "三个明天"])
def test_long_repetitive_text_takes_linear_time(piece: str) -> None:
    text = piece * (30_000 // len(piece))
    started = time.perf_counter()
    spans = extract_spans(text, now=NOW)
    assert time.perf_counter() - started < 6.0  # quadratic scans took tens of seconds
    _check_well_formed(text, spans)
