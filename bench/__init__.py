"""Benchmark runners: python -m bench NAME."""
