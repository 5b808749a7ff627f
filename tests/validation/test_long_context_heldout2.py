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
