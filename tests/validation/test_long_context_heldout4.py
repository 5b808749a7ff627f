"""The fourth long-context held-out set: its manifest is the module's, none of its runs is in
an earlier set, its DRAM runs are at exactly 64k and 128k tokens, its decode runs walk their
keys backward (the walks whose chunks the engine now aligns); and, measured, the K/V trace's
DRAM bytes and the engine's runtime recomputed from the code against the H200's
(data/h200/2026-12-04_long_context_heldout4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusim.api import count
from gpusim.engine.kv_trace_l2 import kv_trace_for
from gpusim.engine.rates import rates_for
from gpusim.occupancy import occupancy
from gpusim.profiles.loader import load_profile
from gpusim.reporting.long_context_dram import shared_aging_h200
from gpusim.reporting.long_context_predict import predict_one
from gpusim.reporting.pack_gqa import measured_s
from gpusim.validation.long_context_configs import read_manifest
from gpusim.validation.long_context_heldout4 import RULE, heldout4_configs
from tests.validation.heldout_sets import assert_set_is_new

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-04_long_context_heldout4"


def test_manifest_is_the_module_set_and_new():
    assert_set_is_new("2026-12-04_long_context_heldout4", heldout4_configs(), RULE)


def test_dram_runs_at_the_target_lengths_and_decodes_walk_backward():
    configs = heldout4_configs()
    counted = [c for c in configs if c.ncu]
    assert len(counted) == 25
    assert {c.workload.seq_len_k for c in counted} == {65536, 131072}
    decodes = [c for c in configs if not c.ncu]
    assert decodes and all(c.schedule.kv_order == "backward" for c in decodes)


def _measured_dram(config_id: str) -> float:
    m = json.loads((DATA / "ncu.json").read_text())["by_config"][config_id]
    return m["dram_read_bytes"] + m["dram_write_bytes"]


def _trace_errors(pick) -> list[float]:
    """The K/V trace with shared aging, recomputed from the code, on the runs ``pick`` keeps."""
    prof = load_profile("h200-sxm")
    out = []
    for c in read_manifest(DATA / "manifest_configs.json"):
        if not (c.ncu and pick(c)):
            continue
        k = count("flash2", c.workload, c.schedule).to_json_dict()
        occ = occupancy(prof, k["smem_bytes_per_cta"], k["threads_per_cta"], k["regs_per_thread"])
        rates = rates_for(prof, "bf16", c.schedule.warps)
        t = kv_trace_for(c.workload, c.schedule, rates, occ.ctas_per_sm, shared_aging_h200())
        meas = _measured_dram(c.config_id)
        out.append((t.dram_read_bytes + t.dram_write_bytes - meas) / meas)
    return out


def test_set4_trace_holds_on_last_first_causal_runs():
    # the project's causal runs launched last-first at 64k and 128k (8 runs, measured
    # 2026-12-04): within 7.5 % of Nsight Compute (worst -7.5 %, 128k with 3 heads)
    errs = _trace_errors(
        lambda c: c.kernel == "project" and c.workload.causal and c.schedule.q_order == "last-first"
    )
    assert len(errs) == 8
    assert max(abs(e) for e in errs) == pytest.approx(0.075, abs=0.005)


def test_set4_trace_undercounts_the_unmasked_d128_runs():
    # the project's unmasked d128 runs without GQA (64k 12 heads, batch 2 x 4 heads, 128k 3
    # heads): 28-37 % under, the trace's known miss (waves re-read K/V more often than it has)
    errs = _trace_errors(
        lambda c: c.kernel == "project" and not c.workload.causal
        and c.workload.head_dim == 128 and c.workload.kv_heads == c.workload.heads
    )  # fmt: skip
    assert len(errs) == 3
    assert all(-0.38 < e < -0.27 for e in errs)


def test_set4_runtime_of_the_backward_split_decodes():
    # recomputed by the engine: PyTorch's split decodes within 2.1 % (its backward slices
    # now meet the L2 as aligned chunks), the project's 8-split decode +21 % (slow); since
    # held-out set 9 (DRAM reads at the read stream's bandwidth) -5.1 and -3.3 %, and +13.0 %;
    # since held-out set 12 (a load's latency under the queue) -5.9 and -4.3 %, and -3.3 %;
    # since held-out sets 21-22 (the shared-memory release: PyTorch's 64 x 128 decode tile waits
    # on ldmatrix) -8.7 and -7.0 %, and -3.3 %
    prof = load_profile("h200-sxm")
    measured = measured_s(DATA)
    got = {}
    for c in read_manifest(DATA / "manifest_configs.json"):
        if c.group == "decode":
            p, m = predict_one(c, prof)["runtime_s"], measured[c.config_id]
            got[c.config_id] = (p - m) / m
    torch = [e for k, e in got.items() if k.startswith("torch")]
    assert len(torch) == 2 and max(abs(e) for e in torch) < 0.09
    assert got["project_decode_b1h32kv32_q1k65536_c1_m64n64w4s2_sp8_bwd_lf"] == pytest.approx(
        -0.033, abs=0.01
    )
