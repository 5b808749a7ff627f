"""Held-out set 29: the SM core model (the replay of the project's compiled loops) on the
H100, judged against the pipe model on split-KV decoding and its tuner drawn afresh (set 16's
generator, another seed).

    python -m gpusim.validation.inference_tuning_heldout29 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.inference_tuning_heldout29 --list
    python -m gpusim.reporting.core_set predict|compare ...

``h100-sxm5-core`` is ``h100-sxm5`` with the H200's measured SM core cycles (the same GH100 SM;
:mod:`gpusim.profiles.derive`). Looked at first on the H100's earlier sets 23 and 25-28 (seen
runs, not a judgement): project MAPE 4.4 / 3.9 / 6.0 / 5.2 / 4.1 % with it against 6.9 / 5.9 /
8.9 / 7.1 / 6.9 % with the pipe model, and the prefill chunks' four or five tiles ranked at
Spearman 0.80-1.00 against 0.40-0.80. Those sets suggested it, so this set judges it, under
:data:`RULE`, fixed with the set before any prediction or measurement.
"""

from __future__ import annotations

from gpusim.validation.inference_tuning_heldout13 import configs_for
from gpusim.validation.inference_tuning_heldout16 import draw
from gpusim.validation.long_context_configs import LongContextConfig, set_command

SEED = 29
#: the profiles predicted: each card's pipe-model profile and its core-model refinement
PROFILES = ("h100-sxm5", "h100-sxm5-core", "h200-sxm", "h200-sxm-core")
RULE = (
    "on the card the device lends, its pipe-model profile as at this commit (h100-sxm5 on an "
    "H100, h200-sxm on an H200) and its SM core model refinement (h100-sxm5-core, "
    "h200-sxm-core) predict every measured run. The core profile becomes the recommended "
    "profile for the project's compiled kernels on that card (README, docs/limits.md) if, over "
    "the set's measured runs, its runtime MAPE is at least 1 point lower than the pipe "
    "profile's, its mean signed error is no further from zero by more than 1 point, and on "
    "issue 19's tuner target it is no worse on either count (workloads whose first choice is "
    "within 3 % of the measured best; workloads with Spearman between predicted and measured "
    "times >= 0.85). Otherwise the pipe profile stays the recommendation. Reported both ways, "
    "beside a roofline and a constant-efficiency baseline on the same runs and the fixed "
    "rule's pick (the set qualifies as a tuner set if the fixed rule loses at least 5 % "
    "somewhere). The default profile is unchanged either way. Nothing is tuned on this set"
)


def heldout29_configs() -> list[LongContextConfig]:
    """The set in run order: each workload's candidates."""
    return configs_for(draw(SEED))


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 29 (issue 19): the tuner on inference workloads drawn by a seeded "
        "generator, judging the SM core model against the pipe model on the lent card "
        "(python -m gpusim.validation.inference_tuning_heldout29 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("inference_tuning_heldout29", doc, heldout29_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
