"""Held-out set 30: issue 19's new-shapes target on the lent card after the tile stream's law was
adopted (held-out set 28), and the SM core model's recommendation (held-out set 29) asked again
of prefill shapes: the project's kernels at shapes drawn by a seeded generator.

    python -m gpusim.validation.new_shapes_heldout30 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.new_shapes_heldout30 predict --profile NAME --out FILE
    python -m gpusim.validation.heldout_shapes compare --dataset DATASET --predictions FILE...

Sets 14, 19, 20, 21 and 24 chose their shapes by hand; this one draws them (:func:`draw`, seed
:data:`SEED`): for each run a dtype, head dim, compiled tile (any instance of the grid that does
not spill), batch, heads, lengths and mask, kept if its work falls in a range that times in
about 0.1-10 ms. Set 29 recommended ``h100-sxm5-core`` for the project's kernels on the H100 on
inference workloads (decodes and one prefill chunk); these are whole prefills. The manifest and
all four profiles' predictions are committed before the run; see :data:`RULE`.
"""

from __future__ import annotations

import random
import sys

from gpusim.validation.heldout_shapes import configs_for, set_main

SEED = 30
SET_NAME = "new_shapes_heldout30"
PROFILES = ("h100-sxm5", "h100-sxm5-core", "h200-sxm", "h200-sxm-core")
#: (how many, dtypes, head dims with their weights, FLOP range of one run)
KINDS = (
    (20, ("fp16", "bf16"), ((32, 1), (64, 4), (128, 4), (256, 1)), (2e10, 2e12)),
    (4, ("fp32",), ((64, 1), (128, 1)), (2e9, 1.5e11)),
)
RULE = (
    "judged on the card the device lends: issue 19's new-shapes target (runtime MAPE <= 5 %, "
    "mean signed error within +-2 %, over every run, mma.sync and FFMA) on its pipe-model "
    "profile as at this commit (h100-sxm5 on an H100, h200-sxm on an H200; the tile stream's "
    "law on where the profile has it); its core profile (h100-sxm5-core, h200-sxm-core) "
    "reported beside it. Held-out set 29's recommendation of the core profile for the "
    "project's kernels on the H100 extends to these prefill shapes if the core profile's MAPE "
    "over the set's mma.sync runs is lower than the pipe profile's (the FFMA runs are timed "
    "by the pipe model in both: reported apart); otherwise the recommendation is kept to "
    "inference workloads. With the worst runs, the roofline and the constant-efficiency "
    "baseline (gpusim.validation.heldout_shapes compare). Nothing is tuned on this set"
)


def _tiles(dtype: str, d: int) -> list[tuple[int, int, int, int]]:
    """``(block_m, block_n, warps, stages)`` of every compiled instance for ``dtype`` and ``d``
    that does not spill, in key order."""
    from gpusim.kernel_catalog.compiled import compiled_footprints

    variant = "simt" if dtype == "fp32" else "tc"
    prefix = f"{variant}_{dtype}_d{d}_"
    out = []
    for key, c in sorted(compiled_footprints("9.0").items()):
        if key.startswith(prefix) and not (c.spill_store_bytes or c.spill_load_bytes):
            m, n, w, s = (int(p[1:]) for p in key.removeprefix(prefix).split("_")[:4])
            out.append((m, n, w, s))
    return out


def draw(seed: int = SEED) -> tuple[tuple, ...]:
    """The shapes, as :data:`gpusim.validation.heldout_shapes.SHAPES` holds them."""
    rng = random.Random(seed)
    out = []
    for n, dtypes, dims, (lo, hi) in KINDS:
        while len([s for s in out if (s[0] == "fp32") == (dtypes == ("fp32",))]) < n:
            dtype = rng.choice(dtypes)
            d = rng.choices([x for x, _ in dims], [wt for _, wt in dims])[0]
            tile = rng.choice(_tiles(dtype, d))
            batch, heads = rng.randint(1, 8), rng.randint(8, 48)
            nq = rng.randrange(512, 8193, 128)
            nk = nq if rng.random() < 0.75 else rng.randrange(512, 8193, 128)
            causal = rng.random() < 0.5
            flops = 4 * batch * heads * nq * nk * d * (0.5 if causal else 1.0)
            if lo <= flops <= hi:
                out.append((dtype, d, batch, heads, nq, nk, causal, tile))
    return tuple(out)


SHAPES = draw()


def heldout30_configs():
    """The set, in run order."""
    return configs_for(SHAPES)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    what = "issue 19's new shapes drawn by a seeded generator: " + __name__
    return set_main(argv, __doc__.splitlines()[0], SET_NAME, heldout30_configs(), RULE, what,
                    PROFILES)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
