"""Held-out set 29 (the SM core model on the lent card): its predictions with each card's
pipe-model profile and its core-model refinement, and their
comparison with the measured runs under the set's rule
(:mod:`gpusim.validation.inference_tuning_heldout29`).

    python -m gpusim.reporting.core_set predict --out reports/core_heldout29/predictions.json
    python -m gpusim.reporting.core_set compare --measured DIR \
        --out reports/core_heldout29/compare.json
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpusim.reporting.profile_sets import (
    main_for,
    no_worse,
    predict_all,
    tuner_report,
)
from gpusim.validation.inference_tuning_heldout29 import PROFILES, heldout29_configs

PREDICTIONS = Path("reports/core_heldout29/predictions.json")
CORE = "-core"
#: the rule's margins: MAPE at least this much lower, the mean signed error no further from 0
MAPE_GAIN, SIGNED_SLACK = 0.01, 0.01


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES`."""
    return predict_all(configs, PROFILES, "gpusim.inference_tuning_heldout29.predictions")


def decide(pipe: dict[str, Any], core: dict[str, Any]) -> bool:
    """The set's rule on two profiles' runtime summaries and tuner verdicts."""
    return no_worse(pipe, core, MAPE_GAIN, SIGNED_SLACK)


def compare(measured_dir: Path, predictions: dict[str, Any], configs=None) -> dict[str, Any]:
    """Per profile: the tuner's rankings and verdict, the runtime errors and worst runs; the
    roofline and the constant-efficiency baseline on the same runs; the rule's decision on
    the lent card's profiles."""
    configs = heldout29_configs() if configs is None else configs
    out = tuner_report(configs, measured_dir, predictions)
    judged = out["judged_profile"]
    pipe, core = out["profiles"][judged], out["profiles"][judged + CORE]
    out["decision"] = {"core_recommended": decide(pipe, core), "pipe": judged,
                       "core": judged + CORE}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Predict or compare the set; a bad input is one line and exit 2."""
    return main_for(argv, "core_set", __doc__.splitlines()[0], PREDICTIONS,
                    lambda: predict(heldout29_configs()), compare)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
