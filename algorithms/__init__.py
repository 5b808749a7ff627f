"""The seeds' attention and softmax algorithms, each written once against the tile machine."""

from __future__ import annotations

from algorithms.base import Algorithm
from algorithms.flash1 import Flash1
from algorithms.flash2 import Flash2
from algorithms.flash2_kvq import Flash2KVQ
from algorithms.flash_naive_kvq import FlashNaiveKVQ
from algorithms.flash_naive_qkv import FlashNaiveQKV
from algorithms.softmax_3pass import Softmax3Pass
from algorithms.softmax_online import SoftmaxOnline
from algorithms.standard import Standard
from gpusim.errors import GpusimError

#: Every algorithm by its command-line name, in the order of CLI.md's table.
ALGORITHMS: dict[str, Algorithm] = {
    a.name: a
    for a in (
        Softmax3Pass(),
        SoftmaxOnline(),
        Standard(),
        FlashNaiveQKV(),
        FlashNaiveKVQ(),
        Flash1(),
        Flash2(),
        Flash2KVQ(),
    )
}


def get_algorithm(name: str) -> Algorithm:
    """The algorithm called ``name``; a one-line error listing the known ones otherwise."""
    try:
        return ALGORITHMS[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name (a list) from the API
        known = ", ".join(ALGORITHMS)
        raise GpusimError(f"unknown algorithm {name!r}; known: {known}") from None
