"""Held-out set 50 (the tuner's whole candidate list, :mod:`gpusim.validation.tuner_heldout50`):
its predictions on both cards' pipe and core profiles, and their comparison with the measured
runs under issue 19's tuner and runtime targets.

    python -m gpusim.reporting.tuner_set50 predict --out reports/tuner_heldout50/predictions.json
    python -m gpusim.reporting.tuner_set50 compare --measured DIR \
        --out reports/tuner_heldout50/compare.json
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpusim.reporting import tuner_set34
from gpusim.reporting.profile_sets import main_for, predict_on
from gpusim.validation.tuner_heldout50 import PROFILES, heldout50_configs

PREDICTIONS = Path("reports/tuner_heldout50/predictions.json")


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES` (one process per core)."""
    from gpusim.source_commit import git_commit

    by = predict_on(configs, {n: n for n in PROFILES})
    return {"kind": "gpusim.tuner_heldout50.predictions", "model_commit": git_commit(),
            "profiles": list(PROFILES), "by_config": by}  # fmt: skip


def compare(measured_dir: Path, predictions: dict[str, Any], configs=None) -> dict[str, Any]:
    """Set 34's comparison (rankings, verdicts, runtime errors, targets, baselines on the lent
    card's profile) of this set's runs."""
    return tuner_set34.compare(measured_dir, predictions,
                               heldout50_configs() if configs is None else configs)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """``predict`` or ``compare``; a bad input is one line and exit 2."""
    return main_for(argv, "tuner_set50", __doc__.splitlines()[0], PREDICTIONS,
                    lambda: predict(heldout50_configs()), compare)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
