"""Is a request in English? A small offline guess for the rule-based parser's sake.

The rule parser, the lexicon and the bundled embedding model read English. A request in
another language would otherwise be matched on whatever few tokens it shares with tool names
(numbers, "test"), so the parser asks this module first and, when the request is clearly in
another language and it understood none of it, says so instead of guessing.

Two signals, both cheap and deterministic:

- the script of the letters: a request written mostly in non-Latin letters (Cyrillic, CJK,
  Arabic, ...) is not English;
- function words: common words of French, German, Spanish, Italian, Portuguese and Dutch
  that are not also English words (a data file, ``data/languages.yaml``, since some are
  everyday request words such as "commande"), counted against English function words.

It is a guess for one purpose (a clear answer instead of a wrong call), not a language
identifier: it returns ``None`` whenever the evidence is weak.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from importlib import resources

import yaml

from stores.language.keywords import STOPWORDS, tokenize


@functools.cache
def _foreign_words() -> dict[str, frozenset[str]]:
    """Words of other languages (``data/languages.yaml``), minus those that are also English."""
    resource = resources.files("stores.language").joinpath("data/languages.yaml")
    table = yaml.safe_load(resource.read_text(encoding="utf-8")) or {}
    # A word that is also English ("die", "is", "on", "a") is no evidence either way.
    return {
        str(language): frozenset(str(words).lower().split()) - STOPWORDS
        for language, words in table.items()
    }


_ENGLISH_EXTRA = frozenset("create make place add get show list the an and then for".split())

CJK_LANGUAGE = "Chinese or Japanese"
"""What :func:`guess_non_english` names a request written mostly in Chinese characters."""

_SCRIPT_NAMES = {
    "CYRILLIC": "a Cyrillic-script language",
    "CJK": CJK_LANGUAGE,
    "HIRAGANA": "Japanese",
    "KATAKANA": "Japanese",
    "HANGUL": "Korean",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "GREEK": "Greek",
    "DEVANAGARI": "Hindi or another Devanagari-script language",
    "THAI": "Thai",
}


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    for script in _SCRIPT_NAMES:
        if name.startswith(script):
            return script
    return "LATIN" if name.startswith("LATIN") else "OTHER"


def guess_non_english(text: str) -> str | None:
    """Name the language ``text`` is probably written in when that is clearly not English.

    Args:
        text: A request.

    Returns:
        A language (or script) name such as ``"French"`` or ``"Chinese or Japanese"``, or
        ``None`` when the text looks English or the evidence is too weak to say.
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return None
    scripts = Counter(_script(c) for c in letters)
    script, count = scripts.most_common(1)[0]
    if script in _SCRIPT_NAMES and count >= 0.5 * len(letters):
        return _SCRIPT_NAMES[script]
    words = [w.lower() for w in tokenize(text)]
    english = sum(1 for w in words if w in STOPWORDS or w in _ENGLISH_EXTRA)
    scores = {
        language: sum(1 for w in words if w in vocabulary)
        for language, vocabulary in _foreign_words().items()
    }
    language, best = max(scores.items(), key=lambda item: item[1])
    if best >= 1 and best > english:
        return language
    return None


def written_language(text: str) -> str | None:
    """The language a passage is written in: a clear other language, or English.

    English when no other language is clear and at least two English function words are
    said ("I love the food here!"); None when there is too little to tell.
    """
    other = guess_non_english(text)
    if other is not None:
        return other
    words = [w.lower() for w in tokenize(text)]
    english = sum(1 for w in words if w in STOPWORDS or w in _ENGLISH_EXTRA)
    return "English" if english >= 2 else None
