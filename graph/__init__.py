"""Wiring of the zspace StateGraph, its CLI and the public API for embedding."""
