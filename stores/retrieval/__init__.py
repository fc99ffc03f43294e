"""Retrieval: embeddings, FSWW, BM25, the joint tool + agent index, ranking, token ledger."""
