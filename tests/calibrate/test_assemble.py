"""A card's profile assembled from one calibration call's files (gpusim.calibrate.assemble)."""

from __future__ import annotations

import shutil

import pytest
import yaml

from gpusim.calibrate import assemble
from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError
from gpusim.profiles.loader import load_profile

FOLDER = REPO_ROOT / "data" / "h100" / "2026-12-05_calibration"
COMMITTED = REPO_ROOT / "hardware_profiles" / "h100-sxm5-measured.yaml"
STEP_ONE = REPO_ROOT / "data/h100/2026-12-06_wgmma_step_one/wgmma-step-one.json"
STEP_STREAM = REPO_ROOT / "data/h100/2026-12-06_calibration_step_stream/step-stream-h100.json"
#: the records of later calls on the H100: one warpgroup's step (wgmma decode set 3), the
#: tile stream (held-out set 25), the grouped products (held-out set 41)
GROUP_PRODUCTS = (
    REPO_ROOT / "data/h100/2026-12-07_calibration_group_products" / "group-products-h100.json"
)
LATER = {"wgmma_step_one": STEP_ONE, "step_stream": STEP_STREAM, "group_products": GROUP_PRODUCTS}


def test_the_committed_h100_profile_is_what_its_calibration_gives():
    text = assemble.assemble(
        FOLDER / "suite", FOLDER / "records", "h100-sxm5", "h100-sxm5-measured", LATER
    )
    assert yaml.safe_load(text) == yaml.safe_load(COMMITTED.read_text())


def test_every_measured_number_is_the_h100s_own():
    p = load_profile("h100-sxm5-measured")
    for name in type(p).model_fields:
        q = getattr(p, name)
        source = getattr(q, "source", "")
        # what no microbenchmark measures stays a cited fact of the architecture
        assert "measured on NVIDIA H200" not in source or "not measured on" in source, name
    assert p.l2_bandwidth_bytes_per_s.value == pytest.approx(7.91e12, rel=0.01)
    assert "H100" in p.wgmma_softmax_cycles_per_instr_2_warpgroups.source


def test_a_missing_record_is_an_error_naming_it(tmp_path):
    shutil.copytree(FOLDER, tmp_path / "cal")
    (tmp_path / "cal" / "records" / "ws" / "wgmma-step.json").unlink()
    with pytest.raises(GpusimError, match=r"wgmma-step\.json"):
        assemble.assemble(
            tmp_path / "cal" / "suite", tmp_path / "cal" / "records", "h100-sxm5", "x", LATER
        )
    code = assemble.main([str(tmp_path / "cal"), "--base", "h100-sxm5", "--name", "x",
                          "--out", str(tmp_path / "x.yaml")])  # fmt: skip
    assert code == 2 and not (tmp_path / "x.yaml").exists()
