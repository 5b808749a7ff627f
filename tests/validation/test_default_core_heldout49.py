"""Held-out set 49 (should the default profiles take the SM core model; fixed and predicted
2026-12-07, measured on an H100 the same night): its manifest is set 30's generator drawn with
seed 49 under the set's rule, its runs are new, the committed predictions are the code's, a
sample of the runs recomputed from the code on both H100 profiles against the measured times,
and the comparison and the rule's verdict recomputed."""

from __future__ import annotations

import json

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.validation import default_core_heldout49 as S
from gpusim.validation.heldout_shapes import compiled_record, configs_from_manifest
from gpusim.validation.new_shapes_heldout30 import draw, heldout30_configs
from gpusim.validation.predicted_vs_measured import compare_record
from tests.validation.heldout_sets import ROOT

DATA = ROOT / "data/h200/2026-12-07_default_core_heldout49"
REPORT = ROOT / "reports/default_core_heldout49"


def test_the_manifest_is_the_draw_under_its_rule_and_new():
    doc = json.loads((DATA / "manifest_configs.json").read_text())
    assert doc["decision_rule"] == S.RULE and S.SHAPES == draw(49) != draw(30)
    ids = [c.config_id for c in configs_from_manifest(DATA / "manifest_configs.json")]
    assert ids == [c.config_id for c in S.heldout49_configs()] and len(ids) == 24
    assert not set(ids) & {c.config_id for c in heldout30_configs()}


@pytest.mark.parametrize("profile", ["h100-sxm5", "h200-sxm-core"])
def test_committed_predictions_are_the_code_s(profile):
    doc = json.loads((REPORT / f"predictions_{profile}.json").read_text())
    assert doc["profile"] == profile
    committed = {k: v["predicted_s"] for k, v in doc["predictions"].items()}
    configs = {c.config_id: c for c in S.heldout49_configs()}
    assert set(committed) == set(configs)
    hw = load_profile(profile)
    # a Bc 32 tile, a d64 128 x 64 tile the two models split on, an FFMA run
    for cid in ("flash2_fp16_d128_n3072k2688_c0_b7h32_m128n32w4s1",
                "flash2_fp16_d64_n6272_c0_b2h14_m128n64w4s2",
                "flash2_fp32_d64_n768k512_c0_b1h48_m128n64w8s2"):  # fmt: skip
        got = compare_record(compiled_record(configs[cid]), hw).predicted_s
        assert got == pytest.approx(committed[cid], rel=1e-6), cid


MEASURED = ROOT / "data/h100/2026-12-07_default_core_heldout49"
#: (run, error on h100-sxm5, error on h100-sxm5-core), measured 2026-12-07 on an H100: the
#: default's worst (Bc 32 at d256), a tile the two split on, and an FFMA run (both pipe)
SAMPLE = (
    ("flash2_fp16_d256_n3840_c0_b4h23_m128n32w8s2", 0.239, 0.131),
    ("flash2_bf16_d128_n1792_c0_b5h33_m128n32w4s2", 0.123, -0.042),
    ("flash2_fp32_d64_n1024_c0_b1h18_m128n128w8s1", 0.205, 0.205),
)


@pytest.mark.parametrize("cid,pipe_err,core_err", SAMPLE)
def test_sampled_runs_recomputed_on_both_h100_profiles(cid, pipe_err, core_err):
    config = {c.config_id: c for c in S.heldout49_configs()}[cid]
    data = json.loads((MEASURED / "h100-dataset.json").read_text())
    measured = {r["id"]: r["median_s"] for r in data["records"]}[cid]
    for name, err in (("h100-sxm5", pipe_err), ("h100-sxm5-core", core_err)):
        got = compare_record(compiled_record(config), load_profile(name)).predicted_s
        assert got / measured - 1 == pytest.approx(err, abs=0.005), name


def test_the_comparison_and_the_rule_keeps_the_pipe_model(tmp_path, monkeypatch):
    from gpusim.validation import heldout_shapes

    monkeypatch.chdir(ROOT)  # the report names its files as the README's command does
    out = tmp_path / "compare.json"
    dataset = str((MEASURED / "h100-dataset.json").relative_to(ROOT))
    preds = [f"reports/default_core_heldout49/predictions_{p}.json" for p in S.PROFILES]
    heldout_shapes.main(["compare", "--dataset", dataset, "--predictions", *preds,
                         "--out", str(out)])  # fmt: skip
    assert out.read_text() == (REPORT / "compare.json").read_text()
    methods = json.loads(out.read_text())["methods"]
    pipe, core = (next(v for k, v in methods.items() if k.endswith(f"({n})"))
                  for n in ("h100-sxm5", "h100-sxm5-core"))  # fmt: skip
    # the rule on the lent card (an H100): the core profile beats the default's MAPE but does
    # not meet issue 19's target (its FFMA runs are the pipe model's, +14 %), so no adoption
    assert core["all"]["mape"] < pipe["all"]["mape"]
    assert core["all"]["mape"] > 0.05 and abs(core["all"]["mean_signed"]) < 0.02
    # issue 19's target on the default that stays: missed
    assert pipe["all"]["mape"] > 0.05 and pipe["all"]["mean_signed"] > 0.02
    assert core["tc"]["mape"] < pipe["tc"]["mape"]
    assert methods["roofline"]["all"]["mape"] > 5 * pipe["all"]["mape"]
    assert methods["constant_efficiency"]["all"]["mape"] > 2 * pipe["all"]["mape"]
