"""The counts look swaps the tracer's counts for its own runs only."""

from __future__ import annotations

import algorithms.tracing as tracing
from gpusim.kernel_catalog.loop_counts import loop_counts
from gpusim.reporting.pipe_counts_look import compiled_counts, instance_key
from gpusim.validation.tuner_heldout34 import heldout34_configs


def test_every_run_has_compiled_counts_and_the_swap_is_undone():
    configs = heldout34_configs()
    keys = {instance_key(c) for c in configs}
    assert keys <= set(loop_counts())
    before = (tracing.cta_step_issue, tracing.cta_mask_issue)
    key = sorted(keys)[0]
    with compiled_counts(key):
        assert tracing.cta_step_issue(None, type("S", (), {"warps": 4})()) == (
            4 * loop_counts()[key]["steady"]
        )
    assert (tracing.cta_step_issue, tracing.cta_mask_issue) == before
