"""Held-out set 9: do flash kernels read DRAM at a read stream's bandwidth rather than a
copy's (issue 18)?

    python -m gpusim.validation.dram_read_heldout9 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.dram_read_heldout9 --list

The profile's DRAM bandwidth is a device-to-device copy's (4.19 TB/s on the H200, bytes read
plus written). ``dram_read`` (gpusim/calibrate/dram_read.py, no attention kernel) measured a
read-only stream of cp.async tile copies at 4.57 TB/s. The candidate: the default profile with
``dram_read_bandwidth_bytes_per_s``, so that a kernel whose loads are tile copies pays C / R
of the DRAM lane per byte read and 2 - C / R per byte written (gpusim/engine/dram_mix.py).
What it moves most is what reads most from DRAM per FLOP: decode. This set's runs are new
(no earlier set has them): decode at 8k-96k keys, 1 to 32 queries, batch 1 to 32, 24 to 48
heads, with and without K/V splits and grouped heads, and a few prefill runs (short and
unmasked long); the project's kernel and PyTorch's flash backend (the schedule its backend
runs). Every run timed (CUDA events, L2 flushed, median), none counted by ncu.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.schedule import Schedule
from gpusim.validation.long_context_configs import (
    LongContextConfig,
    run_group,
    set_command,
    set_workload,
    torch_runs,
)
from gpusim.validation.long_context_heldout2 import tile_runs

#: decode runs of the project's kernel (64 x 64, 4 warps, 2 stages, its decode tile):
#: (batch, heads, K/V heads, queries, keys, K/V splits)
DECODE = (
    (2, 24, 24, 1, 65536, 1),
    (2, 24, 24, 1, 65536, 8),
    (4, 40, 40, 4, 16384, 1),
    (4, 40, 40, 4, 16384, 4),
    (16, 28, 28, 1, 8192, 2),
    (32, 24, 24, 1, 8192, 1),
    (1, 48, 48, 32, 98304, 16),
    (1, 48, 48, 1, 98304, 2),
    (6, 32, 8, 1, 24576, 1),
    (6, 32, 8, 8, 24576, 8),
    (3, 40, 5, 1, 49152, 4),
    (12, 16, 16, 16, 12288, 1),
)
#: PyTorch's flash backend on decode: (batch, heads, K/V heads, queries, keys)
TORCH_DECODE = (
    (2, 24, 24, 1, 65536),
    (4, 40, 40, 4, 16384),
    (32, 24, 24, 1, 8192),
    (6, 32, 8, 1, 24576),
    (1, 48, 48, 32, 98304),
)
#: prefill, as held-out set 7: (batch, heads, tokens, head dim, causal, (Br, Bc, warps, stages))
PREFILL = (
    (1, 12, 40960, 128, False, (128, 64, 4, 2)),
    (1, 20, 28672, 64, False, (128, 64, 4, 2)),
    (10, 20, 1024, 128, False, (128, 64, 4, 2)),
    (2, 18, 20480, 128, True, (128, 64, 4, 2)),
)
TORCH_PREFILL = ((1, 12, 40960, 128, False), (10, 20, 1024, 128, False))
RULE = (
    "judged: the default profile h200-sxm with dram_read_bandwidth_bytes_per_s (4.574 TB/s, "
    "python -m gpusim.calibrate.dram_read, data/h200/2026-12-04_calibration_dram_read), the "
    "candidate, against h200-sxm as it is (every DRAM byte at the copy's 4.19 TB/s), both "
    "predicted before the run and committed; reported per model: MAPE, mean signed error and "
    "the worst runs, for the project's runs, PyTorch's and all, by group, beside the roofline "
    "and constant-efficiency baselines. The candidate becomes the default if its MAPE over all "
    "runs here is lower; nothing is tuned on this set"
)


def heldout9_configs() -> list[LongContextConfig]:
    """The set in run order: decode (project's, then PyTorch's), then prefill."""
    out = []
    for b, h, hkv, nq, nk, splits in DECODE:
        w = set_workload(b, h, hkv, nq, nk, True)
        s = Schedule(block_m=64, block_n=64, warps=4, stages=2, kv_splits=splits)
        out.append(LongContextConfig("project", run_group(w), w, s))
    return out + torch_runs(TORCH_DECODE) + tile_runs(PREFILL, TORCH_PREFILL)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 9 (issue 18): DRAM reads at a read stream's bandwidth against a copy's "
        "(python -m gpusim.validation.dram_read_heldout9 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("dram_read_heldout9", doc, heldout9_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
