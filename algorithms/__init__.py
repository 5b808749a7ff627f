"""The seeds' attention and softmax algorithms, each written once against the tile machine."""

from __future__ import annotations

from algorithms.base import Algorithm
from algorithms.flash2 import Flash2
from gpusim.errors import GpusimError

#: Every algorithm by its command-line name, in the order of CLI.md's table.
ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in (Flash2(),)}


def get_algorithm(name: str) -> Algorithm:
    """The algorithm called ``name``; a one-line error listing the known ones otherwise."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        known = ", ".join(ALGORITHMS)
        raise GpusimError(f"unknown algorithm {name!r}; known: {known}") from None
