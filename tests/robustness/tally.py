"""Count fuzz cases by class of input, across the session (and across xdist workers).

A test calls :func:`tally` with the classes its case belongs to. The conftest
writes each process's counts to ``.pytest_cache/robustness/`` when the session
ends, and the process that prints the terminal summary adds them up, prints a
table and, with ``GPUSIM_ROBUSTNESS_COUNTS=FILE``, writes them as JSON.
"""

from __future__ import annotations

import contextlib
from collections import Counter

from hypothesis import event
from hypothesis.errors import InvalidArgument

#: Cases run in this process, by class.
TALLY: Counter[str] = Counter()


def tally(*classes: str) -> None:
    """Count one case in each of ``classes`` (and show them in hypothesis' statistics)."""
    for c in dict.fromkeys(classes):
        TALLY[c] += 1
        with contextlib.suppress(InvalidArgument):  # outside a hypothesis test
            event(c)
