"""The launch caps run on the H200 (data/h200/2026-11-30_tuning_caps): the measurement's
integrity, and the models' capped-over-full ratios recomputed by the current engine.

The committed ``predictions.json`` (``python -m gpusim.tuning.caps_report``, about a minute;
reports/tuning/caps/) holds
both profiles' runtimes for all 86 launches; the README's MAPE figures are read from it.
Here the launches of the instance both models miss most are simulated again: they must
give the committed predictions (so the file is the current model's) and their ratio errors
must stay within the worst the README quotes.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import replace

import pytest

from algorithms import get_algorithm
from gpusim.data.layout import REPORTS_DIR, TUNING_CAPS
from gpusim.engine import simulate
from gpusim.kernel_catalog.compiled import compiled_footprints
from gpusim.profiles import load_profile
from gpusim.profiles.loader import canonical_profile_name
from gpusim.schedule import Schedule
from gpusim.workload import Workload

RUN = TUNING_CAPS
PREDICTIONS = REPORTS_DIR / "tuning" / "caps" / "predictions.json"
PROFILES = ("h200-sxm", "h200-sxm-core")
#: Simulated again: the instance with both profiles' worst ratio (d64 64x32 w4 s3 at one CTA
#: per SM instead of five; five launches).
SAMPLE = ("tc_bf16_d64_m64_n32_w4_s3",)
#: The README's figures per profile: MAPE and worst ratio error over the 52 capped launches,
#: at the precision it quotes them (7.0 %, -27.1 %; 5.1 %, +14.9 % since held-out sets 21-22's
#: shared-memory release; 7.3 %, -31.0 %; 5.1 %, +14.9 % since held-out set 12;
#: 7.2 %, -30.9 %; 5.2 %, +16.3 % since held-out set 9; 5.1 %, +15.0 % after set 8; 7.5 %,
#: -30.7 % and 5.5 %, +17.5 % before it; 7.4 % and -30.8 % for h200-sxm before the
#: stream-load clock, held-out set 7).
README = {"h200-sxm": (0.0705, 0.2715), "h200-sxm-core": (0.0515, 0.1495)}


@pytest.fixture(scope="module")
def measured():
    return json.loads((RUN / "h200_caps.json").read_text())


@pytest.fixture(scope="module")
def predicted():
    doc = json.loads(PREDICTIONS.read_text())
    for r in doc["rows"]:  # recorded under the profiles' former names
        r["predicted_s"] = {canonical_profile_name(k): v for k, v in r["predicted_s"].items()}
    return doc


def _predict(w: Workload, s: Schedule, key: str, ctas: int, profile) -> float:
    """The engine's runtime of one launch at the instance's compiled registers and ``ctas``
    CTAs per SM (what python -m gpusim.tuning.caps_report predicts)."""
    comp = compiled_footprints(profile.compute_capability)[key]
    (kernel,) = get_algorithm("flash2").kernels(w, s)
    chip = replace(kernel.on_chip(), regs_per_thread=comp.registers, max_ctas_per_sm=ctas)
    r = simulate("flash2", w, s, profile, detail="aggregated", on_chip={kernel.name: chip})
    assert r.ctas_per_sm == ctas, key
    return r.runtime_s


@pytest.fixture(scope="module")
def recomputed(measured):
    """The sample's launches in order: {"instance", "ctas_per_sm", "measured_s", "predicted_s"}."""
    profiles = {p: load_profile(p) for p in PROFILES}
    rows = []
    for e in measured["workloads"]:
        w = Workload(**e["workload"])
        for inst in e["instances"]:
            if inst["instance"] not in SAMPLE:
                continue
            s = Schedule.from_record(inst["schedule"])
            for ln in inst["launches"]:
                c = ln["ctas_per_sm"]
                pred = {
                    p: _predict(w, s, inst["instance"], c, prof) for p, prof in profiles.items()
                }
                rows.append({"instance": inst["instance"], "ctas_per_sm": c,
                             "measured_s": ln["median_s"], "predicted_s": pred})  # fmt: skip
    assert {r["instance"] for r in rows} == set(SAMPLE)
    return rows


def test_every_launch_ran_as_intended(measured):
    launches = [
        (i, ln) for e in measured["workloads"] for i in e["instances"] for ln in i["launches"]
    ]
    assert len(launches) == 86
    for inst, ln in launches:
        assert ln["output_equals_full_launch"], inst["instance"]
        assert len(ln["times_s"]) == measured["repeats"] == 20
    for e in measured["workloads"]:
        for inst in e["instances"]:
            counts = [ln["ctas_per_sm"] for ln in inst["launches"]]
            assert counts == list(range(counts[0], 0, -1)) and counts[0] >= 2


def _ratio_errors(rows: list[dict], profile: str) -> list[float]:
    by_inst: dict[str, list[dict]] = {}
    for r in rows:
        by_inst.setdefault(r["instance"], []).append(r)
    errs = []
    for rs in by_inst.values():
        full = rs[0]
        for r in rs[1:]:
            m = r["measured_s"] / full["measured_s"]
            p = r["predicted_s"][profile] / full["predicted_s"][profile]
            errs.append(p / m - 1)
    return errs


def test_the_committed_predictions_are_the_current_models(measured, predicted, recomputed):
    """The file the README's figures come from: of the recorded launches, and for the sample
    what the engine gives now (a model change without ``cap_report.py`` run again fails)."""
    times = [ln["median_s"] for e in measured["workloads"] for i in e["instances"]
             for ln in i["launches"]]  # fmt: skip
    assert [r["measured_s"] for r in predicted["rows"]] == times
    committed = {(r["instance"], r["ctas_per_sm"]): r["predicted_s"] for r in predicted["rows"]}
    for r in recomputed:
        want = committed[(r["instance"], r["ctas_per_sm"])]
        assert r["predicted_s"] == pytest.approx(want, rel=1e-9), r


@pytest.mark.parametrize("profile", PROFILES)
def test_capped_over_full_ratios(predicted, recomputed, profile):
    mape, worst = README[profile]
    sample = _ratio_errors(recomputed, profile)
    assert len(sample) == 4
    assert max(abs(e) for e in sample) <= worst
    assert max(abs(e) for e in sample) > 0.1  # the sample holds a launch the models miss
    errs = _ratio_errors(predicted["rows"], profile)
    assert len(errs) == 52
    assert statistics.mean(abs(e) for e in errs) <= mape
    assert max(abs(e) for e in errs) <= worst
