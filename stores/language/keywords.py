"""Keyword extraction for FSWW and BM25: tokens, a tiny lemmatizer, stopwords.

Everything here is a pure function of its arguments. The lemmatizer is a handful of suffix
rules plus exceptions; given a vocabulary (the lexicon's words) it picks the candidate base
form that the vocabulary knows, which is what makes "placed", "creating" and "orders" meet
"place", "create" and "order".
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

from stores.language.spans_cjk import segment as cjk_words

if TYPE_CHECKING:  # lexicon.py imports this module at run time
    from stores.language.lexicon import Lexicon

# Letters and digits (any script); "_" and punctuation split words, an inner apostrophe does
# not ("don't", "user's").
_WORD_RUN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each either else etc ever every few for from further had
    hadn't has hasn't have haven't having he her here hers herself him himself his how however
    i i'd i'll i'm i've if in into is isn't it it's its itself just let let's may maybe me
    might mine more most much must mustn't my myself neither no nor not now of off often on
    once only or other ought our ours ourselves out over own per perhaps quite rather really
    same shall she should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those though
    through thus to too under until up upon us very via was wasn't we we'd we'll we're we've
    were weren't what what's when where which while who whom whose why will with within
    without won't would wouldn't yet you you'd you'll you're you've your yours yourself
    yourselves
    please pls plz kindly thanks thank thx hi hello hey ok okay want wants wanted need needs
    needed like wish help try trying able gonna wanna lets just quickly somehow
    something anything thing things stuff using use via one
    """.split()
)
"""English function words plus request fluff ("please", "can you", "I want", "need").

Verbs that name operations ("get", "make", "set", "show", "give") are deliberately absent:
the lexicon maps them to canonical operations.
"""

_IRREGULAR: dict[str, str] = {
    "paid": "pay",
    "sent": "send",
    "made": "make",
    "gave": "give",
    "given": "give",
    "bought": "buy",
    "sold": "sell",
    "built": "build",
    "found": "find",
    "got": "get",
    "gotten": "get",
    "shown": "show",
    "chosen": "choose",
    "written": "write",
    "wrote": "write",
    "done": "do",
    "did": "do",
    "ran": "run",
    "kept": "keep",
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "statuses": "status",
    "bonuses": "bonus",
    "added": "add",
    "adding": "add",
    "indices": "index",
    "addresses": "address",
}
# Words the suffix rules would damage.
_INVARIANT: frozenset[str] = frozenset(
    "news goods series species does always perhaps plus minus thus yes this these those"
    " during thing nothing something anything everything string morning evening ceiling"
    " spring king wedding pudding bed red need feed seed speed".split()
)
_VOWELS = frozenset("aeiouy")
# A verb stem ending like these usually lost a final "e": creat(e)d, plac(e)d, chang(e)d.
_SILENT_E_ENDINGS = (
    "at", "ut", "ot", "et", "iz", "yz", "v", "c", "g", "bl", "pl", "tl", "dl", "gl", "kl",
    "cl", "ir", "ur", "os", "as", "is", "us",
)  # fmt: skip


def _split_camel_case(run: str) -> list[str]:
    """Split ``getUserByID`` / ``HTTPServer`` at case changes; caseless scripts stay whole."""
    parts: list[str] = []
    start = 0
    for index in range(1, len(run)):
        previous, current = run[index - 1], run[index]
        following = run[index + 1] if index + 1 < len(run) else ""
        lower_to_upper = previous.islower() and current.isupper()
        acronym_end = previous.isupper() and current.isupper() and following.islower()
        if lower_to_upper or acronym_end:
            parts.append(run[start:index])
            start = index
    parts.append(run[start:])
    return parts


def token_spans(text: str, *, split_identifiers: bool = True) -> list[tuple[int, int, str]]:
    """Find word tokens with their character offsets.

    Args:
        text: Any text.
        split_identifiers: Split camelCase and PascalCase runs into separate tokens.

    Returns:
        ``(start, end, token)`` triples: ``text[start:end]`` is the token's surface without a
        trailing possessive ``'s``, and ``token`` is its lowercase form.
    """
    spans: list[tuple[int, int, str]] = []
    for match in _WORD_RUN.finditer(text):
        run = match.group()
        if _CJK.search(run):
            parts = list(cjk_words(run))  # "查询订单" → "查询", "订单"
        else:
            parts = _split_camel_case(run) if split_identifiers else [run]
        offset = match.start()
        for part in parts:
            start, end = offset, offset + len(part)
            offset = end
            token = part.lower().replace("’", "'")
            if token.endswith("'s"):
                token, end = token[:-2], end - 2
            if token:
                spans.append((start, end, token))
    return spans


def tokenize(text: str) -> list[str]:
    """Split text into lowercase word tokens.

    Unicode letters and digits form words; punctuation, whitespace and ``_`` separate them,
    camelCase and PascalCase are split at case changes (``getUserById`` gives ``get``,
    ``user``, ``by``, ``id``), and a trailing possessive ``'s`` is removed. Scripts without
    spaces are split into words by jieba when they are Chinese ("查询订单" gives ``查询``,
    ``订单``).

    Args:
        text: Any text, including code identifiers.

    Returns:
        Lowercase tokens in order of appearance.
    """
    return [token for _, _, token in token_spans(text)]


def _undouble(stem: str) -> str | None:
    if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
        return stem[:-1]
    return None


def _verb_stem_candidates(stem: str) -> list[str]:
    """Base-form guesses for a stem left after removing -ed or -ing, best guess first."""
    undoubled = _undouble(stem)
    if undoubled is not None:
        # shipp(ed) -> ship and cancell(ed) -> cancel, but bill(ed) -> bill, pass(ed) -> pass
        if stem[-1] in "lsz" and not (stem.endswith("ell") and len(stem) >= 6):
            return [stem, undoubled]
        return [undoubled, stem]
    with_e = stem + "e"
    if stem.endswith(_SILENT_E_ENDINGS):
        return [with_e, stem]
    return [stem, with_e]


def _candidates(word: str) -> list[str]:
    """Possible base forms of ``word`` by suffix rules, the rule-based best guess first."""
    if word.endswith("ies") and len(word) > 4:
        return [word[:-3] + "y", word[:-1]]
    if word.endswith("sses"):
        return [word[:-2]]
    if word.endswith(("xes", "ches", "shes", "zzes")):
        return [word[:-2], word[:-1]]
    if word.endswith(("ss", "us", "is")):
        return []
    if word.endswith("es"):
        return [word[:-1], word[:-2]]
    if word.endswith("s"):
        return [word[:-1]]
    if word.endswith("ied") and len(word) > 4:
        return [word[:-3] + "y"]
    if word.endswith("eed"):
        return []
    if word.endswith("ed") and len(word) > 4 and _VOWELS & set(word[:-2]):
        return _verb_stem_candidates(word[:-2])
    if word.endswith("ing") and len(word) > 5 and _VOWELS & set(word[:-3]):
        return _verb_stem_candidates(word[:-3])
    return []


def lemmatize(word: str, vocabulary: Collection[str] = frozenset()) -> str:
    """Reduce an English word to a base form with a few suffix rules.

    Handles plurals (``orders``, ``addresses``, ``deliveries``), ``-ed`` and ``-ing``
    (``placed``, ``shipped``, ``creating``) and a small table of irregular forms (``paid``,
    ``sent``). Words of three letters or fewer are kept. When ``vocabulary`` is given, a word
    it contains is kept as is and otherwise the first candidate it contains wins; without a
    match the rule-based guess is used, which is right for common cases but can produce a
    stem that is not a word.

    Args:
        word: One token (any case).
        vocabulary: Known base forms, such as the lexicon's words.

    Returns:
        The lowercase base form.
    """
    lowered = word.lower()
    if lowered in _IRREGULAR:
        return _IRREGULAR[lowered]
    if len(lowered) <= 3 or lowered in vocabulary or lowered in _INVARIANT:
        return lowered
    if not lowered.isalpha():
        return lowered
    candidates = _candidates(lowered)
    for candidate in candidates:
        if candidate in vocabulary:
            return candidate
    return candidates[0] if candidates else lowered


# Endings that make a noun or a verb of one root: "analysis" / "analyze", "prediction" /
# "predict", "calculation" / "calculate", "recommendation" / "recommend".
_DERIVATIONS = re.compile(
    r"(?:isation|ization|ation|ition|tion|sion|ment|(?<=y)(?:sis|ses|se|ze)|ise|ize|ate|ing|ed|s)$"
)


def _root(word: str) -> str:
    """A word without its derivational ending ("analysis" -> "analy")."""
    return _DERIVATIONS.sub("", word.lower())


def same_root(first: str, second: str) -> bool:
    """Whether two words are of one family: "analysis" and "analyze", "prediction" and "predict".

    Their roots (without a derivational ending) are equal, or one begins the other, five
    letters at least: "sentence" and "sentiment" are not.
    """
    one, other = _root(first), _root(second)
    shorter, longer = sorted((one, other), key=len)
    return len(shorter) >= 5 and longer.startswith(shorter) and len(longer) - len(shorter) <= 2


# A chunk with a digit ("42", "u_123", "ORD-2024-001", "#7") is an id or a quantity.
_ID_CHUNK = re.compile(r"[\w#-]*\d[\w#-]*")


def _is_content_word(token: str) -> bool:
    return len(token) > 1 and token not in STOPWORDS


def extract_keywords(text: str, lexicon: Lexicon | None = None, max_keywords: int = 8) -> list[str]:
    """Pick the words of a request that FSWW should emphasise.

    With a lexicon, operation and object phrases are found first (longest phrase wins, so
    "check out" is ``pay``, not ``get`` + ``out``) and their canonical terms come first, in
    order of appearance. The surface word is not kept next to its canonical term: tool
    descriptions use the canonical vocabulary and the statement vector already carries the
    surface. Then come the remaining content words in order of appearance. Stopwords, single
    characters and every token of a chunk that contains a digit (``42``, ``u_123``,
    ``ORD-2024-001``: ids, quantities and dates, which the intent parser extracts as entities)
    are dropped; lexicon phrases are never matched across such a chunk. Words are
    de-duplicated by lemma; non-lexicon words keep their first surface form.

    Args:
        text: The request or sub-intent text.
        lexicon: Synonym lexicon for canonical terms; None skips normalization (pass
            ``Lexicon.default()`` for the shipped domain lexicon).
        max_keywords: Maximum number of keywords returned (``>= 0``).

    Returns:
        At most ``max_keywords`` lowercase keywords.

    Raises:
        ValueError: If ``max_keywords`` is negative.
    """
    if max_keywords < 0:
        raise ValueError(f"max_keywords must be >= 0, got {max_keywords}")
    spans = token_spans(text)
    id_characters = {i for chunk in _ID_CHUNK.finditer(text) for i in range(*chunk.span())}
    # Id tokens stay in the sequence (so no phrase is matched across them) but are skipped.
    is_id = [start in id_characters for start, _, _ in spans]
    tokens = [token for _, _, token in spans]
    canonical_terms: list[str] = []
    covered: set[int] = set()
    if lexicon is not None:
        for term in lexicon.find_terms(tokens):
            covered.update(range(term.start, term.stop))
            canonical_terms.append(term.canonical)
    keywords = list(dict.fromkeys(canonical_terms))
    seen_lemmas = {lemmatize(keyword) for keyword in keywords}
    for index, token in enumerate(tokens):
        if index in covered or is_id[index] or not _is_content_word(token):
            continue
        lemma = lemmatize(token)
        if lemma not in seen_lemmas:
            seen_lemmas.add(lemma)
            keywords.append(token)
    return keywords[:max_keywords]
