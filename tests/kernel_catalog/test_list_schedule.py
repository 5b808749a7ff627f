"""The list scheduler's pipes are the core model's."""

from __future__ import annotations

from gpusim.engine import core_model
from gpusim.kernel_catalog import list_schedule


def test_pipes_are_the_core_models():
    for op, pipe in list_schedule.PIPES.items():
        assert core_model.PIPES[op] == pipe
