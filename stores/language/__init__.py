"""Language: tokens and lemmas, keywords, the synonym lexicon, entities, language guess."""
