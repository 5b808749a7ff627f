"""Held-out set 8: what a CTA costs its SM around its main loop (issues 18 and 19).

    python -m gpusim.validation.cta_ends_heldout8 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.cta_ends_heldout8 --list

The project's tensor-core kernel is predicted fast, more so where CTAs are short (the core
model on the tuning proof's 204 runs: -4.6 to -9.1 % at 1k tokens, -2.5 to -3.0 % at 8k).
Two candidates, each from measurements that share no code with an attention kernel:

- **active CTAs** (:mod:`gpusim.engine.active_ctas`): while an SM's other CTAs wait for
  their first tiles, store their output, or have ended, the CTAs still computing have the
  schedulers with fewer warps to hide their latencies, and run at the step efficiency of
  that many CTAs (the profile's ``step_efficiency_*``, or the core model's replay with that
  many CTAs), not of the kernel's occupancy;
- **staged stores**: the profile's ``staged_store_bytes_per_clk_per_sm`` (cta_life's 16-byte
  stores, 37.2 bytes per SM clock, data/h200/2026-12-04_calibration_cta_life) charged to
  the CTA before its output's bytes go, as the fragment stores of the wgmma class are.

This set's prefill shapes are new (no earlier set has them): 512-16k tokens, d64 and d128,
causal and not, with many short CTAs and kernels of one, two and three CTAs per SM (those
of one are where the first candidate changes nothing); PyTorch's flash backend on four of
them. Every run timed (CUDA events, L2 flushed, median), none counted by ncu.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import LongContextConfig, set_command
from gpusim.validation.long_context_heldout2 import tile_runs

#: (batch, heads, tokens, head dim, causal, (block m, block n, warps, stages))
PROJECT = (
    (24, 16, 768, 128, False, (128, 64, 4, 2)),
    (24, 16, 768, 128, True, (128, 64, 4, 2)),
    (16, 12, 1280, 64, False, (128, 64, 4, 2)),
    (16, 12, 1280, 64, True, (64, 64, 4, 2)),
    (8, 20, 2048, 128, True, (64, 64, 4, 2)),
    (8, 20, 2048, 128, False, (128, 32, 4, 2)),
    (32, 8, 512, 64, False, (64, 128, 4, 2)),
    (32, 8, 512, 128, True, (128, 64, 4, 3)),
    (4, 36, 4096, 128, False, (128, 64, 4, 2)),
    (4, 36, 4096, 64, True, (128, 128, 8, 2)),
    (2, 24, 8192, 128, True, (128, 64, 4, 2)),
    (2, 24, 8192, 64, False, (64, 64, 4, 1)),
    (10, 16, 1024, 128, False, (128, 64, 8, 2)),
    (10, 16, 1024, 64, True, (128, 64, 4, 2)),
    (3, 16, 16384, 128, False, (128, 64, 4, 2)),
    (3, 16, 16384, 128, True, (128, 32, 4, 2)),
    (48, 4, 896, 128, True, (128, 64, 4, 2)),
    (6, 32, 1792, 64, False, (128, 64, 4, 3)),
    (20, 8, 3072, 64, True, (64, 32, 4, 2)),
    (12, 12, 2560, 128, False, (64, 64, 4, 2)),
)
#: PyTorch's flash backend on: (batch, heads, tokens, head dim, causal)
TORCH = (
    (24, 16, 768, 128, False),
    (16, 12, 1280, 64, True),
    (4, 36, 4096, 128, True),
    (2, 24, 8192, 64, False),
)
#: The candidates' names, as the predictions file and the comparison name them.
VARIANTS = ("record", "active_ctas", "staged_stores", "both")
RULE = (
    "judged: gpusim simulate on the default profile h200-sxm, four variants predicted before "
    "the run and committed: record (the model as it is), active_ctas (an SM's scheduler "
    "capacity follows how many of its CTAs are computing: the step efficiency of that many, "
    "gpusim.engine.active_ctas), staged_stores (the profile with "
    "staged_store_bytes_per_clk_per_sm, 37.236 B/clk from cta_life's 16-byte stores, charged "
    "to each CTA of the staged-output class before its output's bytes go) and both. Reported "
    "per variant: MAPE, mean signed error and the worst runs, for the project's runs, "
    "PyTorch's and all, beside the roofline and constant-efficiency baselines; the core "
    "profile's four variants are reported, not judged. A candidate beats the record if its "
    "MAPE over all runs is lower; of those that do, the one with the lowest MAPE over all "
    "runs is adopted (both only if it is lower than each alone); nothing is tuned on this set"
)


def heldout8_configs() -> list[LongContextConfig]:
    """The set in run order: the project's runs, then PyTorch's."""
    return tile_runs(PROJECT, TORCH)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 8 (issues 18 and 19): what a CTA costs its SM around its main loop "
        "(active CTAs, staged stores) (python -m gpusim.validation.cta_ends_heldout8 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("cta_ends_heldout8", doc, heldout8_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
