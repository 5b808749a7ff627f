"""The seventh long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, every run is counted at exactly 64k or 128k tokens."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.reporting.long_context_dram import read_measured
from gpusim.validation.long_context_heldout7 import RULE, heldout7_configs
from tests.validation.heldout_sets import assert_set_is_new

FOLDER = "2026-12-05_long_context_heldout7"


def test_manifest_is_the_module_set_and_new():
    assert_set_is_new(FOLDER, heldout7_configs(), RULE)


def test_every_run_is_counted_at_the_target_lengths():
    configs = heldout7_configs()
    assert len(configs) == 21 and all(c.ncu for c in configs)
    assert {c.workload.seq_len_k for c in configs} == {65536, 131072}
    assert sum(c.kernel == "torch" for c in configs) == 4


DATA = "data/h100/2026-12-05_long_context_heldout7"
#: (run, what): the short 64k batch-4 causal run and a 64k d64 causal run for the runtime;
#: the 128k backward-first-first causal run that thrashes the L2 (166 GB against 1.3 GB
#: compulsory) and the 64k batch-4 unmasked run the trace under-counts most for DRAM bytes
RUNTIME = (
    "project_prefill_b4h2kv2_q65536k65536_c1_m128n64w4s2_sp1_fwd_ff",
    "project_prefill_b1h24kv24_q65536k65536_c1_m128n64w4s2_sp1_fwd_lf_d64",
)
DRAM = (
    "project_prefill_b1h10kv10_q131072k131072_c1_m128n64w4s2_sp1_bwd_ff",
    "project_prefill_b4h2kv2_q65536k65536_c0_m128n64w4s2_sp1_fwd_lf",
)


def _measured() -> tuple[dict, dict, str]:
    """(ncu's counts, the timed records, the card) of the measured set."""
    folder = REPO_ROOT / DATA
    card = json.loads((folder / "provenance.json").read_text())["provenance"]["gpu_name"]
    return *read_measured(folder), card


def test_h100_runs_recomputed_on_the_derived_profile():
    """The H100's measurements against ``h100-sxm5`` (no H100 number in it) recomputed from
    the code: the set came back at runtime 9.3 % (project, every run fast, worst -17.1 %) and
    the K/V trace's DRAM bytes at 13.5 % (worst -37.3 %), where the engine's tile L2 counts
    the thrashing run's compulsory bytes only."""
    from gpusim.api import simulate
    from gpusim.reporting.long_context_dram import predict_one

    ncu, sweep, card = _measured()
    assert "H100" in card  # so h100-sxm5's predictions are the judged ones
    configs = {c.config_id: c for c in heldout7_configs()}
    for cid in RUNTIME:
        c = configs[cid]
        assert sweep[cid]["status"] == "ok"
        predicted = simulate("flash2", c.workload, c.schedule, "h100-sxm5").runtime_s
        err = predicted / sweep[cid]["median_s"] - 1
        assert -0.18 < err < 0.0, (cid, err)
    errs = {}
    for cid in DRAM:
        p = predict_one(configs[cid], "h100-sxm5")
        measured = ncu[cid]["dram_read_bytes"] + ncu[cid]["dram_write_bytes"]
        errs[cid] = (p["kv_trace_mates"] / measured - 1, p["engine"] / measured - 1)
    thrash, small = (errs[cid] for cid in DRAM)
    assert abs(thrash[0]) < 0.15 and thrash[1] < -0.9, thrash
    assert -0.40 < small[0] < -0.2, small
