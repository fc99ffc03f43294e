"""Compatibility import for nodes/intake.py: binding moved to :mod:`nodes.planning.binding`.

Delete this module once nodes/intake.py imports ``find_named_value`` from there (its owner's
change; the planning refactor may not edit intake).
"""

from nodes.planning.binding import find_named_value

__all__ = ["find_named_value"]
