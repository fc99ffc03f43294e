"""Chinese and mixed Chinese-English requests: segmentation, cue words, entities, binding."""

from __future__ import annotations

import pytest

from nodes.parsing.rules import parse_request
from nodes.planning.request_spans import context_words, extract_spans
from nodes.planning.schema_binder import bind_schema
from stores.language.cues import CueFileError, english_words_of, parse_cues
from stores.language.entities import extract_entities
from stores.language.keywords import tokenize


def test_chinese_runs_are_split_into_words() -> None:
    assert tokenize("查询订单 17") == ["查询", "订单", "17"]
    assert tokenize("查询时区") == ["查询", "时区"]  # a cue word jieba alone splits (时 + 区)


def test_cue_words_read_as_english() -> None:
    assert english_words_of("读取文件") == ["read", "path", "file"]
    assert english_words_of("read the file") == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("把商品 42 的库存设为 250", {"product": "42", "quantity": 250}),
        ("帮我 create a product 叫 Blue Mug, 价格 30 元", {"name": "Blue Mug", "price": 30.0}),
        ("取消订单 12，原因：不想要了", {"order": "12", "reason": "不想要了"}),
        ("给订单 8 写一条评价，评分 5，评论“很好”", {"order": "8", "rating": 5, "comment": "很好"}),
        ("创建一个名字叫「Green Tea」的商品", {"name": "Green Tea"}),
        ("列出状态为 shipped 的订单", {"status": "shipped"}),
        ("查询账号 123456 的用户", {"account": "123456"}),
        ("创建骑手「张三」，城市 Springfield", {"name": "张三", "city": "Springfield"}),
        ("给用户 9 充值 100 元", {"user": "9", "amount": 100.0}),
    ],
)
def test_chinese_values_are_named(text: str, named: dict[str, object]) -> None:
    assert extract_entities(text)["named"] == named


def test_the_possessive_de_makes_the_cart_the_target() -> None:
    intent = parse_request("查看用户 7 的购物车")
    (sub,) = intent["sub_intents"]
    assert (sub["operation"], sub["target"]) == ("get", "cart")


def test_chinese_spans_numbers_money_and_quotes() -> None:
    spans = extract_spans("创建一个名字叫「Green Tea」的商品，价格二十五元")
    assert ("quoted", "Green Tea") in [(s.kind, s.value) for s in spans]
    money = [s for s in spans if s.kind == "money"]
    assert [(s.value, s.unit) for s in money] == [(25.0, "CNY")]
    before, _ = context_words("价格 30 元", next(s for s in extract_spans("价格 30 元")))
    assert before[-1] == "price"


def test_chinese_cues_bind_english_parameters() -> None:
    schema = {
        "type": "object",
        "properties": {
            "timezone": {"type": "string", "description": "IANA timezone name"},
            "path": {"type": "string", "description": "Path of the file"},
            "quantity": {"type": "integer", "description": "How many"},
        },
    }
    binding = bind_schema("读取文件 /tmp/notes.txt，数量三个", schema)
    assert binding.sets[0]["path"] == "/tmp/notes.txt"
    assert binding.sets[0]["quantity"] == 3


def test_a_bad_cue_file_names_the_line() -> None:
    with pytest.raises(CueFileError, match=r"mine.yaml, line 2: .*must be a non-empty list"):
        parse_cues("时区: [timezone]\n价格: price\n", "mine.yaml")


def test_region_names_and_globs_are_one_value() -> None:
    spans = extract_spans("把时间 14:30 从时区 Asia/Shanghai 转换到 America/New_York")
    assert [(s.kind, s.value) for s in spans] == [
        ("time", "14:30"), ("identifier", "Asia/Shanghai"), ("identifier", "America/New_York"),
    ]  # fmt: skip
    assert ("path", "*.pdf") in [(s.kind, s.value) for s in extract_spans("搜索文件 *.pdf")]
    assert [s.kind for s in extract_spans("算一下 2*3.5")] == ["number", "number"]
