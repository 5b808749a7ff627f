"""Held-out set 12: a load's latency under the memory system's queue (issues 18 and 19).

    python -m gpusim.validation.load_latency_heldout12 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.load_latency_heldout12 --list

The engine charged a load its memory latency and then its transfer; a wave of CTAs that
issue together then leaves the DRAM lane idle for a latency every step, and DRAM-bound
decode was predicted 7-14 % slow on every profile (held-out sets 9 and 10). The candidate
(:mod:`gpusim.engine.load_latency`): a load takes the longer of its latency and its
transfer, as the ``dram_read`` microbenchmark's read stream shows (the same rate with 2, 3
and 4 stages). What it moves is DRAM-bound work: decode of many CTAs, split or not, grouped
heads; prefill is a control. Every run is new (no earlier long-context set has it, a test
holds it): the project's kernel and PyTorch's flash backend (the schedule its backend runs),
timed (CUDA events, L2 flushed, median), none counted by ncu.

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

#: decode of the project's kernel: (batch, heads, K/V heads, queries, keys, K/V splits,
#: (Br, Bc, warps, stages))
DECODE = (
    (24, 32, 32, 1, 8192, 1, (64, 64, 4, 2)),
    (4, 32, 32, 1, 32768, 2, (64, 64, 4, 2)),
    (2, 48, 48, 1, 49152, 4, (64, 64, 4, 2)),
    (12, 24, 24, 1, 12288, 1, (64, 64, 4, 2)),
    (64, 16, 16, 1, 2048, 1, (64, 64, 4, 2)),
    (1, 32, 32, 16, 65536, 8, (64, 64, 4, 2)),
    (3, 64, 64, 1, 24576, 2, (64, 64, 4, 2)),
    (16, 32, 8, 1, 8192, 1, (64, 64, 4, 2)),
    (8, 64, 8, 1, 16384, 2, (64, 64, 4, 2)),
    (6, 32, 32, 1, 16384, 1, (64, 128, 4, 2)),
    (4, 24, 24, 8, 32768, 4, (128, 64, 4, 2)),
)
#: PyTorch's flash backend on decode: (batch, heads, K/V heads, queries, keys)
TORCH_DECODE = (
    (24, 32, 32, 1, 8192),
    (4, 32, 32, 1, 32768),
    (16, 32, 8, 1, 8192),
    (2, 48, 48, 1, 49152),
)
#: prefill (the control): (batch, heads, tokens, head dim, causal, (Br, Bc, warps, stages))
PREFILL = (
    (2, 16, 12288, 128, False, (128, 64, 4, 2)),
    (8, 16, 2048, 64, True, (128, 64, 4, 2)),
    (1, 28, 10240, 128, True, (128, 64, 4, 2)),
    (16, 8, 1024, 128, False, (128, 64, 4, 2)),
    (4, 16, 4096, 64, False, (64, 64, 4, 2)),
)
TORCH_PREFILL = ((2, 16, 12288, 128, False),)
RULE = (
    "judged: the default profile h200-sxm with a load's latency under the memory system's "
    "queue (a load takes the longer of its latency and its transfer: "
    "gpusim/engine/load_latency.py), the candidate, against h200-sxm as it is (latency, then "
    "transfer), both predicted before the run and committed; reported per model: MAPE, mean "
    "signed error and the worst runs, for the project's runs, PyTorch's and all, by group, "
    "beside the roofline and constant-efficiency baselines; h200-sxm-core's two variants "
    "reported. The candidate becomes the default if its MAPE over all runs here is lower; "
    "nothing is tuned on this set"
)


def heldout12_configs() -> list[LongContextConfig]:
    """The set in run order: decode (project's, then PyTorch's), then prefill."""
    out = []
    for b, h, hkv, nq, nk, splits, (bm, bn, wp, st) in DECODE:
        w = set_workload(b, h, hkv, nq, nk, True)
        s = Schedule(block_m=bm, block_n=bn, warps=wp, stages=st, kv_splits=splits)
        out.append(LongContextConfig("project", run_group(w), w, s))
    return out + torch_runs(TORCH_DECODE) + tile_runs(PREFILL, TORCH_PREFILL)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 12 (issues 18, 19): a load's latency under the memory system's queue "
        "(python -m gpusim.validation.load_latency_heldout12 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("load_latency_heldout12", doc, heldout12_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
