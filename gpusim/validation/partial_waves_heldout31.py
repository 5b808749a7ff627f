"""Held-out set 31: partial waves. The project's kernel at grids of 0.5 to 4.6 waves of two CTAs
per SM, so that the time a partial last wave costs is measured, beside the model's prediction.

    python -m gpusim.validation.partial_waves_heldout31 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.partial_waves_heldout31 --list
    python -m gpusim.reporting.waves_set predict|compare ...

Why. On held-out set 29 both H100 profiles predicted the prefill chunk's 128 x 64 tile 13-17 %
slow where its grid is 1.32 waves (348 CTAs on 264 slots), and 5-6 % fast on sets 23, 25 and 28
where it is 0.41, 0.70 and 2.05 waves. In the engine 11 of the 73 SMs that take the last 84
CTAs take two, which then share their SM for a whole CTA life; the measured time fits one per
SM. And the cta_scatter record (data/h200/2026-11-30_calibration_cta_scatter, step_l2) shows the
next wave's first 84 CTAs on 84 different SMs in every launch, the older SM-mate finishing
first on all 132 SMs. This set asks it of the attention kernel with no other change: one
workload shape (768 queries, 8192 keys, d128, bf16, unmasked, and masked at two sizes), batch 1,
the head count setting the grid, two tiles of two CTAs per SM. :data:`RULE`, fixed with the set
before any prediction or measurement.
"""

from __future__ import annotations

from gpusim.schedule import Schedule
from gpusim.validation.long_context_configs import LongContextConfig, set_command, set_workload

#: heads (batch 1): with 6 query blocks of 128 rows, 132 to 612 CTAs, 0.5 to 2.32 waves of 264
HEADS = (22, 44, 51, 58, 66, 77, 88, 102)
#: heads of the masked runs
CAUSAL_HEADS = (44, 58)
NQ, NK = 768, 8192
#: (block_m, block_n, warps, stages): two CTAs per SM each (255 and 225 registers)
TILES = ((128, 64, 4, 2), (64, 64, 4, 2))
#: the profiles predicted: each card's pipe-model profile and its core-model refinement
PROFILES = ("h100-sxm5", "h100-sxm5-core", "h200-sxm", "h200-sxm-core")
RULE = (
    "diagnostic, and judged: on the card the device lends, its pipe-model profile as at this "
    "commit (h100-sxm5 on an H100, h200-sxm on an H200) and its core profile predict every "
    "run. Reported: runtime MAPE, mean signed error and worst runs beside the roofline and the "
    "constant-efficiency baseline; per tile, the measured and predicted time against the "
    "grid's waves (CTAs over the 264 slots of two per SM), and the cost of the partial last "
    "wave (the time over the one-wave run's, less the whole waves). Whether a partial wave "
    "costs about a whole CTA life (its CTAs paired on their SMs) or less (one per SM) is what "
    "it asks. Nothing is adopted or tuned on this set: a mechanism it suggests is judged on a "
    "later set"
)


def heldout31_configs() -> list[LongContextConfig]:
    """The set in run order: per tile, the unmasked grids, then the masked ones."""
    out = []
    for bm, bn, w, st in TILES:
        s = Schedule(block_m=bm, block_n=bn, warps=w, stages=st)
        for causal, heads in ((False, HEADS), (True, CAUSAL_HEADS)):
            for h in heads:
                wl = set_workload(1, h, h, NQ, NK, causal)
                out.append(LongContextConfig("project", "prefill", wl, s))
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 31 (issues 19 and 18): the project's kernel at grids of 0.5 to 4.6 waves, "
        "the cost of a partial last wave (python -m gpusim.validation.partial_waves_heldout31 "
        "--write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("partial_waves_heldout31", doc, heldout31_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
