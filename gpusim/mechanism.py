"""A mechanism that a held-out set judged: on or off, and set for a block (the engine's, and
the PyTorch schedules' of gpusim.validation: a leaf module, importable without simpy).

Each judged mechanism keeps the model without it one call away, so that its set's record
variant, and the tests that recompute both, run the engine as it was judged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class Mechanism:
    """Whether one mechanism is on (the default once a set adopted it)."""

    __slots__ = ("_on",)

    def __init__(self, on: bool):
        self._on = on

    @property
    def on(self) -> bool:
        return self._on

    @contextlib.contextmanager
    def setting(self, on: bool) -> Iterator[None]:
        """The engine with (``on``) or without the mechanism for the block."""
        was, self._on = self._on, on
        try:
            yield
        finally:
            self._on = was
