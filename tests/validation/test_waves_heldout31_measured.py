"""Held-out set 31 measured on an H100: the masked partial wave recomputed from the code on both
H100 profiles against the measured time (the set's finding), and the comparison recomputed from
the committed predictions byte for byte."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation import long_context_sweep
from gpusim.validation.partial_waves_heldout31 import heldout31_configs
from tests.validation.heldout_sets import ROOT

DATA = ROOT / "data/h100/2026-12-06_partial_waves_heldout31"
#: (run, error on h100-sxm5, error on h100-sxm5-core), measured 2026-12-06 on an H100: the
#: masked 128 x 64 tile at one wave and at 1.32 waves, and the unmasked one at 1.32 waves
SAMPLE = (
    ("project_prefill_b1h44kv44_q768k8192_c1_m128n64w4s2_sp1_fwd_lf", -0.062, -0.036),
    ("project_prefill_b1h58kv58_q768k8192_c1_m128n64w4s2_sp1_fwd_lf", 0.112, 0.141),
    ("project_prefill_b1h58kv58_q768k8192_c0_m128n64w4s2_sp1_fwd_lf", -0.043, 0.023),
)


@pytest.mark.parametrize("cid,pipe_err,core_err", SAMPLE)
def test_sampled_runs_recomputed_against_the_h100(cid, pipe_err, core_err):
    config = {c.config_id: c for c in heldout31_configs()}[cid]
    measured = {r["id"]: r for r in long_context_sweep.records(DATA)}[cid]["median_s"]
    for name, err in (("h100-sxm5", pipe_err), ("h100-sxm5-core", core_err)):
        got = predict_one(config, name)["runtime_s"] / measured - 1
        assert got == pytest.approx(err, abs=0.005), name


def test_the_comparison_and_the_masked_tail(tmp_path, monkeypatch):
    from gpusim.reporting import waves_set

    monkeypatch.chdir(ROOT)  # the report names its measured folder as the README's command does
    out = tmp_path / "compare.json"
    assert waves_set.main(["compare", "--measured", str(DATA.relative_to(ROOT)),
                           "--out", str(out)]) == 0  # fmt: skip
    assert out.read_text() == (ROOT / "reports/waves_heldout31/compare.json").read_text()
    doc = json.loads(out.read_text())
    rows = {r["ctas"]: r for r in doc["waves"]["m128n64 c1"]}
    # the measured partial wave costs what the unmasked one does; the engine's costs more
    plain = {r["ctas"]: r for r in doc["waves"]["m128n64 c0"]}
    measured_tail = rows[348]["measured_s"] - rows[264]["measured_s"]
    assert measured_tail == pytest.approx(plain[348]["measured_s"] - plain[264]["measured_s"],
                                          rel=0.05)  # fmt: skip
    assert rows[348]["h100-sxm5_s"] - rows[264]["h100-sxm5_s"] > 1.3 * measured_tail
    assert doc["profiles"]["h100-sxm5-core"]["mape"] < doc["profiles"]["h100-sxm5"]["mape"]
    assert doc["roofline"]["mape"] > 5 * doc["profiles"]["h100-sxm5"]["mape"]
