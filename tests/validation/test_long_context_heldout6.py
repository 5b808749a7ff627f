"""The sixth long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, every run is counted at exactly 64k or 128k tokens."""

from __future__ import annotations

from gpusim.validation.long_context_heldout6 import RULE, heldout6_configs
from tests.validation.heldout_sets import assert_set_is_new

FOLDER = "2026-12-05_long_context_heldout6"


def test_manifest_is_the_module_set_and_new():
    assert_set_is_new(FOLDER, heldout6_configs(), RULE)


def test_every_run_is_counted_at_the_target_lengths():
    configs = heldout6_configs()
    assert len(configs) == 21 and all(c.ncu for c in configs)
    assert {c.workload.seq_len_k for c in configs} == {65536, 131072}
    assert sum(c.kernel == "torch" for c in configs) == 4


def test_h200_runs_recomputed_from_the_code():
    """Set 6 measured on an H200 at last (data/h200/2026-12-05_long_context_heldout6, its
    predictions committed in 58929c3 before any measurement): runtime 7.5 % (project, every
    run fast, worst -10.1 %), DRAM bytes of the K/V trace 13.3 % (worst -35.0 %, the batch-3
    single-head unmasked run). Two runtimes and two DRAM counts recomputed on h200-sxm."""
    import json

    from gpusim.data.layout import REPO_ROOT
    from gpusim.reporting.long_context_dram import predict_one, read_measured
    from gpusim.reporting.long_context_predict import predict_one as predict_runtime

    folder = REPO_ROOT / "data" / "h200" / FOLDER
    card = json.loads((folder / "provenance.json").read_text())["provenance"]["gpu_name"]
    assert "H200" in card
    ncu, sweep = read_measured(folder)
    configs = {c.config_id: c for c in heldout6_configs()}
    for cid, lo, hi in (
        ("project_gqa_prefill_b1h32kv4_q65536k65536_c0_m128n64w4s2_sp1_bwd_lf", -0.12, -0.08),
        ("project_prefill_b2h4kv4_q65536k65536_c1_m128n64w4s2_sp1_bwd_ff", -0.10, -0.02),
    ):
        err = predict_runtime(configs[cid], "h200-sxm")["runtime_s"] / sweep[cid]["median_s"] - 1
        assert lo < err < hi, (cid, err)
    for cid, lo, hi in (
        ("project_prefill_b3h1kv1_q131072k131072_c0_m128n64w4s2_sp1_fwd_lf", -0.40, -0.30),
        ("project_prefill_b1h8kv8_q131072k131072_c1_m128n64w4s2_sp1_bwd_lf", -0.05, 0.05),
    ):
        measured = ncu[cid]["dram_read_bytes"] + ncu[cid]["dram_write_bytes"]
        err = predict_one(configs[cid], "h200-sxm")["kv_trace_mates"] / measured - 1
        assert lo < err < hi, (cid, err)
