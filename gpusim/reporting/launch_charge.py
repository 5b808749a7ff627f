"""The launch-charge held-out sets' tables: each model's errors by kernel and by kernel count,
and the decision of the rule fixed before the measurement.

    python -m gpusim.reporting.launch_charge    # reads the committed predictions and measurement

The aggregate table with the baselines is ``python -m gpusim.reporting.long_context compare``
(reports/long_context/launch/compare.txt); this one adds the split of one-kernel and
two-kernel runs and the rule's verdict. The test (tests/validation/test_launch_set.py) feeds
it predictions recomputed from the code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gpusim.data.layout import REPO_ROOT
from gpusim.reporting.pack_gqa import error_stats, measured_s


@dataclass(frozen=True)
class LaunchSet:
    """One launch-charge set: its measurement, its committed predictions and its two models
    (the profile as it was, and the variant the rule judged)."""

    data: Path
    predictions: Path
    variant: str  # the variant profile's path as the predictions name it
    label: str  # what the variant charges, for tables

    @property
    def models(self) -> tuple[str, str]:
        return (ISOLATED, self.variant)


ISOLATED = "h200-sxm"
#: Set 1: every kernel charged the CUDA-graph dispatch rate (kept: the isolated charge won).
SET1 = LaunchSet(
    REPO_ROOT / "data/h200/2026-12-04_launch_set",
    REPO_ROOT / "reports/long_context/launch/predictions.json",
    "reports/long_context/launch/h200-sxm-queued-launch.yaml",
    "queued",
)
#: Set 2: a run's later kernels charged the measured queued launch (adopted: it won).
SET2 = LaunchSet(
    REPO_ROOT / "data/h200/2026-12-04_launch_set2",
    REPO_ROOT / "reports/long_context/launch2/predictions.json",
    "reports/long_context/launch2/h200-sxm-queued-second.yaml",
    "queued second",
)


def committed_predictions(ls: LaunchSet) -> dict[str, dict[str, dict]]:
    """``{model: {config id: {runtime_s, kernels}}}`` as committed before the measurement."""
    doc = json.loads(ls.predictions.read_text())
    return {
        m: {k: {"runtime_s": v[m]["runtime_s"], "kernels": v[m]["kernels"]}
            for k, v in doc["by_config"].items()}
        for m in ls.models
    }  # fmt: skip


def errors(predicted: dict[str, dict], measured: dict[str, float]) -> dict[str, dict]:
    """One model's runtime errors: all runs, by kernel, and by the number of kernels a run
    launches (1, or 2 with split keys)."""
    err = {k: (p["runtime_s"] / measured[k] - 1, len(p["kernels"]))
           for k, p in predicted.items() if k in measured}  # fmt: skip
    groups = {
        "all": [e for e, _ in err.values()],
        "project": [e for k, (e, _) in err.items() if k.startswith("project")],
        "torch": [e for k, (e, _) in err.items() if k.startswith("torch")],
        "one kernel": [e for e, n in err.values() if n == 1],
        "two kernels": [e for e, n in err.values() if n == 2],
    }
    return {name: error_stats(errs) for name, errs in groups.items() if errs}


def verdict(ls: LaunchSet, by_model: dict[str, dict[str, dict]]) -> str:
    """The set's rule: the variant replaces the charge it was judged against iff its MAPE
    over every run is lower."""
    iso, var = by_model[ISOLATED]["all"]["mape"], by_model[ls.variant]["all"]["mape"]
    won = f"{ls.label} launch" if var < iso else "isolated launch (kept)"
    return f"MAPE over all runs: isolated {iso:.1%}, {ls.label} {var:.1%}: {won}"


def main() -> int:
    """Print both sets' tables and verdicts from the committed predictions and measurement."""
    for n, ls in ((1, SET1), (2, SET2)):
        meas = measured_s(ls.data)
        by_model = {m: errors(p, meas) for m, p in committed_predictions(ls).items()}
        print(f"set {n}: {ls.data.relative_to(REPO_ROOT)}")
        print(f"{'model':16} {'runs':12} {'n':>3} {'MAPE':>7} {'mean':>7} {'worst':>7}")
        for m, groups in by_model.items():
            name = "isolated" if m == ISOLATED else ls.label
            for g, s in groups.items():
                print(f"{name:16} {g:12} {s['n']:3d} {s['mape']:7.1%} {s['mean_signed']:+7.1%} "
                      f"{s['worst']:+7.1%}")  # fmt: skip
        print(verdict(ls, by_model) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
