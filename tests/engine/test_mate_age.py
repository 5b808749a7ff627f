"""The first wave's SM-mate age (gpusim/engine/mate_age.py): which kernels get the measured
ratio, the work scales it gives, and what it does to a grid whose last wave is partial."""

from __future__ import annotations

import itertools

import pytest

from gpusim.engine.mate_age import first_wave_ratio, rank_scales
from gpusim.profiles.loader import load_profile
from gpusim.profiles.schema import SourcedRateTable

TABLE = SourcedRateTable(value={"2": [(16, 1.0), (32, 1.12)]}, source="a test")


def _profile(table=TABLE):
    return load_profile("h100-sxm5").model_copy(update={"sm_mate_first_wave_ratio": table})


def test_scales_keep_the_sms_work_and_give_the_measured_ratio():
    for ratio, mates in ((1.12, 2), (1.05, 3), (1.0, 2)):
        s = rank_scales(ratio, mates)
        assert sum(s) == pytest.approx(mates)
        assert all(b / a == pytest.approx(ratio) for a, b in itertools.pairwise(s))


def test_only_the_measured_kernels_get_the_ratio_and_the_rest_say_why():
    p = _profile()
    assert first_wave_ratio(p, "mma", 32, 2, True) == (pytest.approx(1.12), None)
    assert first_wave_ratio(p, "mma", 24, 2, True)[0] == pytest.approx(1.06)  # between rows
    for args, why in (
        (("wgmma", 32, 2, True), "mma.sync"),
        (("mma", 32, 2, False), "forward"),
        (("mma", 32, 3, True), "3 CTAs per SM"),
        (("mma", 64, 2, True), "not 64"),
    ):
        ratio, note = first_wave_ratio(p, *args)
        assert ratio == 1.0 and why in note
    assert first_wave_ratio(p, "mma", 32, 1, True) == (1.0, None)  # no mates
    assert first_wave_ratio(_profile(None), "mma", 32, 2, True) == (1.0, None)  # not measured


def _run(profile, heads: int, causal: bool, block_m: int = 128):
    from gpusim.api import simulate
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    w = Workload(batch=1, heads=heads, seq_len_q=768, seq_len_k=8192, head_dim=128,
                 dtype="bf16", causal=causal)  # fmt: skip
    s = Schedule(block_m=block_m, block_n=64, warps=4, stages=2)
    return simulate("flash2", w, s, profile=profile)


def test_a_masked_partial_wave_spreads_and_a_lone_wave_is_untouched():
    """Held-out set 31's shape: with even shares the masked grid's 1.32nd wave doubles up on
    the SMs whose both slots free first; with the older mates ending first it spreads, one CTA
    to an SM, and runs shorter. A grid of half a wave has no mates: nothing changes."""
    even, aged = load_profile("h100-sxm5"), _profile()
    masked = (_run(even, 58, True), _run(aged, 58, True))
    assert masked[1].runtime_s < 0.95 * masked[0].runtime_s
    assert masked[1].kernels[0].mate_first_wave_ratio == pytest.approx(1.12)
    alone = (_run(even, 22, False), _run(aged, 22, False))
    assert alone[1].runtime_s == alone[0].runtime_s
    rows16 = (_run(even, 58, True, block_m=64), _run(aged, 58, True, block_m=64))
    assert rows16[1].runtime_s == rows16[0].runtime_s  # measured ratio 1.0 at 16 rows a warp
