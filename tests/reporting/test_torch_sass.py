"""PyTorch's runs predicted by replaying PyTorch's SASS (:mod:`gpusim.reporting.torch_sass`):
the code recomputes some of the judged runs and must give the errors the report states."""

from __future__ import annotations

import json

import pytest

from gpusim.engine.smem_release import following
from gpusim.reporting import torch_sass as ts
from gpusim.schedule import Schedule
from gpusim.workload import Workload

REPORT = ts.H200.parents[1] / "reports" / "torch_sass" / "compare.json"
#: a long-context decode run (split kernel) and a partition run (132 SMs, causal)
SAMPLE = ("torch_decode_b1h32kv32_q1k4096_c1_m64n128w4s1_sp7_bwd_ff",
          "torch_sm132_prefill_b2h16_q2048k2048_c1_m128n64w4s1_sp1")  # fmt: skip


def test_the_kernel_named_is_the_one_the_sweep_launched():
    rows = [r for name in ts.SETS for r in ts.runs(name) if r.get("torch_kernels")]
    assert len(rows) >= 30
    for r in rows:
        name = ts.torch_kernel(Workload(**r["workload"]), Schedule(**r["schedule"]))
        assert ts._recorded(r).split(">, ", 1)[-1].startswith(ts._readable_bools(name)), r["id"]


@pytest.mark.parametrize("run_id", SAMPLE)
def test_recomputed_errors_are_the_reported_ones(run_id):
    doc = json.loads(REPORT.read_text())
    reported = next(p for p in doc["runs"] if p["id"] == run_id)
    row = next(r | {"set": n} for n in ts.SETS for r in ts.runs(n) if r["id"] == run_id)
    with following(False):  # the report's engine (before held-out sets 21-22's release)
        got = ts.predict_row(row)
    for model in ("sass-replay", "pipe"):
        err = (got[model] - row["median_s"]) / row["median_s"]
        assert err == pytest.approx((reported[model] - row["median_s"]) / row["median_s"], abs=1e-6)
        assert abs(err) < 0.25, (model, err)  # within the report's worst (23.8 %)
    assert got["sass-replay_timing"][0] == "sass-replay" and got["pipe_timing"][0] == "pipe"
