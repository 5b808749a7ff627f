"""The committed wgmma measurements, recomputed: correctness flags, TFLOP/s and ratios."""

import math

from gpusim.data.layout import DATA_DIR
from gpusim.kernel_catalog.wgmma_instances import all_instances
from gpusim.kernels import wgmma_tables as wt

RUN = DATA_DIR / "h200" / "2026-12-03_wgmma_bench"


def test_every_check_record_flag_matches_its_numbers():
    _, recs, _ = wt.load(RUN)
    assert recs
    for r in recs:
        assert r["ok"] == wt.record_ok(r), r["instance"]


def test_benchmarked_instances_passed_every_case():
    bench, recs, _ = wt.load(RUN)
    failed = {r["instance"] for r in recs if not wt.record_ok(r)}
    timed = {p["instance"] for p in bench["per_instance"] if "median_s" in p}
    assert timed and not timed & failed


def test_rows_recompute_from_times():
    bench, _, _ = wt.load(RUN)
    for r in bench["rows"]:
        flops = 4 * r["batch"] * r["heads"] * r["seq_len"] ** 2 * r["head_dim"]
        flops /= 2 if r["causal"] else 1
        assert math.isclose(r["ours_tflops"], flops / r["ours_median_s"] / 1e12, rel_tol=1e-9)
        same = [
            p for p in bench["per_instance"]
            if "median_s" in p and (p["dtype"], p["head_dim"], p["causal"], p["seq_len"])
            == (r["dtype"], r["head_dim"], r["causal"], r["seq_len"])
        ]  # fmt: skip
        assert min(p["median_s"] for p in same) == r["ours_median_s"]
        if r["torch_cudnn_tflops"]:
            assert math.isclose(r["ratio_to_cudnn"], r["ours_tflops"] / r["torch_cudnn_tflops"])


def test_class_summary_and_build_cover_the_catalogue():
    bench, _, build = wt.load(RUN)
    summary = wt.class_summary(bench["rows"])
    assert {(c["dtype"], c["head_dim"]) for c in summary} >= {("bf16", 128)}
    for c in summary:
        assert c["min_tflops"] <= c["median_tflops"]
    assert set(build) == {i.key for i in all_instances()}
    for rec in build.values():
        assert rec["sass"]["HGMMA"] > 0 and rec["sass"]["UTMALDG"] > 0
