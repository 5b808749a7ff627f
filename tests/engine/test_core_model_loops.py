"""The SM core model against the smem_overlap microbenchmark: the loops' own SASS
(python -m gpusim.kernels.overlap_loops) replayed at the launch shapes the H200 ran them at, as the
engine replays an attention loop (co-resident CTAs averaged over their relative phase)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.engine.core_model import CoreTiming, Instr, resident_step_cycles
from gpusim.profiles.loader import load_profile

RECORDED = Path(__file__).resolve().parents[2] / "data/h200/2026-11-30_calibration_smem_overlap"


@pytest.fixture(scope="module")
def errors() -> list[tuple[dict, float]]:
    timing = CoreTiming.from_profile(load_profile("h200-sxm-core"))
    loops = json.loads((RECORDED / "loop_paths_sm90.json").read_text())["loops"]
    rows = json.loads((RECORDED / "smem-overlap-h200.json").read_text())["rows"]
    out = []
    for r in rows:
        key = f"smem_overlap<{r['nld']},{r['mma_per_ld']},{r['nmma_reg']},{r['rounds']}>"
        path = [Instr.from_row(row) for row in loops[key]]
        per_trip = max(1, sum(i.op == "BAR" for i in path))  # iterations the compiler unrolled
        cycles = resident_step_cycles(path, r["ctas_per_sm"], r["threads"] // 32, timing)
        cycles /= per_trip
        out.append((r, cycles / r["cycles_per_iteration_per_scheduler"] - 1))
    return out


def test_every_loop_and_shape_is_replayed(errors):
    assert len(errors) == 45


def test_one_cta_per_sm_within_9_percent(errors):
    """One CTA of 4, 8 or 16 warps: ldmatrix, mma.sync and softmax alone and together
    (recorded: within -8.8 .. +7.4 %)."""
    one = [e for r, e in errors if r["ctas_per_sm"] == 1]
    assert min(one) >= -0.0885 and max(one) <= 0.0745  # at the precision quoted above


def test_all_shapes_mean_error(errors):
    """Two and four CTAs of 4 warps miss more. Averaged over their relative phase they are
    too fast by 7 % on average (these CTAs launch together and keep more of that alignment
    than an attention kernel's), within -21 .. +4 %; the mean over the 45 rows is 4.9 %
    (the aligned replay alone: 5.4 %, -19 .. +32 %)."""
    # README: "within 4.9 % on average"; the range at the precision quoted (-21.4 %).
    assert sum(abs(e) for _r, e in errors) / len(errors) < 0.0495
    assert max(abs(e) for _r, e in errors) < 0.215
