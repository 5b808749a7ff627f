"""Held-out set 7: do attention kernels run at the clock measured under an attention step's
load (``sm_clock_stream_load_hz``) rather than the products-only clock?

    python -m gpusim.validation.load_clock_heldout7 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.load_clock_heldout7 --list

``load_clock`` (gpusim/calibrate/load_clock.py, no attention kernel) found the H200 at its
700 W power cap under an attention step's whole load: products, softmax and 32-KiB tiles
streaming from the L2 ran at 1792 MHz under the timing protocol, where the tensor benchmark's
products alone (the profile's ``sm_clock_tensor_load_hz``) ran at 1814. The candidate is the
default profile with that clock for tensor-core kernels. This set's prefill shapes are new
(no earlier set or the validation sweep has them): 1.5k-48k tokens, d64 and d128, causal and
not, seven of the project's tiles, and PyTorch's flash backend on four shapes (the schedule
its backend runs); every run timed (CUDA events, L2 flushed, median), none counted by ncu.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import LongContextConfig, set_command
from gpusim.validation.long_context_heldout2 import tile_runs

#: (batch, heads, tokens, head dim, causal, (block m, block n, warps, stages))
PROJECT = (
    (6, 24, 3072, 128, False, (128, 64, 4, 2)),
    (6, 24, 3072, 128, True, (128, 64, 4, 2)),
    (2, 40, 6144, 128, False, (128, 128, 8, 2)),
    (2, 40, 6144, 64, True, (128, 64, 4, 2)),
    (1, 28, 12288, 128, False, (128, 64, 4, 3)),
    (1, 28, 12288, 128, True, (64, 64, 4, 2)),
    (3, 12, 10240, 64, False, (128, 128, 8, 2)),
    (3, 12, 10240, 64, True, (64, 64, 4, 2)),
    (1, 24, 24576, 128, False, (128, 64, 4, 2)),
    (1, 24, 24576, 128, True, (128, 32, 4, 2)),
    (1, 10, 49152, 64, False, (128, 64, 4, 2)),
    (1, 10, 49152, 128, True, (128, 64, 4, 2)),
    (12, 8, 1536, 128, False, (128, 64, 4, 2)),
    (12, 8, 1536, 64, True, (64, 128, 4, 2)),
    (5, 20, 5120, 128, False, (128, 64, 8, 2)),
    (5, 20, 5120, 128, True, (128, 64, 4, 2)),
)
#: PyTorch's flash backend on: (batch, heads, tokens, head dim, causal)
TORCH = (
    (6, 24, 3072, 128, False),
    (2, 40, 6144, 64, True),
    (1, 24, 24576, 128, True),
    (1, 10, 49152, 64, False),
)
RULE = (
    "judged: the default profile h200-sxm with sm_clock_stream_load_hz (the clock under "
    "load_clock's products+softmax+L2 stream, 1792 MHz; written by python -m "
    "gpusim.calibrate.load_clock --record ... --profile ...), the candidate, against h200-sxm "
    "as it is (tensor-core kernels at the products-only 1814 MHz), both predicted before the "
    "run and committed; reported per model: MAPE, mean signed error and the worst runs, for "
    "the project's runs, PyTorch's and all, beside the roofline and constant-efficiency "
    "baselines. The candidate becomes the default if its MAPE over all runs here is lower; "
    "nothing is tuned on this set"
)


def heldout7_configs() -> list[LongContextConfig]:
    """The set in run order: the project's runs, then PyTorch's."""
    return tile_runs(PROJECT, TORCH)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 7 (issues 18 and 19): the SM clock under an attention step's load "
        "against the products-only clock (python -m gpusim.validation.load_clock_heldout7 "
        "--write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("load_clock_heldout7", doc, heldout7_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
