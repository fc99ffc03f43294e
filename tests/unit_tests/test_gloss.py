"""The English gloss of Chinese requests (CC-CEDICT) and the rule parser reading through it."""

from __future__ import annotations

import pytest

from nodes.parsing import IntentParseError
from nodes.parsing.rules import RuleIntentParser
from stores.language.gloss import english_gloss, word_gloss


def test_words_are_glossed_and_particles_dropped() -> None:
    glossed = english_gloss("北京今天的天气怎么样？")
    assert glossed.split()[:3] == ["Beijing", "today", "weather"]
    assert word_gloss("的") == ""  # a particle glosses as nothing
    assert word_gloss("天气") == "weather"
    assert word_gloss("蕃茄酱汁罐头") is None  # not in the dictionary


def test_the_reading_with_senses_is_chosen_over_a_cross_reference() -> None:
    # 告诉 gào su "to tell" has more senses than gào sù "to press charges"
    assert word_gloss("告诉") == "tell"
    assert "heroin" not in english_gloss("今天是几号？")  # a slang sense is no gloss


def test_proper_nouns_are_their_names() -> None:
    assert word_gloss("上海") == "Shanghai"  # "Shanghai municipality, central east China, ..."
    assert word_gloss("长城") == "Great Wall"  # "the Great Wall"
    assert english_gloss("100美元等于多少人民币？").startswith("100 US dollar")


def test_values_and_quoted_text_are_kept_as_written() -> None:
    glossed = english_gloss("把内容「你好，世界」写入文件 /tmp/hello.txt")
    assert '"你好，世界"' in glossed
    assert glossed.endswith("/tmp/hello.txt")


def test_a_measure_word_leaves_its_number() -> None:
    assert english_gloss("两个人的餐厅").split()[:2] == ["two", "person"]
    assert "one" not in english_gloss("帮我查一下")  # 一下 is a particle, no number


def test_a_chinese_request_without_a_listed_verb_is_read_through_its_gloss() -> None:
    intent = RuleIntentParser().parse("北京今天的天气怎么样？")
    assert intent["request"] == "北京今天的天气怎么样？"
    assert "English gloss" in intent["parser"]
    assert "Beijing" in intent["sub_intents"][0]["text"]


def test_a_request_the_cue_words_read_is_not_glossed() -> None:
    intent = RuleIntentParser().parse("读取文件 /tmp/notes.txt")
    assert intent["parser"] == "rules"
    assert "读取" in intent["sub_intents"][0]["text"]


def test_other_languages_still_get_the_clear_error() -> None:
    with pytest.raises(IntentParseError, match="reads English only"):
        RuleIntentParser().parse("こんにちは、てすとのしょうひんをつくって")
