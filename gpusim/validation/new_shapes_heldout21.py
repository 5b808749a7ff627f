"""Held-out set 21: the shared-memory release (co-resident CTAs' softmax beside one CTA's
shared-memory-bound products) and issue 19's new-shapes target, on the lent card.

    python -m gpusim.validation.new_shapes_heldout21 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.new_shapes_heldout21 predict --profile NAME --out FILE
    python -m gpusim.validation.heldout_shapes compare --dataset DATASET --predictions FILE...

The candidate (:mod:`gpusim.engine.smem_release`): where a step's products wait on the shared
memory rather than the tensor pipe, the loads hold the SM's schedulers for 1 - k of their
excess, k = 0.369 from the smem_overlap microbenchmark (no attention code); the variants are
the shipped profiles with that share (:mod:`gpusim.validation.release_variant`), predicted with
the mechanism on. On the seen sets it moved the mma.sync runs of new-shapes sets 14, 19 and 20
from 6.48 % (mean +1.67 %) to 5.74 % (-1.20 %), the project's runs of partition set 11 on
8-72 SMs from 9.30 % to 6.34 %, and the inference sets' prefill rankings from Spearman 0.60 /
0.40 to 0.80 / 0.80; this set judges it. Shapes (:data:`SHAPES`): held-out set 20's tiles,
head dims and kernels, at new batch, heads, lengths and masks (so that the tile mix was not
chosen for the candidate). The manifest and the predictions of all four profiles are committed
before the run; see :data:`RULE`.
"""

from __future__ import annotations

import sys

from gpusim.engine.smem_release import following
from gpusim.validation.heldout_shapes import configs_for, set_main
from gpusim.validation.release_variant import SUFFIX, variant_profile

#: (dtype, head_dim, batch, heads, seq_len_q, seq_len_k, causal, (block_m, block_n, warps, stages))
SHAPES: tuple[tuple, ...] = (
    ("fp16", 128, 2, 28, 3456, 3456, True, (128, 64, 4, 2)),
    ("bf16", 128, 6, 10, 2432, 2432, False, (128, 64, 4, 2)),
    ("fp16", 128, 3, 20, 1664, 6656, False, (64, 64, 4, 2)),
    ("bf16", 128, 5, 14, 3200, 3200, True, (64, 64, 4, 2)),
    ("fp16", 128, 4, 16, 2688, 2688, False, (128, 128, 8, 2)),
    ("bf16", 128, 3, 18, 5632, 1408, True, (128, 32, 4, 2)),
    ("bf16", 64, 4, 30, 2304, 2304, True, (128, 64, 4, 2)),
    ("fp16", 64, 2, 40, 4480, 4480, False, (64, 64, 4, 2)),
    ("fp16", 64, 9, 12, 1536, 1536, True, (64, 128, 4, 2)),
    ("bf16", 64, 3, 26, 1280, 8960, False, (128, 128, 4, 2)),
    ("fp16", 32, 5, 40, 2816, 2816, False, (128, 64, 4, 2)),
    ("bf16", 256, 3, 10, 2688, 2688, True, (64, 64, 4, 1)),
    ("bf16", 256, 4, 12, 2176, 2176, False, (64, 32, 4, 2)),
    ("fp32", 64, 4, 18, 1920, 1920, True, (64, 64, 8, 2)),
    ("fp32", 128, 2, 26, 1408, 1408, False, (64, 32, 8, 2)),
    ("fp32", 64, 3, 20, 1152, 4608, True, (64, 32, 8, 2)),
)
SET_NAME = "new_shapes_heldout21"
#: The lent card's profile and its candidate: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm", "h100-sxm5" + SUFFIX, "h200-sxm" + SUFFIX)
RULE = (
    "judged on the card the device lends, with its profile as at this commit (h100-sxm5 on an "
    "H100, h200-sxm on an H200) and that profile's -release variant: (1) the shared-memory "
    "release (gpusim.engine.smem_release, share 0.369 from smem_overlap) is adopted into the "
    "default profiles, and its mechanism turned on, if the variant's runtime MAPE over every "
    "run of this set (mma.sync and FFMA) is lower than the profile's and, where held-out set "
    "22 (SM partitions, same call) came back, its variant's MAPE over the project's runs on "
    "8-72 SMs is not higher than its profile's; otherwise it stays out. (2) issue 19's new-shapes "
    "target (runtime MAPE <= 5 %, mean signed error within +-2 %) reported for both, beside the "
    "roofline and constant-efficiency baselines (gpusim.validation.heldout_shapes compare). "
    "Nothing is tuned on this set"
)


def heldout21_configs():
    """The set, in run order."""
    return configs_for(SHAPES)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    variants = {p: (lambda p=p: variant_profile(p.removesuffix(SUFFIX))) for p in PROFILES[2:]}
    what = "the shared-memory release, and issue 19's new shapes: " + __name__
    # the variants' predictions are the engine with the mechanism on
    with following(any(a in PROFILES[2:] for a in argv)):
        return set_main(argv, __doc__.splitlines()[0], SET_NAME, heldout21_configs(), RULE,
                        what, PROFILES, variants)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
