"""No domain vocabulary in code: the sandbox shop's words live in the data files only.

The words of one domain (statuses, payment methods, tiers, shop nouns such as order, product,
coupon or rider, the cue words of a price or a rating ...) are read from
``stores/language/data/vocabulary.yaml`` and ``lexicon.yaml``. This test loads those words
from the data files and fails when one of them comes back into the Python code under
``graph/``, ``nodes/`` and ``stores/`` as a vocabulary literal: a short string (a word or a
phrase of up to three words, say ``"order"`` or ``"pending payment"``), a string that is
``.split()`` into a word list, or a regular expression with alternatives. Docstrings, comments
and sentences (messages) are not vocabulary and are not scanned.

Words that are also ordinary English or generic schema words ("status", "name", "items",
"amount") are in ``GENERIC``; the few literals that stay on purpose are in ``ALLOWED``, each
with the reason. Adding to either needs a reason as good as those.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "stores" / "language" / "data"
SCANNED = ("graph", "nodes", "stores")

# Words of the data files that are ordinary English or generic parameter names, used in code
# for what they mean in any domain.
GENERIC = frozenset(
    # generic keys and nouns of any schema or request
    "status state stage name item items unit units quantity amount limit count message text"
    " comment reason note history date time type code session location person client profile"
    " article level plan value values data record records detail details list"
    # CRUD and reading operations: the planner's generic kinds of action
    " create get search update delete cancel login logout verify"
    # English words that are also a status or a label somewhere
    " created active closed failed available expired work home off busy open"
    # counting and money words of English (language, see stores/language/vocabulary.py)
    " set sets piece pieces pair pairs money"
    # software words that are also lexicon synonyms
    " user store catalog spec specification method token score evaluation feedback return"
    " category rate archive pending awaiting offline".split()
)

# (file, word): literals that stay, and why.
ALLOWED: dict[tuple[str, str], str] = {
    ("stores/language/spans_numbers.py", "point"): "the English word of a decimal said in "
    "words (\"six point four\")",
    ("stores/language/keywords.py", "paid"): "English irregular verb form paid -> pay",
    ("nodes/planning/said_content.py", "label"): "a generic parameter name for what a thing is "
    "called, beside title and name",
    ("stores/language/keywords.py", "pay"): "English irregular verb form paid -> pay",
    ("stores/language/keywords.py", "sell"): "English irregular verb form sold -> sell",
    ("stores/language/keywords.py", "address"): "English plural addresses -> address",
    ("stores/language/keywords.py", "goods"): "English word the plural rule would damage",
    ("stores/language/spans_text.py", "order"): "English verbs that start requests, not names",
    ("stores/language/spans_text.py", "pay"): "English verbs that start requests, not names",
    ("stores/catalog/depgraph.py", "addr"): "abbreviation addr -> address of schema names",
    ("stores/catalog/depgraph.py", "price"): "generic output-field names that link no tools",
    ("stores/catalog/depgraph.py", "product"): "abbreviation prod -> product of schema names",
    ("stores/catalog/depgraph.py", "address"): "abbreviation addr -> address of schema names",
    ("stores/catalog/depgraph.py", "user"): "abbreviation cust -> customer of schema names",
    ("nodes/synthesize.py", "price"): "output fields shown first in a digest of any tool",
    ("stores/catalog/depgraph.py", "account"): "abbreviation acct -> account of schema names",
    ("stores/catalog/depgraph.py", "customer"): "abbreviation cust -> customer of schema names",
    ("stores/catalog/depgraph.py", "qty"): "abbreviation qty -> quantity of schema names",
    ("stores/catalog/depgraph.py", "advance"): "action words of tool names, not values",
    ("stores/catalog/depgraph.py", "issue"): "action words of tool names, not values",
    ("nodes/context.py", "refund"): "default approval patterns, a Context field users tune",
    ("nodes/planning/name_spans.py", "order"): "English verbs that open requests, not names",
    ("stores/language/gloss.py", "variant"): "CC-CEDICT's own wording of a cross-reference "
    "sense (\"variant of 楂\"), which a gloss skips",
    ("nodes/parsing/splitting.py", "review"): "owned by the splitting module (parallel work)",
    ("nodes/parsing/splitting.py", "order"): "owned by the splitting module (parallel work)",
    ("nodes/parsing/splitting.py", "product"): "owned by the splitting module (parallel work)",
    ("nodes/planning/argument_sets.py", "points"): "the function name cut_points in __all__",
    ("nodes/planning/param_fit.py", "address"): "English words by which a schema names a place",
    ("nodes/planning/value_forms.py", "address"): "English 'e-mail address', a written form",
    ("nodes/planning/value_forms.py", "destination"): "English name of a move's end, a "
    "parameter that may hold a file's path",
    ("nodes/planning/param_fit.py", "destination"): "English words by which a schema names a place",
    ("nodes/planning/said_forms.py", "destination"): "English names of a trip's end (from param_fit)",
    **{
        ("nodes/planning/param_fit.py", word): "English names of any schema's money parameters:"
        " a distance ('50 miles') is hardly a max_price"
        for word in ("price", "cost", "fee", "payment")
    },
}


def _words(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _words(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _words(key)
            yield from _words(item)


def domain_terms() -> frozenset[str]:
    """The words and phrases of the shipped domain vocabulary and lexicon objects."""
    vocabulary = yaml.safe_load((DATA / "vocabulary.yaml").read_text(encoding="utf-8"))
    lexicon = yaml.safe_load((DATA / "lexicon.yaml").read_text(encoding="utf-8"))
    sections = [
        "statuses", "payment_methods", "tiers", "tier_nouns", "address_labels", "id_nouns",
        "code_objects", "product_objects", "noun_verbs", "orderable", "value_cues",
        "value_units", "price_verbs", "value_names", "integer_values", "decimal_values",
        "key_aliases", "operation_rewrites", "name_stop_words", "named_field_objects",
        "payment_verbs", "methods_after_paying", "consumes", "categories",
        "operation_categories", "instance_operations", "given_objects", "containers",
    ]  # fmt: skip
    terms: set[str] = set()
    for section in sections:
        body = vocabulary[section]
        if section == "value_names":
            body = list(body.values())  # its keys are the roles the code asks for
        for phrase in _words(body):
            terms.add(" ".join(phrase.lower().replace("*", " ").split()))
    for canonical, synonyms in lexicon["objects"].items():
        terms.add(canonical)
        terms.update(s for s in synonyms if " " not in s)
    for canonical in lexicon["operations"]:
        terms.add(canonical)
    return frozenset(terms - GENERIC)


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    for node in ast.walk(tree):
        # Attribute docstrings: a string statement right after an assignment.
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))
    return found


def vocabulary_literals(source: str) -> Iterator[tuple[int, str]]:
    """``(line, word)`` for each word of a vocabulary literal in ``source``."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    split_receivers: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "split"
        ):
            split_receivers.add(id(node.func.value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in skip:
            continue
        text = node.value.lower()
        word_list = id(node) in split_receivers
        regex = "|" in text and bool(re.search(r"[a-z]{3,}\|[a-z]", text))
        if not (word_list or regex or len(text.split()) <= 3):
            continue
        words = set(re.findall(r"[a-z]+", text))
        words.add(" ".join(text.split()))
        for word in sorted(words):
            yield node.lineno, word


def test_domain_terms_are_loaded_from_the_data_files() -> None:
    terms = domain_terms()
    # A sample of each kind, so that an empty or renamed section cannot pass vacuously.
    for word in ("pending payment", "shipped", "alipay", "gold", "order", "coupon", "rider",
                 "price", "stars", "mug" if "mug" in terms else "product"):  # fmt: skip
        assert word in terms, word


def test_the_scanner_finds_a_domain_word_in_code() -> None:
    source = (
        'WORDS = {"shipped": 1}\nPATTERN = r"\\b(?:card|wallet)\\b"\n"""A docstring: order."""\n'
    )
    found = {word for _, word in vocabulary_literals(source)} & domain_terms()
    assert found == {"shipped", "card", "wallet"}


def test_no_domain_words_in_code() -> None:
    terms = domain_terms()
    problems: list[str] = []
    for package in SCANNED:
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            for line, word in vocabulary_literals(path.read_text(encoding="utf-8")):
                if word in terms and (relative, word) not in ALLOWED:
                    problems.append(f"{relative}:{line}: '{word}'")
    assert not problems, (
        "domain words in code (move them to stores/language/data/vocabulary.yaml or "
        "lexicon.yaml, or justify them in ALLOWED):\n" + "\n".join(sorted(set(problems)))
    )
