"""The second long-context held-out set: the K/V trace L2's DRAM bytes recomputed from the
code for the project's runs at 64k and 128k tokens, against Nsight Compute's measured bytes
(data/h200/2026-12-03_long_context_heldout2): the test fails if the model regresses."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from gpusim.api import count
from gpusim.engine.kv_trace_l2 import kv_trace_for
from gpusim.engine.rates import rates_for
from gpusim.occupancy import occupancy
from gpusim.profiles.loader import load_profile
from gpusim.validation.long_context_configs import read_manifest
from gpusim.validation.long_context_heldout2 import heldout2_configs

DATA = Path(__file__).resolve().parents[2] / "data/h200/2026-12-03_long_context_heldout2"


def test_manifest_is_the_module_set():
    got = [c.config_id for c in read_manifest(DATA / "manifest_configs.json")]
    assert got == [c.config_id for c in heldout2_configs()]


def _errors(pick) -> list[float]:
    prof = load_profile("h200-sxm")
    ncu = json.loads((DATA / "ncu.json").read_text())["by_config"]
    errs = []
    for c in read_manifest(DATA / "manifest_configs.json"):
        if not pick(c) or c.config_id not in ncu:
            continue
        k = count("flash2", c.workload, c.schedule).to_json_dict()
        occ = occupancy(prof, k["smem_bytes_per_cta"], k["threads_per_cta"], k["regs_per_thread"])
        t = kv_trace_for(c.workload, c.schedule, rates_for(prof, "bf16", 4), occ.ctas_per_sm)
        m = ncu[c.config_id]
        meas = m["dram_read_bytes"] + m["dram_write_bytes"]
        errs.append((t.dram_read_bytes + t.dram_write_bytes - meas) / meas)
    return errs


@pytest.mark.parametrize("order", [("forward", "last-first"), ("backward", "last-first")])
def test_trace_dram_at_64k_128k_lf(order):
    # The project's causal runs launched last-first at 64k and 128k: measured within 12.0 % each
    # (2026-12-03); the set's MAPE over all its runs missed the 10 % target (31.7 %).
    errs = _errors(
        lambda c: c.kernel == "project" and c.workload.causal
        and c.workload.seq_len_k in (65536, 131072)
        and (c.schedule.kv_order, c.schedule.q_order) == order
    )  # fmt: skip
    assert errs
    assert max(abs(e) for e in errs) < 0.13
    assert statistics.fmean(errs) < 0  # the model under-counts, as measured


def test_trace_dram_backward_first_first_still_undercounts():
    # The known miss: backward walks launched first-first thrash more on the H200 than the
    # trace says (-51 % to -78 % on the project's runs at 64k/128k). If the model improves,
    # this bound moves with it.
    errs = _errors(
        lambda c: c.kernel == "project" and c.workload.seq_len_k in (65536, 131072)
        and (c.schedule.kv_order, c.schedule.q_order) == ("backward", "first-first")
    )  # fmt: skip
    assert len(errs) == 3
    assert all(-0.85 < e < -0.45 for e in errs)
