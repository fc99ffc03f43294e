"""Language: tokens and lemmas, keywords, the synonym lexicon, entities, typed spans, vocabulary.

Typed spans (``spans.py``: numbers with units, money, dates, quoted text, paths, ids, lists,
pairs, JSON, names) are what the schema-driven binder assigns to parameters.

The lexicon and the domain vocabulary are data files (``data/lexicon.yaml``,
``data/vocabulary.yaml``) a user can extend or replace (``ZSPACE_LEXICON``,
``ZSPACE_VOCABULARY``).
"""
