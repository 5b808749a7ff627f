"""Held-out set 12: its manifest is the module's with its rule and new, and the default
profile's predictions of some runs recomputed from the code with and without a load's latency
under the queue, against the H200's times (data/h200/2026-12-04_load_latency_heldout12)."""

from __future__ import annotations

import json
import statistics

import pytest

from gpusim.engine import load_latency
from gpusim.reporting.load_latency_verdict import VARIANTS
from gpusim.reporting.pack_gqa import measured_s
from gpusim.validation.load_latency_heldout12 import RULE, heldout12_configs
from tests.validation.heldout_sets import H200, ROOT, assert_set_is_new

FOLDER = "2026-12-04_load_latency_heldout12"
#: DRAM-bound decode of both kernels (split and not), and a prefill of the control
RECOMPUTED = (
    "project_decode_b24h32kv32_q1k8192_c1_m64n64w4s2_sp1_fwd_lf",
    "project_decode_b4h32kv32_q1k32768_c1_m64n64w4s2_sp2_fwd_lf",
    "torch_decode_b4h32kv32_q1k32768_c1_m64n128w4s1_sp2_bwd_ff",
    "project_prefill_b2h16kv16_q12288k12288_c0_m128n64w4s2_sp1_fwd_lf",
)


def test_manifest_is_the_module_set_with_its_rule_and_new():
    assert_set_is_new(FOLDER, heldout12_configs(), RULE)


def test_the_engine_runs_with_the_adopted_mechanism():
    assert load_latency.under_queue()


@pytest.fixture(scope="module")
def recomputed() -> dict[str, tuple[float, float]]:
    """(record's error, candidate's error) of each sampled run on h200-sxm, now."""
    configs = {c.config_id: c for c in heldout12_configs()}
    measured = measured_s(H200 / FOLDER)
    out = {}
    for cid in RECOMPUTED:
        t = measured[cid]
        rec, cand = (VARIANTS.predict_variant(configs[cid], v)["runtime_s"] / t - 1
                     for v in VARIANTS.judged)  # fmt: skip
        out[cid] = (rec, cand)
    return out


def test_both_models_recomputed_against_the_h200(recomputed):
    """Measured 2026-12-04: record +8.5, +14.3, +14.6, -6.1 %; candidate +0.4, -2.7, -1.5,
    -6.2 %: the decode runs lose the idle latency of every step, the prefill run hardly."""
    decode = [v for k, v in recomputed.items() if "decode" in k]
    assert all(abs(c) < abs(r) for r, c in decode)
    assert (
        statistics.fmean(abs(c) for _, c in decode)
        < 0.03
        < 0.08
        < statistics.fmean(abs(r) for r, _ in decode)
    )
    rec, cand = recomputed[RECOMPUTED[-1]]
    assert abs(cand - rec) < 0.005


def test_the_committed_verdict_is_the_rule_applied():
    preds = json.loads((ROOT / "reports/load_latency_heldout12/predictions.json").read_text())
    measured = measured_s(H200 / FOLDER)
    mape = {}
    for model in VARIANTS.judged:
        errs = [preds["by_config"][cid][model]["runtime_s"] / t - 1 for cid, t in measured.items()]
        assert len(errs) == 21
        mape[model] = statistics.fmean(abs(e) for e in errs)
    # 8.35 % against 5.10 % over all 21 runs: the candidate is adopted
    assert mape["candidate"] < mape["record"]
    assert mape["record"] == pytest.approx(0.0835, abs=5e-4)
    assert mape["candidate"] == pytest.approx(0.0510, abs=5e-4)
