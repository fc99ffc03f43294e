"""Language: tokens and lemmas, keywords, the synonym lexicon, entities, the domain vocabulary.

The lexicon and the domain vocabulary are data files (``data/lexicon.yaml``,
``data/vocabulary.yaml``) a user can extend or replace (``ZSPACE_LEXICON``,
``ZSPACE_VOCABULARY``).
"""
