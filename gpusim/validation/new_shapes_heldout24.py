"""Held-out set 24: issue 19's new-shapes target on the lent card with the shared-memory release
adopted (held-out sets 21 and 22), on held-out set 19's tiles at new sizes.

    python -m gpusim.validation.new_shapes_heldout24 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.new_shapes_heldout24 predict --profile NAME --out FILE
    python -m gpusim.validation.heldout_shapes compare --dataset DATASET --predictions FILE...

Set 21 adopted the release at a mean signed error of -2.00 %, the edge of the target's +-2 %;
this set asks the target again of shapes nobody chose for the release: set 19's tiles, head
dims, kernels and CTAs per SM (1 to 5), each at a new batch, head count, length and mask
(:data:`SHAPES`). The lent card's profile as it is (``h100-sxm5`` on an H100, ``h200-sxm`` on an
H200) is judged; the same profile with the release off (``-norelease``) is reported beside it.
The manifest and all four profiles' predictions are committed before the run; see :data:`RULE`.
"""

from __future__ import annotations

import sys

from gpusim.engine.smem_release import following
from gpusim.validation.heldout_shapes import configs_for, set_main

#: (dtype, head_dim, batch, heads, seq_len_q, seq_len_k, causal, (block_m, block_n, warps, stages))
SHAPES: tuple[tuple, ...] = (
    # mma.sync kernel, head dim 128
    ("fp16", 128, 3, 22, 3584, 3584, False, (128, 64, 4, 2)),
    ("bf16", 128, 5, 12, 2304, 2304, True, (128, 64, 4, 2)),
    ("fp16", 128, 2, 26, 1280, 7680, False, (64, 64, 4, 2)),
    ("bf16", 128, 4, 20, 2432, 2432, True, (64, 64, 4, 3)),
    ("fp16", 128, 2, 30, 3712, 3712, False, (64, 32, 4, 2)),
    ("fp16", 128, 3, 18, 4224, 4224, True, (128, 32, 4, 2)),
    ("bf16", 128, 6, 14, 1920, 1920, False, (128, 128, 8, 2)),
    ("fp16", 128, 1, 44, 6656, 1664, False, (128, 64, 8, 2)),
    # head dim 64
    ("fp16", 64, 4, 26, 2176, 2176, True, (128, 64, 4, 2)),
    ("bf16", 64, 2, 36, 3968, 3968, False, (64, 64, 4, 2)),
    ("fp16", 64, 3, 28, 1152, 10240, False, (128, 128, 4, 2)),
    ("fp16", 64, 12, 14, 1408, 1408, True, (64, 128, 4, 2)),
    ("bf16", 64, 5, 20, 4352, 4352, False, (128, 32, 4, 3)),
    # head dims 32 and 256
    ("fp16", 32, 6, 30, 2944, 2944, False, (128, 64, 4, 2)),
    ("bf16", 32, 3, 48, 3840, 3840, True, (64, 64, 4, 2)),
    ("fp16", 256, 5, 8, 1920, 1920, False, (64, 32, 4, 2)),
    ("bf16", 256, 2, 20, 4608, 4608, True, (64, 64, 4, 1)),
    ("fp16", 256, 4, 12, 1536, 1536, False, (128, 64, 8, 1)),
    # FFMA kernel (fp32)
    ("fp32", 64, 3, 26, 2432, 2432, False, (64, 64, 8, 2)),
    ("fp32", 128, 3, 16, 1792, 1792, True, (64, 32, 8, 2)),
    ("fp32", 64, 2, 24, 896, 7168, True, (64, 32, 8, 2)),
)
SET_NAME = "new_shapes_heldout24"
OFF = "-norelease"
PROFILES = ("h100-sxm5", "h200-sxm", "h100-sxm5" + OFF, "h200-sxm" + OFF)
RULE = (
    "judged: issue 19's new-shapes target (runtime MAPE <= 5 %, mean signed error within "
    "+-2 %, over every run, mma.sync and FFMA) on the card the device lends, with its profile "
    "as at this commit (h100-sxm5 on an H100, h200-sxm on an H200: the shared-memory release "
    "on); the same profile with the release off (-norelease) reported beside it, with the "
    "worst runs, the roofline and constant-efficiency baselines (gpusim.validation."
    "heldout_shapes compare). No mechanism is judged: whatever this set shows is evidence for "
    "a later set. Nothing is tuned on this set"
)


def heldout24_configs():
    """The set, in run order."""
    return configs_for(SHAPES)


def _off(name: str):
    from gpusim.profiles.loader import load_profile

    return load_profile(name.removesuffix(OFF)).model_copy(update={"name": name})


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    variants = {p: (lambda p=p: _off(p)) for p in PROFILES[2:]}
    what = "issue 19's new shapes with the shared-memory release: " + __name__
    # the -norelease predictions are the engine with the mechanism off
    with following(not any(a in PROFILES[2:] for a in argv)):
        return set_main(argv, __doc__.splitlines()[0], SET_NAME, heldout24_configs(), RULE,
                        what, PROFILES, variants)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
