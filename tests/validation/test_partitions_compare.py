"""The SM-partition comparison on synthetic records: errors, baselines, what is missing."""

from __future__ import annotations

import pytest

from gpusim.profiles import load_profile
from gpusim.validation import partitions_compare as pcmp
from gpusim.validation.partition_configs import partition_configs

PROFILE = "h200-sxm-calibrated"


@pytest.fixture(scope="module")
def hw():
    return load_profile(PROFILE)


def _fake(configs, factor_of):
    """Measured records (1 ms x SMs-scaled) and predictions off by ``factor_of(config)``."""
    measured, predicted = {}, {}
    for c in configs:
        t = 1e-3 * 132 / c.sm_count
        measured[c.config_id] = {"status": "ok", "median_s": t, "sm_count_obtained": c.sm_count}
        predicted[c.config_id] = {PROFILE: {"runtime_s": t * factor_of(c), "bound": "tensor"}}
    return measured, {"by_config": predicted}


def test_errors_per_kernel_and_partition(hw):
    configs = partition_configs()
    measured, predictions = _fake(configs, lambda c: 1.1 if c.kernel == "project" else 0.95)
    per = pcmp.compare(configs, measured, predictions, {PROFILE: hw})["profiles"][PROFILE]
    proj, torch = per["model"]["project"], per["model"]["torch"]
    assert proj["target_range"]["n"] == 24 and proj["all"]["n"] == 30
    assert proj["target_range"]["mape"] == pytest.approx(0.10)
    assert torch["by_sm_count"]["8"]["mean_signed"] == pytest.approx(-0.05)
    assert per["both_kernels_target_range"]["model"]["mape"] == pytest.approx(0.075)
    # a constant error scales right: the slowdown against 132 SMs is exact
    assert per["slowdown_vs_132"]["project"]["mape"] == pytest.approx(0.0, abs=1e-12)
    assert per["missing"] == [] and per["sm_mismatch"] == []


def test_the_constant_efficiency_baseline_is_exact_at_its_reference(hw):
    configs = partition_configs()
    measured, predictions = _fake(configs, lambda c: 1.0)
    per = pcmp.compare(configs, measured, predictions, {PROFILE: hw})["profiles"][PROFILE]
    assert set(per["efficiency"]) == {"project", "torch"}
    ref = per["efficiency"]["project"]["reference"]
    assert pcmp.REFERENCE in ref and "_sm132_" in ref
    rows = pcmp.rows(configs, measured, predictions["by_config"], PROFILE, hw)["rows"]
    (at_ref,) = [r for r in rows["constant_efficiency"] if r["id"] == ref]
    assert at_ref["err"] == pytest.approx(0.0, abs=1e-12)


def test_the_roofline_keeps_the_memory_system_and_scales_the_tensor_peak(hw):
    c = next(
        c for c in partition_configs() if c.group == "prefill" and c.workload.seq_len_q == 8192
    )
    full = pcmp.partition_roofline_s(c.workload, hw, 132)
    small = pcmp.partition_roofline_s(c.workload, hw, 8)
    launch = hw.kernel_launch_overhead_s.value
    assert (small - launch) / (full - launch) == pytest.approx(132 / 8)


def test_failed_unpredicted_and_regranted_runs_are_listed(hw):
    configs = partition_configs()[:4]
    measured, predictions = _fake(configs, lambda c: 1.0)
    measured[configs[0].config_id] = {"status": "failed", "error": "wrong result"}
    del predictions["by_config"][configs[1].config_id]
    measured[configs[2].config_id]["sm_count_obtained"] = 24
    per = pcmp.compare(configs, measured, predictions, {PROFILE: hw})["profiles"][PROFILE]
    assert [m["id"] for m in per["missing"]] == [configs[0].config_id, configs[1].config_id]
    assert per["sm_mismatch"] == [{"id": configs[2].config_id, "asked": 16, "obtained": 24}]
