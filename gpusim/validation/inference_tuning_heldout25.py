"""Held-out set 25: split-KV decoding and its tuner, drawn afresh, to judge the tile stream's
latency (:mod:`gpusim.engine.stream_latency`; issue 19).

    python -m gpusim.validation.inference_tuning_heldout25 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.inference_tuning_heldout25 --list
    python -m gpusim.reporting.stream_set predict|compare ...

Set 16's kinds, ranges and candidates with another seed (:data:`SEED`), so that no workload
was picked for how the model does on it. The mechanism was suggested by held-out set 23's
decodes (and its law fitted to the step_stream microbenchmark, no attention code); this set
judges it. Predicted before the run with the lent card's profile with the mechanism off and
on. The rule: :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.inference_tuning_heldout13 import configs_for
from gpusim.validation.inference_tuning_heldout16 import draw
from gpusim.validation.long_context_configs import LongContextConfig, set_command

SEED = 25
#: (profile, mechanism on) as the predictions name them: ``profile`` or ``profile+stream``
PROFILES = ("h100-sxm5", "h100-sxm5+stream", "h200-sxm", "h200-sxm+stream")
RULE = (
    "on the card the device lends, its profile as at this commit (h100-sxm5 on an H100, "
    "h200-sxm on an H200) predicts every measured run with the tile stream's latency "
    "(gpusim.engine.stream_latency) off and on. The mechanism is adopted (STREAM on by "
    "default) if with it the runtime MAPE over the set's measured runs is lower and the mean "
    "signed error is no further from zero by more than 1 point. Reported both ways: issue 19's "
    "tuner target per workload (Spearman between predicted and measured times >= 0.85, the "
    "first choice within 3 % of the measured best, the fixed rule's pick over the best; the "
    "set qualifies if the fixed rule loses at least 5 % somewhere), the worst runs, and a "
    "roofline on the same runs. Nothing is tuned on this set"
)


def heldout25_configs() -> list[LongContextConfig]:
    """The set in run order: each workload's candidates."""
    return configs_for(draw(SEED))


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 25 (issue 19): the tuner on inference workloads drawn by a seeded "
        "generator, judging the tile stream's latency "
        "(python -m gpusim.validation.inference_tuning_heldout25 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("inference_tuning_heldout25", doc, heldout25_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
