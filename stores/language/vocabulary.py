"""Vocabularies of the entity extractor: statuses, units, keys and the words around values."""


from __future__ import annotations

# --- vocabularies -----------------------------------------------------------------------------

STATUS_VALUES: dict[str, str] = {
    "created": "created",
    "pending payment": "pending_payment",
    "payment pending": "pending_payment",
    "awaiting payment": "pending_payment",
    "waiting for payment": "pending_payment",
    "pending": "pending_payment",
    "unpaid": "pending_payment",
    "paid": "paid",
    "shipped": "shipped",
    "dispatched": "shipped",
    "delivered": "delivered",
    "completed": "completed",
    "cancelled": "cancelled",
    "canceled": "cancelled",
    "voided": "cancelled",
    "refunded": "refunded",
    "picked up": "picked_up",
    "in transit": "in_transit",
    "failed": "failed",
    "active": "active",
    "frozen": "frozen",
    "suspended": "frozen",
    "available": "available",
    "busy": "busy",
    "offline": "off",
    "off duty": "off",
    "issued": "issued",
    "redeemed": "redeemed",
    "revoked": "revoked",
    "expired": "expired",
    "archived": "archived",
    "closed": "closed",
}
"""Surface status phrases mapped to the underscored status values tools use."""

_STATUS_PHRASES: tuple[tuple[str, ...], ...] = tuple(
    sorted((tuple(p.split()) for p in STATUS_VALUES), key=len, reverse=True)
)

_SMALL_NUMBERS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORDS = set(_SMALL_NUMBERS) | set(_TENS) | set(_SCALES) | {"dozen"}

_CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "bucks": "USD", "buck": "USD",
    "yuan": "CNY", "rmb": "CNY", "cny": "CNY", "元": "CNY", "块": "CNY", "kuai": "CNY",
    "euro": "EUR", "euros": "EUR", "eur": "EUR", "pound": "GBP", "pounds": "GBP", "gbp": "GBP",
    "yen": "JPY", "jpy": "JPY",
}  # fmt: skip
_CURRENCY_PREFIXES = {
    "$": "USD", "us$": "USD", "usd": "USD", "¥": "CNY", "￥": "CNY", "rmb": "CNY", "cny": "CNY",
    "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP",
}  # fmt: skip

_MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
            ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
            ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}  # fmt: skip
_RELATIVE_DATES = {"today", "tomorrow", "tonight", "yesterday"}

# Words after a number that make it a count of things ("3 units"), not an id.
_UNIT_WORDS = frozenset(
    "unit units item items piece pieces pc pcs copy copies box boxes pack packs bottle bottles"
    " cup cups bag bags set sets x times pair pairs".split()
)
# Plural nouns after a number that do not count things ("17 details").
_NOT_COUNTED = frozenset(
    "details records logs stats statistics info history events status statuses".split()
)
# Words between an object word and its id: "order id 17", "account number: 123456".
_ID_CONNECTORS = frozenset("id ids number no num code ref reference is = : # . of".split())
# "the order with id 17", "the user whose account number is ..." need one of _ID_WORDS after.
_ID_LEADS = frozenset("with whose having".split())
_ID_WORDS = frozenset("id number no num code ref reference".split())
# Object words that are not in the lexicon but name things with ids in test-data platforms.
_EXTRA_ID_NOUNS = frozenset("template tracking job ticket batch campaign promotion".split())
# Object families whose ids may be all-caps words ("coupon WELCOME").
_CODE_OBJECTS = frozenset({"coupon", "token", "category"})
_PRODUCT_OBJECTS = frozenset({"product", "sku"})

_PAYMENT_METHODS = {
    "card": "card", "credit card": "card", "debit card": "card", "bank card": "card",
    "wallet": "wallet", "balance": "wallet", "cash": "cash", "alipay": "alipay",
    "wechat": "wechat", "wechat pay": "wechat", "paypal": "paypal",
}  # fmt: skip
_TIERS = frozenset("bronze silver gold platinum diamond".split())
_TIER_NOUNS = frozenset("tier membership member level plan card".split())
_ADDRESS_LABELS = frozenset({"home", "work", "office", "billing"})

# Where a free-text value (a name, a reason) stops.
_TEXT_STOP_WORDS = frozenset(
    "and then with for at priced costing costs price in under from to using which that who"
    " whose quantity qty rating status because so but after before once when".split()
)
_CLAUSE_END = frozenset(",.;!?\n")

# Pair keys written in other words.
_KEY_ALIASES = {
    "qty": "quantity", "quantity": "quantity", "count": "quantity", "title": "name",
    "named": "name", "cost": "price", "stars": "rating", "star": "rating",
}  # fmt: skip
_INT_KEYS = frozenset("quantity rating months days limit points stock".split())
_FLOAT_KEYS = frozenset("price amount fee balance percent".split())
_FREE_TEXT_KEYS = frozenset(
    "reason note comment name title description address text message remark category city".split()
)
_KNOWN_PAIR_KEYS = (
    _FREE_TEXT_KEYS
    | _INT_KEYS
    | _FLOAT_KEYS
    | frozenset("status qty email phone method tier id currency type label".split())
)

VALUE_KEYS = _KNOWN_PAIR_KEYS | frozenset("date query limit street".split())
"""Keys of ``named`` that hold values of a fixed kind, never the id of an object."""




