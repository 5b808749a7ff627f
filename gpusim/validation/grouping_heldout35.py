"""Held-out set 35: the step efficiency by CTA grouping (gpusim/engine/cta_grouping.py), judged
on the tuner's whole candidate list for six prefills drawn afresh.

    python -m gpusim.validation.grouping_heldout35 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.grouping_heldout35 --list
    python -m gpusim.reporting.grouping_set35 predict|compare ...

Why. The pipe model's step efficiency depends on the warps per scheduler alone, each value the
mean of one many-warp CTA and several 4-warp CTAs, where the step_size record of an H100
(data/h100/2026-12-06_calibration_step_size, no attention code) has one 8-warp CTA 4-19 %
slower than two 4-warp CTAs at the same warps a scheduler; on sets 29-33 the 8-warp tiles run
slower than the model says (128 x 64 w8 -5..-10 %) and the 4-warp 64 x 64 and Bc 32 ones
faster. The mechanism takes its table from ``python -m gpusim.calibrate.step_grouping``, run on
an H100 after this set is fixed. The set is held-out set 34's generator (tuner_heldout34)
with seed 35: six prefills, every schedule ``gpusim tune`` ranks for each (122 runs).
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import LongContextConfig, set_command
from gpusim.validation.tuner_heldout34 import PROFILES, configs_for

SEED = 35
__all__ = ["PROFILES", "RULE", "heldout35_configs"]
RULE = (
    "on an H100, h100-sxm5 and h100-sxm5-core as at this commit, and h100-sxm5 with the field "
    "step_efficiency_by_cta_warps from the H100's cta_grouping record (its predictions "
    "committed after that record and before the set is measured), predict every measured run. "
    "The field is adopted into h100-sxm5 if, over the set's measured runs, with it h100-sxm5's "
    "runtime MAPE is at least 0.5 point lower, its mean signed error no further from zero by "
    "more than 1 point, and on issue 19's tuner target (per workload: first choice within 3 % "
    "of the measured best; Spearman between predicted and measured times >= 0.85, over the "
    "tuner's whole candidate list) it is no worse on either count. Reported beside a roofline "
    "and a constant-efficiency baseline on the same runs and the fixed rule's pick. Nothing is "
    "tuned on this set; if no H100 is lent, the set waits"
)


def heldout35_configs() -> list[LongContextConfig]:
    """The set in run order: each workload's feasible schedules, in the tuner's order."""
    return configs_for(SEED)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 35 (issue 19): the step efficiency by CTA grouping, on the tuner's whole "
        "candidate list for six prefills (python -m gpusim.validation.grouping_heldout35 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("grouping_heldout35", doc, heldout35_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
