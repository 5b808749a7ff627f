"""The tracer's instruction counts: the masking path is charged only on tiles that mask."""

from __future__ import annotations

import pytest

from algorithms import get_algorithm
from algorithms.tracing import trace_classes
from gpusim.instruction_mix import SASS_FIT, StepShape, issued, mask_mix
from gpusim.kernel_class import KernelClass
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _loop_instrs(causal: bool, seq: int, counts: str | None = None) -> list[float]:
    w = Workload(
        batch=1, heads=1, seq_len_q=seq, seq_len_k=seq, head_dim=64, dtype="bf16", causal=causal
    )
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2, instruction_counts=counts)
    (kernel,) = get_algorithm("flash2").kernels(w, s)
    last = max(trace_classes(kernel), key=lambda c: c.representative_block)
    return [st.instrs for st in last.program.iter_steps() if st.pipelined]


@pytest.mark.parametrize("counts", [None, "formulas"])
def test_unmasked_tiles_cost_the_same_and_masked_ones_more(counts):
    plain = _loop_instrs(False, 256, counts)
    assert len(set(plain)) == 1  # no tile masks: every step the unmasked path
    causal = _loop_instrs(True, 256, counts)
    assert causal[:-1] == plain[: len(causal) - 1]
    extra = causal[-1] - plain[0]  # the diagonal tile masks
    if counts is None:  # the project's kernel: the fit to its compiled loops
        _a, _b, _c, m, n = SASS_FIT["mma"]
        assert extra == pytest.approx(m * 64 * 64 / 32 + n * 4)
        return
    shape = StepShape(64 / 4, 64, 64, 4, 2, 2, 64)
    per_warp = issued(mask_mix(KernelClass(product="mma"), shape))
    # 2 per element (16 x 64 / 32 per thread), 2 per key column (16), 1 per row (2)
    assert per_warp == pytest.approx(2 * 32 + 2 * 16 + 2)
    assert extra == pytest.approx(4 * per_warp)


def test_a_ragged_last_key_tile_masks():
    steps = _loop_instrs(False, 200)  # 200 keys: the last 64-key tile runs past the end
    assert steps[-1] > steps[0]
    assert len(set(steps[:-1])) == 1
