"""mate_gap's reading of a cta_scatter record: on the H200's step loop the CTA launched first on
each SM ends first on all 132 SMs, about 2 % sooner; the products-only loop has no such order."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
import yaml

from gpusim.calibrate.mate_gap import FIELD, apply, family, first_wave, ratios, table
from tests.validation.heldout_sets import ROOT

RECORD = ROOT / "data/h200/2026-11-30_calibration_cta_scatter/cta-scatter-h200.json"


def test_the_h200_step_loops_older_mates_end_first():
    doc = json.loads(RECORD.read_text())
    slots = doc["sm_count"] * doc["ctas_per_sm"]
    by = {(la["loop"], la["repeat"]): first_wave(la, slots) for la in doc["launches"]}
    step = by[("step_l2", 0)]
    assert step["sms"] == 132 and step["older_first"] == 132
    assert step["younger_us"] / step["older_us"] == pytest.approx(1.019, abs=0.003)
    products = by[("products", 0)]
    assert 30 < products["older_first"] < 100  # no order: about half
    assert "step_l2 | 0 | 132 | 132" in table(doc)


def _launch(loop: str, per: int, older_us: float, younger_us: float, sms: int = 4) -> dict:
    """A first wave of ``sms`` SMs, two CTAs each, the older (launched first) ending first."""
    smid = list(range(sms)) * 2
    end = [older_us * 1e3] * sms + [younger_us * 1e3] * sms
    return {"loop": loop, "mma_per_ld": per, "repeat": 0, "smid": smid,
            "start_ns": [0] * (2 * sms), "end_ns": end}  # fmt: skip


def test_ratios_by_warp_tile_mean_over_sizes_and_the_profile_entry():
    launches = [_launch("rows16", 2, 100, 101), _launch("rows16_big", 2, 200, 204),
                _launch("rows32", 4, 100, 110), _launch("rows32_big", 4, 200, 224)]  # fmt: skip
    doc = {"gpu": "GPU", "date": "2026-12-06", "sm_count": 4, "ctas_per_sm": 2,
           "launches": launches}  # fmt: skip
    assert ratios(doc) == {"2": [[16.0, 1.015], [32.0, 1.11]]}
    text = "name: x\nsm_mate_priority:\n  value: 1\nother: 2\n"
    out = yaml.safe_load(apply(text, doc, "rec.json"))
    assert list(out) == ["name", "sm_mate_priority", FIELD, "other"]
    assert out[FIELD]["value"] == {"2": [[16.0, 1.015], [32.0, 1.11]]}
    assert "measured on GPU" in out[FIELD]["source"]


def test_the_older_cta_scatter_record_has_no_warp_tile_loops():
    with pytest.raises(ValueError, match="no mate_gap loops"):
        ratios(json.loads(RECORD.read_text()))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("name", ["cta_scatter.cu", "mate_step.cu", "mate_wide.cu"])
def test_the_loops_compile_for_sm90_without_spills(name, tmp_path):
    from gpusim.calibrate.sources import COMPILE_OPTIONS, INCLUDE_OPTIONS, KERNEL_DIR

    cmd = ["nvcc", "-arch=sm_90", "-cubin", *COMPILE_OPTIONS, *INCLUDE_OPTIONS, "-Xptxas", "-v",
           "-o", str(tmp_path / "k.cubin"), str(KERNEL_DIR / name)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert not re.search(r"[1-9]\d* bytes spill", proc.stderr), proc.stderr


def test_the_wide_loops_give_no_profile_field():
    doc = {"sm_count": 4, "ctas_per_sm": 2, "launches": [_launch("floats64_x4", 4, 100, 112)]}
    assert family(doc) == "mate_wide"
    with pytest.raises(ValueError, match="score floats"):
        ratios(doc)
