"""Held-out set 28: the tile stream's latency, scoped to what step_stream measured, judged on
split-KV decoding and its tuner drawn afresh (set 16's generator, another seed).

    python -m gpusim.validation.inference_tuning_heldout28 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.inference_tuning_heldout28 --list
    python -m gpusim.reporting.stream_set predict28|compare28 ...

The law (:mod:`gpusim.engine.stream_latency`) was adopted by set 25 on these kinds, withdrawn
by set 26 (it had been applied to kernels step_stream never timed: the split-KV combine and
one-stage K/V loops), and, scoped to cp.async kernels of two or more stages, not adopted by
set 27, whose draw was all grouped heads: there the L2 serves most tiles, the law's queue
term is small, and the set could not tell the two apart (7.14 -> 7.12 % against a 7 % bar).
This set asks the scoped law again where it acts, on set 25's kinds (mostly one K/V head per
query head), with :data:`SEED`; nothing in the model has changed since set 27. The rule:
:data:`RULE`, fixed with the set before any prediction or measurement.
"""

from __future__ import annotations

from gpusim.validation.inference_tuning_heldout13 import configs_for
from gpusim.validation.inference_tuning_heldout16 import draw
from gpusim.validation.long_context_configs import LongContextConfig, set_command

SEED = 28
RULE = (
    "on the card the device lends, its profile as at this commit (h100-sxm5 on an H100, "
    "h200-sxm on an H200) predicts every measured run with the tile stream's latency "
    "(gpusim.engine.stream_latency, scoped to cp.async kernels of 2 or more stages) off and "
    "on. The law is adopted (STREAM on by default) if with it the runtime MAPE over the set's "
    "measured runs is at most 7 % and lower than without it (held-out sets 26-27's bar), and "
    "the mean signed error is no further from zero by more than 1 point (set 25's). Reported "
    "both ways: issue 19's tuner target per workload (Spearman between predicted and measured "
    "times >= 0.85, the first choice within 3 % of the measured best, the fixed rule's pick "
    "over the best; the set qualifies if the fixed rule loses at least 5 % somewhere), the "
    "worst runs, and a roofline on the same runs. On an H200 (h200-sxm has no law: both ways "
    "are the same) the set judges nothing. Nothing is tuned on this set"
)


def heldout28_configs() -> list[LongContextConfig]:
    """The set in run order: each workload's candidates."""
    return configs_for(draw(SEED))


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 28 (issue 19): the tuner on inference workloads drawn by a seeded "
        "generator, judging the tile stream's latency scoped to what step_stream measured "
        "(python -m gpusim.validation.inference_tuning_heldout28 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("inference_tuning_heldout28", doc, heldout28_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
