"""Held-out set 19: its committed manifest is the module's set under its rule, every config has
a compiled instance, no workload is in an earlier set, the candidate profile is the core
profile with only cta_phase's field added; and the measured verdicts recomputed from the code."""

from __future__ import annotations

import json

import pytest

from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.kernel_catalog.instances import instance_for
from gpusim.profiles.loader import load_profile
from gpusim.validation.configs import sweep_configs
from gpusim.validation.heldout_shapes import configs_from_manifest, heldout_configs, predict
from gpusim.validation.new_shapes_heldout14 import heldout14_configs
from gpusim.validation.new_shapes_heldout19 import RULE, heldout19_configs, main, variant_profile
from tests.validation.heldout_sets import H200, LONG_CONTEXT_SETS
from tests.validation.test_new_shapes_heldout14 import _key, configs_from_long_context

MANIFEST = H200 / "2026-12-05_new_shapes_heldout19/manifest_configs.json"


def test_the_manifest_is_the_module_set_under_its_rule():
    committed = configs_from_manifest(MANIFEST)
    assert [c.config_id for c in committed] == [c.config_id for c in heldout19_configs()]
    assert json.loads(MANIFEST.read_text())["decision_rule"] == RULE


def test_every_config_has_a_compiled_instance_and_a_new_workload():
    compiled = compiled_footprints("9.0")
    configs = heldout19_configs()
    assert all(instance_for(c.workload, c.schedule).key in compiled for c in configs)
    seen = {_key(c.workload) for c in heldout_configs() + sweep_configs() + heldout14_configs()}
    for name in LONG_CONTEXT_SETS:
        seen |= {_key(c.workload) for c in configs_from_long_context(name)}
    assert not seen & {_key(c.workload) for c in configs}


def test_the_candidate_differs_from_the_core_profile_only_in_the_phases():
    core, variant = load_profile("h200-sxm-core"), variant_profile()
    a, b = core.model_dump(), variant.model_dump()
    assert b["sass_core_cycles"]["value"].pop("co_resident_phases") == 1
    a.pop("sass_core_cycles"), b.pop("sass_core_cycles"), b.pop("name"), a.pop("name")
    assert a == b


def test_the_manifest_is_written_once(capsys):
    assert main(["manifest", "--out", str(MANIFEST)]) == 2
    assert "write-once" in capsys.readouterr().err


def _measured() -> dict[str, float]:
    data = json.loads((MANIFEST.parent / "h200-dataset.json").read_text())
    return {r["id"]: r["median_s"] for r in data["records"] if r["status"] == "ok"}


#: the default's three worst runs (the small-tile bias) and its two fast ones of note
DEFAULT_SAMPLE = {
    "flash2_bf16_d256_n2304_c0_b4h10_m64n32w4s2": 0.223,
    "flash2_bf16_d128_n5120_c1_b2h24_m128n32w4s2": 0.128,
    "flash2_bf16_d128_n3072_c0_b3h28_m64n32w4s2": 0.125,
    "flash2_bf16_d64_n1664_c1_b16h12_m64n128w4s2": -0.123,
    "flash2_bf16_d128_n8192k2048_c0_b1h48_m128n64w8s2": -0.100,
}


def test_the_default_recomputed_misses_issue_19s_target():
    """README: h200-sxm 6.68 % MAPE over the 21 runs (mean +1.64 %): the target (5 %, +-2 %)
    missed on MAPE. Recomputed here on five runs (the suite's time): its worst, +22.3 % (d256
    64 x 32), and the others past 10 %."""
    from gpusim.engine.smem_release import following

    measured = _measured()
    configs = [c for c in heldout19_configs() if c.config_id in DEFAULT_SAMPLE]
    with following(False):  # the engine as the set judged it (sets 21-22 adopted the release)
        pred = predict("h200-sxm", configs)["predictions"]
    for k, err in DEFAULT_SAMPLE.items():
        assert pred[k]["predicted_s"] / measured[k] - 1 == pytest.approx(err, abs=0.0006)
    assert len(measured) == 21


#: one run at each of 2 and 3 CTAs per SM, and the 1-CTA control
SAMPLE = (
    "flash2_bf16_d128_n3840_c1_b4h20_m128n64w4s2",
    "flash2_fp16_d64_n4864_c0_b4h24_m128n32w4s3",
    "flash2_fp16_d128_n1280_c0_b8h16_m128n128w8s2",
)


def test_the_candidate_recomputed_is_slower_than_the_core_model_and_loses():
    """README: the lockstep replay predicts the multi-CTA runs 3-16 % slower than the core
    model of record (here +1.2 against -5.8 %, +10.5 against +1.3 %), the one-CTA run the same
    (-6.8 %); over the 18 mma.sync runs 5.31 % against 3.98 % MAPE: it stays out."""
    measured = _measured()
    configs = [c for c in heldout19_configs() if c.config_id in SAMPLE]
    core = predict("h200-sxm-core", configs)["predictions"]
    lock = predict("h200-sxm-core-lockstep", configs, profile=variant_profile())["predictions"]
    e = {k: (core[k]["predicted_s"] / measured[k] - 1, lock[k]["predicted_s"] / measured[k] - 1)
         for k in SAMPLE}  # fmt: skip
    assert e[SAMPLE[0]][0] == pytest.approx(-0.058, abs=0.001)
    assert e[SAMPLE[0]][1] == pytest.approx(0.012, abs=0.001)
    assert e[SAMPLE[1]][0] == pytest.approx(0.013, abs=0.001)
    assert e[SAMPLE[1]][1] == pytest.approx(0.105, abs=0.001)
    assert e[SAMPLE[2]][0] == e[SAMPLE[2]][1] == pytest.approx(-0.068, abs=0.001)
    assert "co_resident_phases" not in load_profile("h200-sxm-core").sass_core_cycles.value
