"""Held-out set 34 (the tuner's whole candidate list, :mod:`gpusim.validation.tuner_heldout34`):
its predictions on the H100's pipe and core profiles, and their comparison with the measured
runs under issue 19's tuner and runtime targets.

    python -m gpusim.reporting.tuner_set34 predict --out reports/tuner_heldout34/predictions.json
    python -m gpusim.reporting.tuner_set34 compare --measured DIR \
        --out reports/tuner_heldout34/compare.json
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpusim.reporting.profile_sets import (
    baselines,
    main_for,
    measured_times,
    predict_on,
    tuner_summary,
)
from gpusim.reporting.release_sets import lent_card
from gpusim.validation.tuner_heldout34 import PROFILES, heldout34_configs

PREDICTIONS = Path("reports/tuner_heldout34/predictions.json")
#: issue 19's new-shapes runtime target: MAPE at most this, the mean signed error within +-
MAPE_TARGET, SIGNED_TARGET = 0.05, 0.02


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES` (one process per core)."""
    from gpusim.source_commit import git_commit

    by = predict_on(configs, {n: n for n in PROFILES})
    return {"kind": "gpusim.tuner_heldout34.predictions", "model_commit": git_commit(),
            "profiles": list(PROFILES), "by_config": by}  # fmt: skip


def targets(summary: dict[str, Any]) -> dict[str, bool]:
    """Issue 19's two targets this set judges, on one profile's :func:`tuner_summary`."""
    rt = summary["runtime"]
    runtime = rt["mape"] <= MAPE_TARGET and abs(rt["mean_signed"]) <= SIGNED_TARGET
    return {"tuner": summary["verdict"]["target_met"], "runtime": runtime}


def compare(measured_dir: Path, predictions: dict[str, Any], configs=None) -> dict[str, Any]:
    """Per profile: the tuner's rankings and verdict, the runtime errors and worst runs, the
    targets met; the roofline and the constant-efficiency baseline on the same runs."""
    from gpusim.validation import long_context_sweep

    configs = heldout34_configs() if configs is None else configs
    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    gpu, judged = lent_card(measured_dir)
    out: dict[str, Any] = {"gpu": gpu, "judged_profile": judged, "measured": str(measured_dir),
                           "profiles": {}}  # fmt: skip
    for name in predictions["profiles"]:
        summary = tuner_summary(configs, measured, predictions, name)
        out["profiles"][name] = summary | {"targets": targets(summary)}
    return out | baselines(configs, measured_times(measured), judged)


def main(argv: list[str] | None = None) -> int:
    """``predict`` or ``compare``; a bad input is one line and exit 2."""
    return main_for(argv, "tuner_set34", __doc__.splitlines()[0], PREDICTIONS,
                    lambda: predict(heldout34_configs()), compare)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
