"""The stamps look (a diagnostic of seen runs): the K/V trace replayed on an H100's own CTA
starts and ends of a long-context run recomputed from the committed stamps, against the
trace of record on the same run and Nsight Compute's DRAM bytes."""

from __future__ import annotations

import json

import pytest

from gpusim.reporting.stamps_kv_look import rows
from tests.validation.heldout_sets import ROOT

STAMPS = ROOT / "data/h100/2026-12-07_cta_stamps_long_context/stamps-set7.json"


def test_the_trace_on_the_gpus_own_cta_timing_closes_the_dram_miss(tmp_path):
    # set 7's B2 H1 128k-token run alone (the file's other run is set 7's B4 H2 64k)
    doc = json.loads(STAMPS.read_text())
    doc["configs"] = [c for c in doc["configs"] if c["id"].startswith("project_prefill_b2h1kv1")]
    one = tmp_path / "stamps.json"
    one.write_text(json.dumps(doc))
    (r,) = rows([one], "h100")
    # measured 2026-12-07 (look_h100.md): the record -37.3 %, the stamps -0.5 %; SM-mates
    # start 0.43 of a life apart with about equal lives
    assert r["record_err"] == pytest.approx(-0.373, abs=0.01)
    assert r["stamped_err"] == pytest.approx(-0.005, abs=0.01)
    assert r["mate_offset"] == pytest.approx(0.43, abs=0.02)


def test_sm_mates_start_in_step_and_drift_apart_a_tenth_of_a_life_a_generation():
    import numpy as np

    from gpusim.reporting.stamps_kv_look import pairs_by_generation

    st = next(c for c in json.loads(STAMPS.read_text())["configs"]
              if c["id"].startswith("project_prefill_b2h1kv1"))  # fmt: skip
    arrays = (np.array(st[k], float) for k in ("smid", "start_ns", "end_ns"))
    pairs = {k: (off, ratio) for k, _, off, ratio in pairs_by_generation(*arrays)}
    # the first wave's mates start together; the one that ends later lives 1.13 x longer
    assert pairs[0][0] == pytest.approx(0.0, abs=0.01)
    assert pairs[0][1] == pytest.approx(1.13, abs=0.01)
    # its successor starts 0.89 of a life after it; the offsets close in on a half
    offsets = [pairs[k][0] for k in range(8)]
    assert offsets[1::2] == pytest.approx([0.89, 0.80, 0.73, 0.67], abs=0.01)
    assert offsets[2::2] == pytest.approx([0.13, 0.22, 0.29], abs=0.01)
