"""The backward's four models of PyTorch's FlashAttention-2 backward: counts charges the
backward binary's own step, replay needs the dump's head sizes."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.validation import torch_bwd_models as M

RUN = {"id": "x", "batch": 2, "heads": 4, "heads_kv": None, "seq_len_q": 1024,
       "seq_len_k": 1024, "head_dim": 128, "dtype": "bf16", "causal": False}  # fmt: skip


def test_counts_charge_the_backward_binary_s_own_step():
    # d128, 64 x 128 tiles, even and not causal: the loop issues 539 a warp besides HMMA/LDSM
    counts = M.simulate_backward(RUN, "counts", "h100-sxm5")
    assert counts.schedule.step_issue_per_warp == 539
    compiled = M.simulate_backward(RUN, "compiled", "h100-sxm5")
    formulas = M.simulate_backward(RUN, "formulas", "h100-sxm5")
    assert formulas.runtime_s < compiled.runtime_s < counts.runtime_s


def test_a_head_size_without_an_instance_and_an_unknown_model_are_errors():
    with pytest.raises(GpusimError, match="backward instances match"):
        M.simulate_backward(RUN | {"head_dim": 96}, "counts", "h100-sxm5")
    with pytest.raises(GpusimError, match="unknown backward model"):
        M.simulate_backward(RUN, "guess", "h100-sxm5")
