"""Errors, baselines and the PyTorch schedule check of the long-context comparison."""

import pytest

from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.validation.long_context_compare import (
    compare,
    rel_err,
    roofline_s,
    summarise,
    table,
    tensor_peak_flops,
    torch_schedule_check,
)
from gpusim.validation.long_context_configs import LongContextConfig
from gpusim.workload import Workload

HW = load_profile("h200-sxm-datasheet")


def _cfg(kernel, nq=1, nk=4096, splits=1):
    w = Workload(batch=1, heads=32, seq_len_q=nq, seq_len_k=nk, head_dim=128, dtype="bf16")
    return LongContextConfig(kernel, "decode", w, Schedule(block_m=64, kv_splits=splits))


def test_summary_statistics():
    rows = [{"id": str(i), "measured": 1.0, "predicted": 1 + (e or 0), "err": e}
            for i, e in enumerate([0.1, -0.3, 0.2, None])]  # fmt: skip
    s = summarise(rows)
    assert s["n"] == 3
    assert s["mape"] == pytest.approx(0.2)
    assert s["mean_signed"] == pytest.approx(0.0)
    assert s["max_abs"] == pytest.approx(0.3) and s["worst"][0]["id"] == "1"
    assert summarise([])["mape"] is None
    assert rel_err(1.5, 1.0) == pytest.approx(0.5) and rel_err(1.0, 0) is None


def test_roofline_is_the_slower_of_compute_and_memory():
    decode = Workload(batch=1, heads=32, seq_len_q=1, seq_len_k=131072, dtype="bf16")
    launch = HW.kernel_launch_overhead_s.value
    assert roofline_s(decode, HW) - launch == pytest.approx(
        decode.qkvo_bytes() / HW.dram_bandwidth_bytes_per_s.value
    )
    prefill = Workload(batch=1, heads=16, seq_len_q=65536, seq_len_k=65536, dtype="bf16")
    assert roofline_s(prefill, HW) - launch == pytest.approx(
        prefill.model_flops() / tensor_peak_flops(HW, "bf16")
    )


def test_compare_counts_misses_and_judges_model_and_baselines():
    a, b, c = _cfg("project"), _cfg("project", splits=4), _cfg("torch", nq=16)
    measured = {
        a.config_id: {"status": "ok", "median_s": 2e-5},
        b.config_id: {"status": "ok", "median_s": 1e-5},
        c.config_id: {"status": "failed", "error": "x"},
    }
    predictions = {
        "by_config": {
            a.config_id: {"h200-sxm-datasheet": {"runtime_s": 3e-5}},
            b.config_id: {"h200-sxm-datasheet": {"error": "kv_splits is not simulated yet"}},
        }
    }
    doc = compare(
        [a, b, c],
        measured,
        predictions,
        {"h200-sxm-datasheet": HW},
        {"h200-sxm-datasheet": (0.5, 10)},
    )
    per = doc["profiles"]["h200-sxm-datasheet"]
    assert per["model"]["project"]["n"] == 1
    assert per["model"]["project"]["mape"] == pytest.approx(0.5)
    assert {m["id"] for m in per["missing"]} == {b.config_id, c.config_id}
    assert per["roofline"]["project"]["n"] == 2  # baselines need no model
    ce = per["constant_efficiency"]["project"]["worst"][0]
    assert ce["predicted"] == pytest.approx(roofline_s(a.workload, HW) / 0.5) or ce[
        "predicted"
    ] == pytest.approx(roofline_s(b.workload, HW) / 0.5)
    assert "h200-sxm-datasheet" in table(doc)


def test_dram_bytes_are_judged_against_ncu():
    a = _cfg("project")
    ncu = {"by_config": {a.config_id: {"dram_read_bytes": 100.0, "dram_write_bytes": 20.0}}}
    pred = {
        "by_config": {a.config_id: {"h200-sxm-datasheet": {"runtime_s": 1.0, "dram_bytes": 132}}}
    }
    doc = compare([a], {}, pred, {"h200-sxm-datasheet": HW}, None, ncu)
    rows = doc["profiles"]["h200-sxm-datasheet"]["dram_bytes"]["rows"]
    assert rows[0]["err"] == pytest.approx(0.1)


def test_torch_schedule_mismatch_is_reported():
    c = _cfg("torch")
    s = c.schedule
    same = {"block_m": s.block_m, "block_n": s.block_n, "warps": s.warps, "kv_splits": 1}
    assert torch_schedule_check([c], {c.config_id: {"torch_observed": same}}) == []
    other = same | {"kv_splits": 7}
    (miss,) = torch_schedule_check([c], {c.config_id: {"torch_observed": other}})
    assert miss["observed"]["kv_splits"] == 7
