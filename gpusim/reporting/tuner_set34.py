"""Held-out set 34 (the tuner's whole candidate list, :mod:`gpusim.validation.tuner_heldout34`):
its predictions on the H100's pipe and core profiles, and their comparison with the measured
runs under issue 19's tuner and runtime targets.

    python -m gpusim.reporting.tuner_set34 predict --out reports/tuner_heldout34/predictions.json
    python -m gpusim.reporting.tuner_set34 predict-partial \
        --out reports/tuner_heldout34/predictions_partial.json
    python -m gpusim.reporting.tuner_set34 compare --measured DIR \
        --out reports/tuner_heldout34/compare.json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusim.reporting.profile_sets import (
    main_for,
    merged,
    predict_on,
    tuner_report,
)
from gpusim.validation.tuner_heldout34 import PROFILES, heldout34_configs

PREDICTIONS = Path("reports/tuner_heldout34/predictions.json")
#: a candidate predicted after the set was fixed and before it was measured (stop 56): the
#: judged profile with the step_size record's partial CTA-grouping table. Reported beside the
#: set's profiles; it adopts nothing (held-out set 35 judges the mechanism).
PARTIAL_PREDICTIONS = Path("reports/tuner_heldout34/predictions_partial.json")
JUDGED = "h100-sxm5"
#: issue 19's new-shapes runtime target: MAPE at most this, the mean signed error within +-
MAPE_TARGET, SIGNED_TARGET = 0.05, 0.02


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES` (one process per core)."""
    from gpusim.source_commit import git_commit

    by = predict_on(configs, {n: n for n in PROFILES})
    return {"kind": "gpusim.tuner_heldout34.predictions", "model_commit": git_commit(),
            "profiles": list(PROFILES), "by_config": by}  # fmt: skip


def predict_partial(configs) -> dict[str, Any]:
    """Every config on :data:`JUDGED` with the step_size record's partial grouping table
    (:func:`gpusim.reporting.grouping_set35.partial_profile`)."""
    from gpusim.profiles.loader import load_profile
    from gpusim.reporting.grouping_set35 import partial_profile
    from gpusim.source_commit import git_commit

    profile = partial_profile(load_profile(JUDGED))
    by = predict_on(configs, {profile.name: profile})
    return {"kind": "gpusim.tuner_heldout34.predictions", "model_commit": git_commit(),
            "profiles": [profile.name], "by_config": by}  # fmt: skip


def targets(summary: dict[str, Any]) -> dict[str, bool]:
    """Issue 19's two targets this set judges, on one profile's :func:`tuner_summary`."""
    rt = summary["runtime"]
    runtime = rt["mape"] <= MAPE_TARGET and abs(rt["mean_signed"]) <= SIGNED_TARGET
    return {"tuner": summary["verdict"]["target_met"], "runtime": runtime}


def compare(
    measured_dir: Path, predictions: dict[str, Any], configs=None, extra: tuple = ()
) -> dict[str, Any]:
    """Per profile: the tuner's rankings and verdict, the runtime errors and worst runs, the
    targets met; the roofline and the constant-efficiency baseline on the same runs. ``extra``:
    further predictions files' contents (the partial-table candidate), reported beside."""
    from gpusim.reporting.grouping_set35 import PARTIAL

    configs = heldout34_configs() if configs is None else configs
    if extra:
        predictions = merged(configs, [predictions, *extra])
    out = tuner_report(configs, measured_dir, predictions, lambda name: name.removesuffix(PARTIAL))
    for summary in out["profiles"].values():
        summary["targets"] = targets(summary)
    return out


def _compare_with_partial(measured_dir: Path, predictions: dict[str, Any]) -> dict[str, Any]:
    """:func:`compare`, with the partial-table candidate beside where it was predicted."""
    extra = (json.loads(PARTIAL_PREDICTIONS.read_text()),) if PARTIAL_PREDICTIONS.exists() else ()
    return compare(measured_dir, predictions, extra=extra)


def main(argv: list[str] | None = None) -> int:
    """``predict``, ``predict-partial`` or ``compare``; a bad input is one line and exit 2."""
    return main_for(argv, "tuner_set34", __doc__.splitlines()[0], PREDICTIONS,
                    lambda: predict(heldout34_configs()), _compare_with_partial,
                    {"predict-partial": lambda: predict_partial(heldout34_configs())})  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
