"""Data and algorithms below LangGraph: catalog, embeddings, index, ranking, ledger."""
