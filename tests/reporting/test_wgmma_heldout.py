"""Issue 20's held-out sets: fixed before measuring, and the model recomputed against them."""

from __future__ import annotations

import json

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.kernels.paper_bench import SEQ_LENS, paper_workload
from gpusim.profiles.loader import load_profile
from gpusim.reporting import wgmma_heldout as H
from gpusim.reporting.wgmma_sets import (
    FIXED_RULE,
    PROFILE,
    SETS,
    make_workload,
    manifest,
    workload_id,
)

SET1, SET2, SET3 = SETS["heldout"], SETS["heldout2"], SETS["heldout3"]


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


def _score(s, variant: str) -> dict:
    """The set scored with the variant's predictions recomputed from the code."""
    return H.compare(_measured(s), H.predict(s, variant), s)


def _shipped(s) -> str:
    """The variant that is the profile as shipped (the one that drops no field)."""
    return next(v for v, dropped in s.variants.items() if not dropped)


def _assert_within_bounds(s, res: dict) -> None:
    err = res["errors"]
    mape, bias, misses, worst_pick = BOUNDS[s.name]
    assert res["runs"] >= 25
    assert err["model_s"]["mape"] < mape
    assert abs(err["model_s"]["mean_signed"]) < bias
    # the model has to beat the roofline on these runs to earn its complexity
    assert err["model_s"]["mape"] < err["roofline_s"]["mape"]
    picks = [t["first_choice_over_best"] for t in res["tune"]]
    assert sum(p > 0.03 for p in picks) <= misses, res["tune"]
    assert max(picks) <= worst_pick, res["tune"]


def test_the_model_recomputed_on_held_out_set_1():
    """Recomputes every prediction of the shipped profile from the code and scores it against
    the measured runs. Bounds are what was measured when each set came back
    (reports/kernels/wgmma/heldout*), with a little room; the issue's own targets (5 % MAPE,
    Spearman 0.85, first choice within 3 % everywhere) are reported there, not asserted, where
    the model misses them."""
    _assert_within_bounds(SET1, _score(SET1, _shipped(SET1)))


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
    """Set 2 as set 1, and its rule: its manifest said, before it ran, keep the burst clock if
    its MAPE there is lower than the sustained clock's. The shipped variant is recomputed on
    every run, the sustained one on the rule's sample (:func:`_rule_sample`); the profile
    must be on the side the rule picks there."""
    full = H.predict(SET2, _shipped(SET2))
    _assert_within_bounds(SET2, H.compare(_measured(SET2), full, SET2))
    burst, sustained = _rule_holds(SET2, full, "sustained")
    has_burst = load_profile(PROFILE).sm_clock_wgmma_burst_hz is not None
    assert has_burst == (burst < sustained), (burst, sustained)


def test_the_model_recomputed_on_held_out_set_3_and_its_rule():
    """Set 3 as set 2, for its own rule: keep the fragment stores' cost (the profile's
    fragment_store_bytes_per_clk_per_sm, the wgmma class's o_store = fragments) if the
    stores variant's MAPE is lower than the no_stores variant's. The shipped variant is
    recomputed on every run, the other on the rule's sample (:func:`_rule_sample`)."""
    full = H.predict(SET3, "stores")
    _assert_within_bounds(SET3, H.compare(_measured(SET3), full, SET3))
    stores, without = _rule_holds(SET3, full, "no_stores")
    kept = load_profile(PROFILE).fragment_store_bytes_per_clk_per_sm is not None
    assert kept == (stores < without), (stores, without)
    from gpusim.kernel_class import resolve_class
    from gpusim.schedule import Schedule

    wgmma = Schedule(block_m=128, block_n=128, warps=8, mma="wgmma", tile_copy="tma")
    assert resolve_class(wgmma, "bf16").o_store == ("fragments" if kept else "staged")


#: (MAPE, |mean signed|, workloads whose first choice is > 3 % off, worst first choice).
#: Set 1 came back at 8.7 % / +4.8 % / 0 / 0.8 % (sustained clock; 7.8 % / -3.9 % with the
#: burst clock, seen); set 2 at 10.1 % / -6.9 % / 1 / 10.0 % (burst clock); set 3 at 7.25 % /
#: -3.0 % / 0 / 1.6 % (with the fragment stores it judged). With the fragment stores (seen
#: for sets 1 and 2) set 1 recomputes to 7.0 % / +1.0 % / 0 / 0.8 % and set 2 to 7.7 % /
#: -1.4 % / 2 / 10.0 % (fp16 d128 full B1 H40 N9216 joins bf16 d64 causal above 3 %). Since
#: held-out set 12 (a load's latency under the memory system's queue, judged on mma.sync
#: runs) set 3 recomputes to 7.96 % / -4.2 % / 0 / 1.8 %: the wgmma model, already fast,
#: gains the TMA loads' latency. The issue asks 5 % / 2 % / 0.
BOUNDS = {
    "heldout": (0.10, 0.065, 0, 0.03),
    "heldout2": (0.085, 0.03, 2, 0.105),
    "heldout3": (0.08, 0.045, 0, 0.02),
}
