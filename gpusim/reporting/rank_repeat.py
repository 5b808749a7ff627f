"""How well one measurement of a tuner set predicts another of the same runs: the ceiling any
model's ranking meets under issue 19's tuner target.

    python -m gpusim.reporting.rank_repeat --set 34 --first DIR --second DIR --out FILE.json

Issue 19's tuner target asks, in every workload of a held-out set, a first choice within 3 % of
the measured best and a Spearman correlation of at least 0.85 between predicted and measured
times. Where a workload's candidates lie within the GPU's run-to-run scatter, a second
measurement of the same runs is itself a "prediction" that can miss; this module scores it with
the very code that scores the models (:func:`gpusim.reporting.inference_tuning.rankings` and
``verdict``): the second measurement ranked against the first, and the first against the
second, beside the run-to-run MAPE. It also scores each committed profile's predictions
against the second measurement and against the mean of both.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation import long_context_sweep
from gpusim.validation.grouping_heldout35 import heldout35_configs
from gpusim.validation.tuner_heldout34 import heldout34_configs

#: held-out tuner sets: (their configs, their committed predictions)
SETS = {
    "34": (heldout34_configs, "reports/tuner_heldout34/predictions.json"),
    "35": (heldout35_configs, "reports/grouping_heldout35/predictions.json"),
}
#: the profile whose SRAM picks the fixed rule's tile in :func:`rankings`
BASE = "h100-sxm5"


def as_predictions(measured: dict[str, dict]) -> dict[str, Any]:
    """A measurement in the predictions' form, under :data:`BASE`'s name."""
    return {"by_config": {i: {BASE: {"runtime_s": r["median_s"]}} for i, r in measured.items()
                          if r.get("status") == "ok"}}  # fmt: skip


def mean_of(a: dict[str, dict], b: dict[str, dict]) -> dict[str, dict]:
    """The runs both measured ok, at the mean of their two medians."""
    out = {}
    for i, r in a.items():
        s = b.get(i)
        if r.get("status") == "ok" and s and s.get("status") == "ok":
            out[i] = {**r, "median_s": (r["median_s"] + s["median_s"]) / 2}
    return out


def score(configs, measured: dict, predictions: dict, profile: str) -> dict[str, Any]:
    from gpusim.reporting.inference_tuning import rankings, verdict

    ranked = rankings(configs, measured, predictions, profile)
    return {"verdict": verdict(ranked),
            "spearman": {w["workload"]: w["spearman"] for w in ranked},
            "first_choice_over_best": {w["workload"]: w["first_choice_over_best"]
                                       for w in ranked}}  # fmt: skip


def compare(set_name: str, first: Path, second: Path) -> dict[str, Any]:
    configs_of, preds_path = SETS[set_name]
    configs = configs_of()
    m1 = {r["id"]: r for r in long_context_sweep.records(first)}
    m2 = {r["id"]: r for r in long_context_sweep.records(second)}
    both = [i for i in m1 if m1[i].get("status") == "ok" and m2.get(i, {}).get("status") == "ok"]
    if not both:
        raise GpusimError(f"no run measured ok in both {first} and {second}")
    diffs = [m2[i]["median_s"] / m1[i]["median_s"] - 1 for i in both]
    preds = json.loads(Path(preds_path).read_text())
    out: dict[str, Any] = {
        "set": set_name, "first": str(first), "second": str(second), "runs_both_ok": len(both),
        "repeat": {"mape": statistics.fmean(map(abs, diffs)),
                   "mean_signed": statistics.fmean(diffs), "max_abs": max(map(abs, diffs))},
        "second_ranks_first": score(configs, m1, as_predictions(m2), BASE),
        "first_ranks_second": score(configs, m2, as_predictions(m1), BASE),
        "profiles": {},
    }  # fmt: skip
    mean = mean_of(m1, m2)
    for name in preds["profiles"]:
        by = {"by_config": {i: {BASE: row[name]} for i, row in preds["by_config"].items()}}
        out["profiles"][name] = {"against_second": score(configs, m2, by, BASE),
                                 "against_mean": score(configs, mean, by, BASE)}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True, choices=sorted(SETS))
    ap.add_argument("--first", type=Path, required=True)
    ap.add_argument("--second", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        doc = compare(a.set, a.first, a.second)
    except GpusimError as exc:
        print(f"rank_repeat: error: {exc}", file=sys.stderr)
        return 2
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    r = doc["repeat"]
    print(f"set {a.set}: {doc['runs_both_ok']} runs, repeat MAPE {100 * r['mape']:.2f} % "
          f"(mean {100 * r['mean_signed']:+.2f} %, worst {100 * r['max_abs']:.1f} %)")  # fmt: skip
    for what in ("second_ranks_first", "first_ranks_second"):
        print(f"  {what}: {doc[what]['verdict']}")
    for name, p in doc["profiles"].items():
        for what, s in p.items():
            print(f"  {name} {what}: {s['verdict']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
