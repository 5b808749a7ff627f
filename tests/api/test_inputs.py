"""build_inputs: flat values to validated inputs, the default rule filling what is left out."""

from __future__ import annotations

import pytest

from gpusim.api.inputs import build_inputs
from gpusim.errors import GpusimError
from gpusim.tuning.default_choice import accepted_default_schedule
from gpusim.tuning.rules import default_schedule


def test_build_inputs_defaults_match_the_tuner_rule():
    w, s, p, filled = build_inputs(seq_len=1024)
    assert (w.seq_len_q, w.seq_len_k, w.batch, w.heads, w.head_dim) == (1024, 1024, 8, 32, 128)
    assert p.name == "h200-sxm"
    chosen = accepted_default_schedule("flash2", w, p)
    assert s == chosen
    assert filled == {k: getattr(chosen, k) for k in filled}
    assert set(filled) == {"block_m", "block_n", "warps", "stages", "warp_split", "residency"}
    # Where the tuner accepts the rule's own choice (standard: the model grid), it is kept.
    w, s, p, _ = build_inputs(algorithm="standard", seq_len=1024)
    assert s == default_schedule("standard", w, p.smem_per_block_bytes.value)


def test_build_inputs_uses_the_profile_smem_for_defaults():
    big = build_inputs(head_dim=256, profile="h200-sxm-datasheet")
    small = build_inputs(head_dim=256, profile="rtx-4090")
    assert (
        small.schedule.block_m * small.schedule.block_n
        <= big.schedule.block_m * big.schedule.block_n
    )


def test_build_inputs_errors_name_the_option():
    with pytest.raises(GpusimError, match=r"^--warps: must be <= 64$"):
        build_inputs(warps=65)
    with pytest.raises(GpusimError, match=r"^--seq-len: must be > 0"):
        build_inputs(seq_len=0)
    with pytest.raises(GpusimError, match="shared memory per CTA"):
        build_inputs(block_m=512, block_n=512)
    build_inputs(block_m=512, block_n=512, check=False)  # the fit check can be left to the caller


def test_a_decode_step_gets_the_least_oversized_tile_not_the_largest():
    """One query needs a 16-row tile, which no compiled flash2 instance has: the default is
    the 64-row tile (4x the rows it uses), not 128 x 128 (8x, and twice the warps), and it
    predicts the step faster; a prefill keeps the largest tile that fits."""
    import gpusim

    decode = dict(heads=32, heads_kv=8, seq_len=1, seq_len_k=65536, kv_splits=4)
    w, s, _, filled = build_inputs(**decode)
    assert (s.block_m, s.block_n, s.warps) == (64, 128, 4) and filled["block_m"] == 64
    largest = s.model_copy(update={"block_m": 128, "warps": 8})
    assert (gpusim.simulate("flash2", w, s).runtime_s
            < gpusim.simulate("flash2", w, largest).runtime_s)  # fmt: skip
    _, prefill, _, _ = build_inputs(seq_len=2048)
    assert prefill.block_m * prefill.block_n == 128 * 128
