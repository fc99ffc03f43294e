"""Contracts of the zspace pipeline and one module per node."""
