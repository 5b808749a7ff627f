"""The fifth long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, every run is counted at exactly 64k or 128k tokens; and, measured, the K/V
trace with SM-mates recomputed from the code against the H200's DRAM bytes
(data/h200/2026-12-04_long_context_heldout5)."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.validation.long_context_heldout5 import RULE, heldout5_configs
from tests.validation.heldout_sets import assert_set_is_new

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-04_long_context_heldout5"


def test_manifest_is_the_module_set_and_new():
    assert_set_is_new("2026-12-04_long_context_heldout5", heldout5_configs(), RULE)


def test_every_run_is_counted_at_the_target_lengths():
    configs = heldout5_configs()
    assert len(configs) == 24 and all(c.ncu for c in configs)
    assert {c.workload.seq_len_k for c in configs} == {65536, 131072}


#: measured runs the trace with SM-mates moved most against the trace of record: 128k d64
#: unmasked, 128k batch 2 causal backward first-first
RECOMPUTED = (
    "project_prefill_b1h12kv12_q131072k131072_c0_m128n64w4s2_sp1_fwd_lf_d64",
    "project_prefill_b2h2kv2_q131072k131072_c1_m128n64w4s2_sp1_bwd_ff",
)


def test_trace_with_sm_mates_recomputed_against_ncu():
    from gpusim.api import simulate
    from gpusim.engine.kv_trace_l2 import kv_trace_for, kv_trace_of_record
    from gpusim.engine.rates import rates_for
    from gpusim.profiles.loader import load_profile

    prof = load_profile("h200-sxm")
    ncu = json.loads((DATA / "ncu.json").read_text())["by_config"]
    errs: dict[str, list[float]] = {"mates": [], "shared": []}
    for c in heldout5_configs():
        if c.config_id not in RECOMPUTED:
            continue
        m = ncu[c.config_id]
        measured = m["dram_read_bytes"] + m["dram_write_bytes"]
        r = simulate("flash2", c.workload, c.schedule, prof)
        rates = rates_for(prof, c.workload.dtype, c.schedule.warps)
        mates = kv_trace_of_record(c.workload, c.schedule, rates, r.ctas_per_sm, r.runtime_s)
        shared = kv_trace_for(c.workload, c.schedule, rates, r.ctas_per_sm, mates.shared_aging)
        for k, t in (("mates", mates.result), ("shared", shared)):
            errs[k].append((t.dram_read_bytes + t.dram_write_bytes) / measured - 1)
    assert len(errs["mates"]) == len(RECOMPUTED)
    # measured: +6.8 and -8.9 % with SM-mates (the d64 run now at ptxas's 2 CTAs per SM),
    # where the trace of record is 43 and 31 % under
    assert max(abs(e) for e in errs["mates"]) < 0.15
    assert min(abs(e) for e in errs["shared"]) > 0.25
