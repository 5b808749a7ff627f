"""Held-out set 23: the tuner on inference workloads drawn afresh, beside held-out sets 21 and
22 that judge the shared-memory release (issue 19).

    python -m gpusim.validation.inference_tuning_heldout23 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.inference_tuning_heldout23 --list
    python -m gpusim.reporting.release_sets tuning-predict|tuning-compare ...

Set 16's kinds, ranges and candidates with another seed (:data:`SEED`), so that no workload
was picked for how the model does on it. Predicted before the run with the lent card's profile
(``h100-sxm5`` on an H100, ``h200-sxm`` on an H200) and its ``-release`` variant
(:mod:`gpusim.validation.release_variant`, the mechanism on). The rule (:data:`RULE`): issue
19's tuner target, reported for both; the release is adopted or not by sets 21 and 22.
"""

from __future__ import annotations

from gpusim.validation.inference_tuning_heldout13 import configs_for
from gpusim.validation.inference_tuning_heldout16 import draw
from gpusim.validation.long_context_configs import LongContextConfig, set_command

SEED = 23
PROFILES = ("h100-sxm5", "h100-sxm5-release", "h200-sxm", "h200-sxm-release")
RULE = (
    "reported, judging nothing by itself: on the card the device lends, its profile as at "
    "this commit (h100-sxm5 on an H100, h200-sxm on an H200) and that profile's -release "
    "variant each rank each workload's measured candidates by predicted time (the project's "
    "kernel). Per workload: Spearman's rank correlation between predicted and measured times; "
    "the first choice (least predicted time) measured over the measured best; the fixed "
    "rule's pick (the paper rule's tile snapped onto the candidates, one split) measured over "
    "the best. The set qualifies for issue 19's tuner target if the fixed rule loses at least "
    "5 % in some workload; the target is met if the first choice is within 3 % of the best in "
    "every workload and Spearman is at least 0.85 in every workload. Whether the release is "
    "adopted is held-out sets 21 and 22's rule; this set reports the target for the model "
    "that rule leaves. Nothing is tuned on this set"
)


def heldout23_configs() -> list[LongContextConfig]:
    """The set in run order: each workload's candidates."""
    return configs_for(draw(SEED))


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 23 (issue 19): the tuner on inference workloads drawn by a seeded "
        "generator, beside sets 21 and 22 (python -m gpusim.validation.inference_tuning_heldout23 "
        "--write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("inference_tuning_heldout23", doc, heldout23_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
