"""Evaluation: metrics, retrieval evaluation, end-to-end accuracy."""
