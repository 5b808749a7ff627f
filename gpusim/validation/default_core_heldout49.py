"""Held-out set 49: should the default profiles time the project's compiled kernels with the SM
core model? New shapes of the project's kernels, drawn as set 30 drew its own (seed 49).

    python -m gpusim.validation.default_core_heldout49 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.default_core_heldout49 predict --profile NAME --out FILE
    python -m gpusim.validation.heldout_shapes compare --dataset DATASET --predictions FILE...

Why. Every set since set 10 that predicted both (10, 11, 12, 13, 16, 19, 29, 30, 34, 35) found
the core profiles (``h100-sxm5-core``, ``h200-sxm-core``: the pipe profile plus the measured SM
core cycles, replaying the committed SASS loops of the project's compiled kernels) closer on
the project's kernels than the default pipe profiles; set 30 met issue 19's new-shapes target
with the core profile and missed it with the default. Set 11's report left "whether the
default profile should be the core model" to a set of its own; this is it. The shapes come
from set 30's generator (:func:`gpusim.validation.new_shapes_heldout30.draw`: its kinds, tiles
and FLOP ranges) with a new seed, so that the population is the one the question is about and
the runs are new. The manifest and all four profiles' predictions are committed before the
run; see :data:`RULE`.
"""

from __future__ import annotations

import sys

from gpusim.validation.heldout_shapes import configs_for, set_main
from gpusim.validation.new_shapes_heldout30 import draw

SEED = 49
SET_NAME = "default_core_heldout49"
PROFILES = ("h100-sxm5", "h100-sxm5-core", "h200-sxm", "h200-sxm-core")
RULE = (
    "judged on the card the device lends, over every run of the set (mma.sync and FFMA; the "
    "FFMA runs are timed by the pipe model in both profiles, reported apart): the card's "
    "default profile (h100-sxm5 on an H100, h200-sxm on an H200) against its core profile "
    "(h100-sxm5-core, h200-sxm-core), both as at this commit. The default profiles take the "
    "SM core model (their compiled kernels timed by the core profile's replay, everything "
    "else unchanged) if the core profile meets issue 19's new-shapes target (runtime MAPE <= "
    "5 %, mean signed error within +-2 %) and its MAPE is lower than the default's; "
    "otherwise the defaults stay the pipe model. Issue 19's target is judged on the profile "
    "that is the default after the rule. With the worst runs, the roofline and the "
    "constant-efficiency baseline (gpusim.validation.heldout_shapes compare). Nothing is "
    "tuned on this set"
)
SHAPES = draw(SEED)


def heldout49_configs():
    """The set, in run order."""
    return configs_for(SHAPES)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    what = "whether the default profiles take the SM core model: " + __name__
    return set_main(argv, __doc__.splitlines()[0], SET_NAME, heldout49_configs(), RULE, what,
                    PROFILES)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
