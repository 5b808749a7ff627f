"""The wgmma tables recompute the check criterion and the per-class summary from records.

(No measured run is committed yet; when data/h200/2026-12-03_wgmma_bench exists, add the
recomputation tests over it.)"""

from gpusim.kernels import wgmma_tables as wt


def _rec(err, base, nan=0, guard=True):
    return {"nan_count": nan, "guard_intact": guard, "max_abs_err": err,
            "baseline_max_abs_err": base}  # fmt: skip


def test_record_ok_is_twice_the_baseline_rule():
    assert wt.record_ok(_rec(2e-3, 1e-3))
    assert not wt.record_ok(_rec(2.1e-3, 1e-3))
    assert not wt.record_ok(_rec(1e-4, 1e-3, nan=1))
    assert not wt.record_ok(_rec(1e-4, 1e-3, guard=False))
    assert not wt.record_ok({"error": "launch failed"})


def test_class_summary_min_median_and_ratios():
    rows = [
        {"dtype": "bf16", "head_dim": 128, "causal": False, "seq_len": n, "ours_tflops": t,
         "torch_cudnn_tflops": 2 * t, "torch_flash_tflops": t / 2}
        for n, t in ((4096, 500.0), (8192, 600.0), (16384, 700.0), (512, 100.0))
    ]  # fmt: skip
    (short, long) = wt.class_summary(rows)
    assert short["seq"] == "N < 4096" and short["shapes"] == 1
    assert long["min_tflops"] == 500.0 and long["median_tflops"] == 600.0
    assert long["median_x_cudnn"] == 0.5 and long["median_x_flash"] == 2.0
