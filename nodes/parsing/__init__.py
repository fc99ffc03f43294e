"""Intent parsing below the ``parse_intent`` node: a request becomes a tree of sub-intents."""
