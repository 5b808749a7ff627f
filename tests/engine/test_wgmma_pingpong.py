"""The wgmma ping-pong bound (gpusim/engine/wgmma_rates.py, ``pingpong_rates``): a step of
n >= 2 consumer warpgroups takes max(T, A, T / n + I x c); one warpgroup, or a profile without
the measured c, keeps the overlap share's step."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from algorithms import get_algorithm
from gpusim.api import simulate
from gpusim.calibrate.wgmma_pingpong import with_fields
from gpusim.counting import traced_classes
from gpusim.data.layout import REPO_ROOT
from gpusim.engine.clock import TICKS_PER_S
from gpusim.engine.plan import step_work
from gpusim.engine.prepare import planned_programs, steady_step
from gpusim.engine.rates import rates_for
from gpusim.engine.wgmma_rates import WARPS_PER_WARPGROUP, pingpong_rates
from gpusim.profiles.loader import load_profile
from gpusim.reporting.wgmma_set_kind import PINGPONG_FIELDS
from gpusim.schedule import Schedule
from gpusim.workload import Workload

FOLDER = "data/h200/2026-12-04_calibration_wgmma_step"
DOC = json.loads((REPO_ROOT / FOLDER / "wgmma-step-h200.json").read_text())
#: the shipped profile without the two fields, and with the fill rows' values
BASE = load_profile("h200-sxm").model_copy(update=dict.fromkeys(PINGPONG_FIELDS))
HW = with_fields(BASE, DOC, FOLDER, "fill")


def _schedule(groups: int, block_n: int) -> Schedule:
    return Schedule(block_m=64 * groups, block_n=block_n, warps=4 * groups, stages=2,
                    mma="wgmma", tile_copy="tma", producer_warps=4)  # fmt: skip


def _kernel(d: int, groups: int, block_n: int):
    w = Workload(batch=2, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=d, dtype="bf16")
    s = _schedule(groups, block_n)
    k = get_algorithm("flash2").kernels(w, s)[0]
    steps = [x for p in planned_programs(traced_classes(k, [200000])) for x in p.steps]
    rates = rates_for(HW, "bf16", s.warps, schedule=s, head_dim=d).for_kernel(True)
    return k, rates, steady_step([x for x in steps if x.mma_flops > 0])


@pytest.mark.parametrize(("d", "block_n"), [(64, 128), (128, 64), (128, 128), (256, 64)])
def test_a_two_warpgroup_step_takes_the_bound(d, block_n):
    k, rates, step = _kernel(d, 2, block_n)
    out, note = pingpong_rates(rates, HW, k, lambda: step)
    assert "ping-pong" in note
    work = step_work(step, out)
    took = out.step_ticks(work) * out.sched_scale
    serial = replace(rates, phase_overlap=0.0).serial_parts(work)
    products, softmax_phase = (max(v / rates.pipe_per_tick[p] for p, v in part.items())
                               for part in serial)  # fmt: skip
    c = HW.wgmma_softmax_cycles_per_instr_2_warpgroups.value
    lone = work["issue"] / (2 * WARPS_PER_WARPGROUP) * c / rates.clock_hz * TICKS_PER_S
    bound = max(products, softmax_phase, products / 2 + lone)
    assert took == pytest.approx(bound, rel=1e-6)
    # the products run at the paired rate: the one-CTA peak
    peak = HW.wgmma_flops_per_clk_per_sm.bf16.value * rates.clock_hz / TICKS_PER_S
    assert products == pytest.approx(step.mma_flops / peak, rel=1e-6)


def test_one_warpgroup_or_no_field_keeps_the_overlap_share():
    k, rates, step = _kernel(256, 1, 64)
    one = {"wgmma_softmax_cycles_per_instr_1_warpgroups": None}
    assert pingpong_rates(rates, HW.model_copy(update=one), k, lambda: step) is None
    _, note = pingpong_rates(rates, HW, k, lambda: step)  # decode set 3's step
    assert "1 consumer warpgroups" in note
    k, rates, step = _kernel(128, 2, 128)
    assert pingpong_rates(rates, BASE, k, lambda: step) is None


def test_the_result_names_the_mechanism():
    w = Workload(batch=2, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    got = simulate("flash2", w, _schedule(2, 128), HW).kernels[0]
    assert "ping-pong bound" in (got.timing_source or "")
    assert simulate("flash2", w, _schedule(2, 128), BASE).kernels[0].timing_source is None
