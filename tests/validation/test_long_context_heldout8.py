"""The eighth long-context held-out set (decoding on the lent card; the H100's measured
profile against its derived one): its manifest is the module's and new, and its H100
measurements recomputed from the code."""

from __future__ import annotations

import json

from gpusim.data.layout import REPO_ROOT
from gpusim.engine.smem_release import following
from gpusim.engine.stream_latency import streaming
from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.long_context_heldout8 import RULE, heldout8_configs
from tests.validation.heldout_sets import assert_set_is_new

FOLDER = "2026-12-05_long_context_heldout8"
DATA = REPO_ROOT / "data" / "h100" / FOLDER
#: (run, lower, upper bound of the signed error): the set's worst run on h100-sxm5 (-19.9 %),
#: its worst slow one (+17.0 %), a split run and PyTorch's 32-way split GQA kernel
SAMPLE = (
    ("project_decode_b8h16kv16_q1k24576_c1_m64n64w4s2_sp1_fwd_lf_d64", -0.22, -0.17),
    ("project_gqa_decode_b4h32kv8_q1k40960_c1_m64n64w4s2_sp1_fwd_lf", 0.14, 0.20),
    ("project_decode_b1h32kv32_q64k98304_c1_m64n64w4s2_sp16_fwd_lf", -0.08, -0.02),
    ("torch_gqa_decode_b1h28kv7_q1k131072_c1_m64n128w4s1_sp32_bwd_ff_pack", -0.08, -0.02),
)


def test_manifest_is_the_module_set_and_new():
    assert_set_is_new(FOLDER, heldout8_configs(), RULE)
    configs = heldout8_configs()
    assert len(configs) == 28 and not any(c.ncu for c in configs)
    assert all(c.workload.seq_len_q < c.workload.seq_len_k for c in configs)


def _sweep() -> dict[str, dict]:
    rows = [json.loads(line) for line in (DATA / "sweep.jsonl").read_text().splitlines()]
    return {r["id"]: r for r in rows}


def test_h100_runs_recomputed_on_both_h100_profiles():
    """Recomputed from the code against the H100's times: on h100-sxm5 the set came back at
    8.3 % (project, +2.9 %) and 4.9 % (PyTorch, -4.9 %), on h100-sxm5-measured at 8.7 % and
    6.1 %: the derived profile won the rule, so nothing was renamed."""
    card = json.loads((DATA / "provenance.json").read_text())["provenance"]["gpu_name"]
    assert "H100" in card
    sweep, configs = _sweep(), {c.config_id: c for c in heldout8_configs()}
    assert all(sweep[cid]["status"] == "ok" for cid in configs)
    for cid, lo, hi in SAMPLE:
        # the engine as the set judged it (before sets 21-22's release and set 25's stream)
        with following(False), streaming(False):
            derived = predict_one(configs[cid], "h100-sxm5")["runtime_s"]
            measured_profile = predict_one(configs[cid], "h100-sxm5-measured")["runtime_s"]
        err = derived / sweep[cid]["median_s"] - 1
        assert lo < err < hi, (cid, err)
        # the two H100 profiles part by a few per cent at most on decoding
        assert abs(measured_profile / derived - 1) < 0.03, cid
