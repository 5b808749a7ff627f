"""Issue 20's held-out sets: fixed before measuring, and the model recomputed against them."""

from __future__ import annotations

import json

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.kernels.paper_bench import SEQ_LENS, paper_workload
from gpusim.profiles.loader import load_profile
from gpusim.reporting import wgmma_heldout as H
from gpusim.reporting.wgmma_set_kind import (
    FIXED_RULE,
    PROFILE,
    make_workload,
    manifest,
    workload_id,
)
from gpusim.reporting.wgmma_sets import SETS

SET1, SET2, SET3, SET4 = (SETS[k] for k in ("heldout", "heldout2", "heldout3", "heldout4"))


def _measured(s):
    path = REPO_ROOT / s.measured
    if not path.is_file():
        pytest.skip(f"held-out set {s.name} not measured yet")
    return json.loads(path.read_text())


@pytest.mark.parametrize("s", SETS.values(), ids=list(SETS))
def test_the_committed_manifest_is_the_set_the_code_defines(s):
    committed = json.loads((REPO_ROOT / s.manifest_path).read_text())
    assert committed == manifest(s)


def test_no_held_out_workload_is_a_paper_sweep_point_or_in_two_sets():
    paper = [
        paper_workload(n, d, c, dt).model_dump()
        for n in SEQ_LENS
        for d in (64, 128, 256)
        for c in (False, True)
        for dt in ("bf16", "fp16")
    ]
    ids = [workload_id(w) for s in SETS.values() for w in s.workloads]
    assert len(ids) == len(set(ids))
    for s in SETS.values():
        for w in s.workloads:
            assert make_workload(w).model_dump() not in paper, w


@pytest.mark.parametrize("s", SETS.values(), ids=list(SETS))
def test_the_measurement_is_of_the_committed_manifest(s):
    measured = _measured(s)
    assert measured["manifest_sha256"] == manifest(s)["configs_sha256"]
    rows = measured["rows"]
    assert {f"{r['workload']}:{r['instance']}" for r in rows} == {
        c["id"] for c in manifest(s)["configs"]
    }
    ok = [r for r in rows if "median_s" in r]
    assert ok and all(r["nan_count"] == 0 for r in ok)


def test_a_variant_drops_only_the_fields_it_names():
    burst = H.variant_profile(SET2, "burst")
    sustained = H.variant_profile(SET2, "sustained")
    assert sustained.sm_clock_wgmma_burst_hz is None
    assert burst == load_profile(PROFILE)
    assert sustained.model_dump(exclude={"sm_clock_wgmma_burst_hz"}) == burst.model_dump(
        exclude={"sm_clock_wgmma_burst_hz"}
    )
    with pytest.raises(ValueError, match="no variant"):
        H.variant_profile(SET2, "nope")


def _score_sample(s) -> dict:
    """The set's rule sample (:func:`_rule_sample`) scored with the committed profile's
    predictions recomputed from the code."""
    sampled = _rule_sample(s)
    pred = {
        "profile": PROFILE,
        "predictions": H.simulate_set(s, "shipped", load_profile(PROFILE), sampled),
    }
    measured = _measured(s)
    rows = [
        r for r in measured["rows"] if f"{r['workload']}:{r['instance']}" in pred["predictions"]
    ]
    return H.compare({**measured, "rows": rows}, pred, s)


def _shipped(s) -> str:
    """The variant that is the profile as shipped (the one that drops no field)."""
    return next(v for v, dropped in s.variants.items() if not dropped)


def _assert_within_bounds(s, res: dict) -> None:
    err = res["errors"]
    mape, bias, misses, worst_pick = BOUNDS[s.name]
    assert res["runs"] >= 20
    assert err["model_s"]["mape"] < mape
    assert abs(err["model_s"]["mean_signed"]) < bias
    # the model has to beat the roofline on these runs to earn its complexity
    assert err["model_s"]["mape"] < err["roofline_s"]["mape"]
    picks = [t["first_choice_over_best"] for t in res["tune"]]
    assert sum(p > 0.03 for p in picks) <= misses, res["tune"]
    assert max(picks) <= worst_pick, res["tune"]


def test_the_model_recomputed_on_held_out_set_1():
    """Recomputes the shipped profile's predictions of the set's rule sample (every
    non-causal run, each causal workload's fixed-rule instance) from the code and scores them
    against the measured runs. Bounds are what the sample gives (:data:`BOUNDS`), with a little
    room; the issue's own targets (5 % MAPE,
    Spearman 0.85, first choice within 3 % everywhere) are reported there, not asserted, where
    the model misses them."""
    _assert_within_bounds(SET1, _score_sample(SET1))


def _rule_sample(s):
    """The runs on which a set's second variant is recomputed (the suite's time): every run
    of the non-causal workloads (a few ms each) and the fixed rule's instance of each causal
    one (a causal grid's CTAs run one by one, about a second each)."""
    causal = {workload_id(w) for w in s.workloads if w[2]}
    rule = {d: f"m{m}_n{n}_s{st}_c{c}" for d, (m, n, st, c) in FIXED_RULE.items()}

    def sampled(key: str) -> bool:
        workload, inst = key.split(":")
        return workload not in causal or inst.endswith(rule[int(inst.split("_")[2][1:])])

    return sampled


def _rule_holds(s, shipped_full: dict, other: str) -> tuple[float, float]:
    """MAPE of the shipped and the other variant on the rule's sample, both from the code."""
    sampled = _rule_sample(s)
    measured = {f"{r['workload']}:{r['instance']}": r["median_s"] for r in _measured(s)["rows"]}
    shipped = {k: v for k, v in shipped_full["predictions"].items() if sampled(k)}
    without = H.predict(s, other, only=sampled)["predictions"]
    assert len(without) >= 15 and set(without) == set(shipped)

    def mape(p):
        return sum(abs(p[k]["runtime_s"] / measured[k] - 1) for k in p) / len(p)

    return mape(shipped), mape(without)


def test_the_model_recomputed_on_held_out_set_2_and_its_rule():
    """Set 2's rule: its manifest said, before it ran, keep the burst clock if its MAPE there
    is lower than the sustained clock's. Both variants are recomputed on the rule's sample
    (:func:`_rule_sample`); the profile must be on the side the rule picks there."""
    # both variants on the rule's sample only (the suite's time; set 4 keeps a whole set)
    sample = H.predict(SET2, _shipped(SET2), only=_rule_sample(SET2))
    burst, sustained = _rule_holds(SET2, sample, "sustained")
    has_burst = load_profile(PROFILE).sm_clock_wgmma_burst_hz is not None
    assert has_burst == (burst < sustained), (burst, sustained)


def test_the_model_recomputed_on_held_out_set_3_and_its_rule():
    """Set 3's rule: keep the fragment stores' cost (the profile's
    fragment_store_bytes_per_clk_per_sm, the wgmma class's o_store = fragments) if the
    stores variant's MAPE is lower than the no_stores variant's, both recomputed on the
    rule's sample (:func:`_rule_sample`)."""
    sample = H.predict(SET3, "stores", only=_rule_sample(SET3))
    stores, without = _rule_holds(SET3, sample, "no_stores")
    kept = load_profile(PROFILE).fragment_store_bytes_per_clk_per_sm is not None
    assert kept == (stores < without), (stores, without)
    from gpusim.kernel_class import resolve_class
    from gpusim.schedule import Schedule

    wgmma = Schedule(block_m=128, block_n=128, warps=8, mma="wgmma", tile_copy="tma")
    assert resolve_class(wgmma, "bf16").o_store == ("fragments" if kept else "staged")


def test_the_model_recomputed_on_held_out_set_4_and_its_rule():
    """Set 4's rule: of model, pingpong_fill and pingpong_step, the one with the lowest MAPE
    gives the profile its ping-pong softmax cost (``wgmma_softmax_cycles_per_instr_*``,
    fitted to wgmma_step's rows of that family), or none if model wins. It chose the fill
    rows; sets 7 and 10 have since replaced the values (the three-stage ring's, then the
    overlap rows'). Recomputed: the shipped profile on the rule sample, within its bounds, and the
    rule's fill rows against the model as it stood on the rule's sample
    (:func:`_rule_sample`): the fill rows win."""
    profile = load_profile(PROFILE)
    _assert_within_bounds(SET4, _score_sample(SET4))
    # the rule against the model as it stood (pingpong_step, 8.64 % against fill's 3.96 %
    # when measured, is left out for the suite's time)
    fill = H.predict(SET4, "pingpong_fill", only=_rule_sample(SET4))
    mapes = dict(zip(("pingpong_fill", "model"), _rule_holds(SET4, fill, "model"), strict=True))
    assert min(mapes, key=mapes.get) == "pingpong_fill", mapes
    # the fields now: the overlap rows' (set 10), below the fill rows' fit set 4 chose
    fitted = _pingpong_fits()["fill"]
    assert profile.wgmma_softmax_cycles_per_instr_2_warpgroups.value < round(fitted[2], 4)
    assert profile.wgmma_softmax_cycles_per_instr_3_warpgroups.value < round(fitted[3], 4)


def _pingpong_fits() -> dict[str, dict[int, float]]:
    """``{family: {warpgroups: c}}`` fitted to the wgmma_step record set 4's variants use."""
    from gpusim.calibrate import wgmma_pingpong
    from gpusim.reporting.wgmma_set_kind import PINGPONG_RECORD

    doc = json.loads((REPO_ROOT / PINGPONG_RECORD / "wgmma-step-h200.json").read_text())
    return {family: wgmma_pingpong.fitted(doc, family) for family in ("fill", "step")}


#: (MAPE, |mean signed|, workloads whose first choice is > 3 % off, worst first choice) of the
#: sets recomputed whole (sets 2 and 3 are recomputed on their rules' samples only).
#: Set 1 came back at 8.7 % / +4.8 % / 0 / 0.8 % (sustained clock; 7.8 % / -3.9 % with the
#: burst clock, seen); set 2 at 10.1 % / -6.9 % / 1 / 10.0 % (burst clock); set 3 at 7.25 % /
#: -3.0 % / 0 / 1.6 % (with the fragment stores it judged); set 4 at 3.96 % / +1.4 % / 0 /
#: 2.6 % (with the ping-pong softmax cost of wgmma_step's fill rows it judged). Before set 4
#: (its model variant) sets 1-3 recomputed to 6.7 % / +0.1 % / 0 / 0.8 %, 7.5 % / -2.1 % / 2 /
#: 10.0 % and 7.96 % / -4.2 % / 0 / 1.8 %. With the ping-pong cost (seen for sets 1-3) they
#: recompute to 4.98 % / +4.2 % / 4 / 9.8 %, 5.0 % / +1.7 % / 2 / 8.7 % and 4.1 % / -0.8 % /
#: 3 / 5.5 %: runtimes improve, the first choices do not (d64 picks two warpgroups where
#: three are faster; the three-warpgroup cost, fitted to one row, runs slow). With the masked
#: steps' extra instructions at the ping-pong rate (adopted by held-out set 6's rule, seen
#: here) sets 1-4 recompute to 5.24 % / +4.7 % / 2 / 9.8 %, 4.76 % / +2.7 % / 2 / 8.75 %,
#: 3.46 % / +0.6 % / 1 / 3.4 % and 3.80 % / +2.6 % / 0 / 2.6 %. With the overlap rows' fields
#: (adopted by held-out set 10's rule, seen here) sets 1 and 4 recompute to 2.75 % / -1.0 % /
#: 2 / 9.8 % and 3.43 % / -2.7 % / 0 / 2.6 %; the suite recomputes their rule samples (the
#: non-causal runs and each causal workload's fixed-rule instance: 22 and 20 runs), 2.61 % /
#: -0.66 % / 2 / 9.8 % and 3.03 % / -1.93 % / 0 / 2.6 %. The issue asks 5 % / 2 % / 0.
BOUNDS = {
    "heldout": (0.035, 0.015, 2, 0.105),
    "heldout4": (0.04, 0.03, 0, 0.03),
}


SET5 = SETS["heldout5"]
#: Set 5's runs recomputed in the suite (its time): the two d64 workloads (the three-
#: warpgroup instance, worst at +17.5 %, and the two first choices the model misses or wins),
#: the d256 causal one (-11.4 %) and the short d128 one whose first choice is 5.8 % off.
SET5_SAMPLE = (
    "bf16_d64_full_b4h32n3840",
    "fp16_d64_causal_b6h24n2304",
    "fp16_d256_causal_b3h12n2560",
    "fp16_d128_full_b16h12n1024",
)


def test_the_model_recomputed_on_held_out_set_5_sample():
    """Set 5 came back on an H200 (so h200-sxm is judged): 4.33 % MAPE, mean +2.06 %, worst
    +17.5 % (d64, three warpgroups); first choice > 3 % off in 3 of 8 workloads, mean
    Spearman 0.44. Recomputed from the code on the sample's 14 runs: their MAPE, and the
    first choices (the model beats FlashAttention-3's fixed tile at bf16 d64, 2.5 % against
    14.2 % off, and loses 10.4 % against its 10.2 % at fp16 d64 causal)."""
    measured = _measured(SET5)
    only = {w for w in SET5_SAMPLE}
    pred = H.predict(SET5, "h200-sxm", only=lambda key: key.split(":")[0] in only)
    measured = {**measured, "rows": [r for r in measured["rows"] if r["workload"] in only]}
    res = H.compare(measured, pred, SET5)
    assert res["runs"] == 14
    assert res["errors"]["model_s"]["mape"] < 0.06  # 5.18 % on the sample when measured
    assert res["errors"]["model_s"]["mape"] < res["errors"]["roofline_s"]["mape"] / 5
    picks = {t["workload"]: t for t in res["tune"]}
    assert picks["bf16_d64_full_b4h32n3840"]["first_choice_over_best"] < 0.03
    assert picks["bf16_d64_full_b4h32n3840"]["fixed_rule_over_best"] > 0.1
    assert picks["fp16_d64_causal_b6h24n2304"]["first_choice_over_best"] > 0.05
    assert picks["fp16_d256_causal_b3h12n2560"]["spearman"] == 1.0


#: The two ping-pong fields as held-out sets 7-9 judged against (the fill rows' two-warpgroup
#: c, the three-stage ring's three-warpgroup one); set 10 adopted the overlap rows' since.
AS_SETS_7_TO_9 = {"2": 4.6006, "3": 6.7104}


def _h100_as_then():
    """``h100-sxm5`` as wgmma sets 6-10 judged it: its L2 bandwidth the H200's, as derived
    before decode set 2 scaled it by the L2 sizes, and no one-warpgroup step (decode set 3's):
    their predictions were made with that."""
    hw = load_profile("h100-sxm5")
    l2 = load_profile("h200-sxm").l2_bandwidth_bytes_per_s
    one = "wgmma_softmax_cycles_per_instr_1_warpgroups"  # decode set 3's, since
    return hw.model_copy(update={"l2_bandwidth_bytes_per_s": l2, one: None})


def _with_c(hw, two: float | None = None, three: float | None = None):
    """``hw`` with its two ping-pong fields' values replaced where given."""
    update = {}
    for g, value in (("2", two), ("3", three)):
        if value is not None:
            field = getattr(hw, f"wgmma_softmax_cycles_per_instr_{g}_warpgroups")
            update[f"wgmma_softmax_cycles_per_instr_{g}_warpgroups"] = field.model_copy(
                update={"value": value}
            )
    return hw.model_copy(update=update)


def _predicted(s, hw, only: set[str]) -> dict:
    """A prediction file's shape for ``hw`` on the workloads ``only`` names."""
    picked = H.simulate_set(s, hw.name, hw, lambda k: k.split(":")[0] in only)
    return {"profile": hw.name, "predictions": picked}


SET6 = SETS["heldout6"]
#: Set 6's runs recomputed in the suite: the d128 causal workload whose first choice the rule
#: it judged changes (n176 -> n128).
SET6_SAMPLE = ("bf16_d128_causal_b4h16n3584",)


def test_held_out_set_6_came_back_on_an_h100_and_its_rule_adopted_the_masked_step_rule():
    """Set 6 (fixed and predicted before the call) came back on an H100, so h100-sxm5 and its
    candidate are judged: Spearman 0.46 -> 0.50, first choices > 3 % off 2 -> 1, MAPE 5.09 ->
    5.34 %: the rule adopts the candidate (on by default in the engine). Recomputed from the
    code on the sample: with the profile's fields as set 6 had them, the engine now gives the
    candidate's committed predictions, which pick n128 where the old model's n176 was 4.4 %
    off."""
    from gpusim.engine.wgmma_rates import LONE_STREAM_ISSUE

    measured = _measured(SET6)
    assert "H100" in json.dumps(measured["provenance"])
    assert LONE_STREAM_ISSUE.get() is True
    only = set(SET6_SAMPLE)
    then = _with_c(_h100_as_then(), two=4.6006, three=7.3001)  # before sets 7, 10
    pred = _predicted(SET6, then, only)
    committed = json.loads(SET6.predictions_path("h100-sxm5_lone_stream").read_text())
    for key, p in pred["predictions"].items():
        assert p["runtime_s"] == pytest.approx(committed["predictions"][key]["runtime_s"], rel=1e-9)
    rows = [r for r in measured["rows"] if r["workload"] in only]
    res = H.compare({**measured, "rows": rows}, pred, SET6)
    picks = {t["workload"]: t for t in res["tune"]}
    assert picks["bf16_d128_causal_b4h16n3584"]["first_choice"].endswith("m128_n128_s2_c2")
    assert picks["bf16_d128_causal_b4h16n3584"]["first_choice_over_best"] < 0.01
    assert res["errors"]["model_s"]["mape"] < 0.05


def test_set_7s_record_variants_set_only_the_fields_they_name():
    """ring3 takes the three-warpgroup field from the H100 record's three-stage ring rows and
    nothing else; ring3_by_n adds the two-warpgroup field and the per-tile table."""
    s = SETS["heldout7"]
    base = load_profile("h100-sxm5")
    ring = H.variant_profile(s, "h100-sxm5_ring3")
    by_n = H.variant_profile(s, "h100-sxm5_ring3_by_n")
    three = "wgmma_softmax_cycles_per_instr_3_warpgroups"
    assert ring.model_dump(exclude={three}) == base.model_dump(exclude={three})
    assert getattr(ring, three).value == 6.7104  # the H100 record's Bc 96 ring row
    assert base.wgmma_softmax_cycles_per_instr_by_block_n is None
    assert by_n.wgmma_softmax_cycles_per_instr_by_block_n.value["2/128"] == [(176, 3.9276)]
    assert getattr(by_n, three) == getattr(ring, three)


SET7 = SETS["heldout7"]
#: Set 7's runs recomputed in the suite (its time): two of its three d64 workloads, where the
#: three-warpgroup field it judged acts (the long causal one is left out).
SET7_SAMPLE = ("bf16_d64_full_b2h48n5120", "bf16_d64_causal_b10h16n1536")


def test_held_out_set_7_came_back_on_an_h100_and_its_rule_adopted_the_ring_rows():
    """Set 7 (reports/kernels/wgmma/heldout7) on an H100: h100-sxm5 5.62 % MAPE, mean
    +3.80 %, Spearman 0.36; with the three-warpgroup c from the three-stage ring rows 4.90 %,
    +3.08 %, 0.61, the same one first choice 8.6 % off: adopted (set 10 has since replaced
    it with the overlap row's). Recomputed from the code on the d64 runs: the ring's c
    against the one it replaced (7.3001, wg_step_fill's two-stage row), both scored against
    the measured runs."""
    measured = _measured(SET7)
    assert "H100" in json.dumps(measured["provenance"])
    only = set(SET7_SAMPLE)
    measured = {**measured, "rows": [r for r in measured["rows"] if r["workload"] in only]}
    hw = _h100_as_then()
    ring = _with_c(hw, two=AS_SETS_7_TO_9["2"], three=AS_SETS_7_TO_9["3"])
    before = _with_c(ring, three=7.3001)
    now = H.compare(measured, _predicted(SET7, ring, only), SET7)
    then = H.compare(measured, _predicted(SET7, before, only), SET7)
    assert now["runs"] == then["runs"] == 6
    assert now["errors"]["model_s"]["mape"] < then["errors"]["model_s"]["mape"] - 0.02
    spearman = [sum(t["spearman"] for t in r["tune"]) for r in (now, then)]
    assert spearman[0] > spearman[1]
    three = hw.wgmma_softmax_cycles_per_instr_3_warpgroups
    assert three.value < AS_SETS_7_TO_9["3"] and "H100" in three.source  # set 10's


SET8 = SETS["heldout8"]
#: Set 8's non-causal runs recomputed in the suite (a few ms each): d64, d128 and d256.
SET8_SAMPLE = (
    "fp16_d64_full_b3h28n4096",
    "bf16_d128_full_b2h28n5376",
    "fp16_d256_full_b4h10n2304",
)


def test_held_out_set_8_came_back_on_an_h100_and_its_rule_kept_the_model():
    """Set 8 (reports/kernels/wgmma/heldout8) on an H100: h100-sxm5 4.52 % MAPE, mean +3.26 %,
    Spearman 0.51; _overlap 3.65 %, -1.87 %, 0.51; _overlap_tiles 6.64 %, 0.58, one more
    first choice off. The rule (Spearman first) kept the model then (set 10 adopted the
    overlap fields since). Recomputed from the code on the non-causal runs: the model as set
    8 had it against the overlap variant, the closer one there."""
    measured = _measured(SET8)
    assert "H100" in json.dumps(measured["provenance"])
    only = set(SET8_SAMPLE)
    measured = {**measured, "rows": [r for r in measured["rows"] if r["workload"] in only]}
    then = _with_c(_h100_as_then(), AS_SETS_7_TO_9["2"], AS_SETS_7_TO_9["3"])
    res = {
        "model": H.compare(measured, _predicted(SET8, then, only), SET8),
        "overlap": H.compare(
            measured,
            _predicted(SET8, _h100_as_then(), only),  # the overlap fields: shipped since set 10
            SET8,
        ),
    }
    model, overlap = (res[v]["errors"]["model_s"] for v in ("model", "overlap"))
    assert res["model"]["runs"] == 11
    assert model["mape"] < 0.07 and overlap["mape"] < model["mape"] - 0.02
    assert abs(overlap["mean_signed"]) < abs(model["mean_signed"])


SET9 = SETS["heldout9"]
#: Set 9's workloads recomputed in the suite: the d64 one whose first choice the model
#: missed, and the d128 one whose ranking the overlap fields made worse.
SET9_SAMPLE = ("bf16_d64_full_b5h24n2560", "fp16_d128_full_b6h20n2048")


def test_held_out_set_9_came_back_on_an_h100_and_its_rule_kept_the_model():
    """Set 9 (reports/kernels/wgmma/heldout9) on an H100: h100-sxm5 5.27 % MAPE, mean
    +3.82 %, Spearman 0.49, 2 first choices off; _overlap 3.26 %, -1.36 %, 0.45, 3 off. The
    rule asked for all four to improve: the model stayed then (set 10 adopted the overlap
    fields since). Recomputed from the code on two workloads, the model as set 9 had it:
    the overlap fields are closer in runtime and no better in ranking."""
    measured = _measured(SET9)
    assert "H100" in json.dumps(measured["provenance"])
    only = set(SET9_SAMPLE)
    measured = {**measured, "rows": [r for r in measured["rows"] if r["workload"] in only]}
    then = _with_c(_h100_as_then(), AS_SETS_7_TO_9["2"], AS_SETS_7_TO_9["3"])
    overlap_pred = _predicted(SET9, _h100_as_then(), only)  # the overlap fields, shipped since
    res = {
        "model": H.compare(measured, _predicted(SET9, then, only), SET9),
        "overlap": H.compare(measured, overlap_pred, SET9),
    }
    model, overlap = (res[v]["errors"]["model_s"] for v in ("model", "overlap"))
    assert res["model"]["runs"] == 8
    assert model["mean_signed"] > 0.03 and abs(overlap["mean_signed"]) < model["mean_signed"]
    assert overlap["mape"] < model["mape"]
    tune = {v: {t["workload"]: t for t in res[v]["tune"]} for v in res}
    d128 = "fp16_d128_full_b6h20n2048"
    assert tune["model"][d128]["first_choice_over_best"] < 0.03
    assert tune["overlap"][d128]["first_choice_over_best"] > 0.03
    assert tune["overlap"][d128]["spearman"] < tune["model"][d128]["spearman"]
    # the d64 miss is both variants' (n128 picked, three warpgroups measured best)
    assert tune["model"]["bf16_d64_full_b5h24n2560"]["first_choice_over_best"] > 0.08


SET10 = SETS["heldout10"]
#: Set 10's workloads recomputed in the suite: a d64 one (both variants miss its first
#: choice) and the non-causal d128 and d256 ones.
SET10_SAMPLE = (
    "fp16_d64_full_b4h20n3328",
    "bf16_d128_full_b3h20n3840",
    "fp16_d256_full_b3h12n4352",
)


def test_held_out_set_10_came_back_on_an_h100_and_its_rule_adopted_the_overlap_fields():
    """Set 10 (reports/kernels/wgmma/heldout10) on an H100, judged by issue 20's four targets:
    h100-sxm5 as it stood met one (MAPE 4.90 %; mean +3.86 %, Spearman 0.31, 2 first
    choices off), _overlap two (3.26 %, -1.32 %; 0.25, the same 2 off): adopted. Recomputed
    from the code: the shipped profile is the overlap variant, the committed predictions of
    _overlap are what it gives, and on the sample it is closer and less biased than the
    model it replaced."""
    measured = _measured(SET10)
    assert "H100" in json.dumps(measured["provenance"])
    hw = _h100_as_then()
    assert hw.wgmma_softmax_cycles_per_instr_2_warpgroups.value == 4.2064
    assert hw.wgmma_softmax_cycles_per_instr_3_warpgroups.value == 6.2151
    only = set(SET10_SAMPLE)
    shipped = _predicted(SET10, hw, only)
    committed = json.loads(SET10.predictions_path("h100-sxm5_overlap").read_text())
    for key, p in shipped["predictions"].items():
        assert p["runtime_s"] == pytest.approx(committed["predictions"][key]["runtime_s"], rel=1e-9)
    measured = {**measured, "rows": [r for r in measured["rows"] if r["workload"] in only]}
    then = _with_c(hw, AS_SETS_7_TO_9["2"], AS_SETS_7_TO_9["3"])
    now, before = (
        H.compare(measured, shipped, SET10),
        H.compare(measured, _predicted(SET10, then, only), SET10),
    )
    assert now["runs"] == 11
    assert now["errors"]["model_s"]["mape"] < before["errors"]["model_s"]["mape"]
    assert (
        abs(now["errors"]["model_s"]["mean_signed"])
        < 0.02
        < before["errors"]["model_s"]["mean_signed"]
    )
