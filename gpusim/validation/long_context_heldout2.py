"""The second long-context held-out set: judges the K/V trace L2 (kv_trace_l2.py).

    python -m gpusim.validation.long_context_heldout2 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.long_context_heldout2 --list

The development set (``long_context_configs``: 16k-128k, 16 heads, d128) and the first
held-out set (``long_context_heldout``: 24k/48k/96k) have both been seen by the K/V trace
model; this set has shapes neither has: 40k tokens at batch 2, 80k, 64k with GQA 32/8,
128k at d64 with 8 heads and at d128 with 4 heads, 112k with GQA 8/2; causal in several
(kv_order, q_order) pairs and without the mask; the project's kernel (tile 128 x 64,
4 warps, 2 stages) and four of PyTorch's flash runs (the schedule its backend runs). Every
run's DRAM bytes are counted by Nsight Compute and every run is timed. Sized for one device
call of at most 300 s (30 runs, the longest about 0.2 s).
"""

from __future__ import annotations

from gpusim.schedule import Schedule
from gpusim.validation.long_context_configs import (
    H200_SMS,
    PREFILL_TILE,
    LongContextConfig,
    _sched,
    run_group,
    set_command,
)
from gpusim.validation.torch_flash_schedule import schedule_before_set43
from gpusim.workload import Workload

FOUR = (
    ("forward", "last-first"),
    ("backward", "last-first"),
    ("forward", "first-first"),
    ("backward", "first-first"),
)
#: (batch, tokens, heads, K/V heads, head dim, causal (kv, q) orders, unmasked orders)
SHAPES = (
    (2, 40960, 16, 16, 128, FOUR, (("forward", "last-first"),)),
    (1, 81920, 16, 16, 128, FOUR, (("forward", "last-first"), ("backward", "first-first"))),
    (1, 65536, 32, 8, 128, FOUR, ()),
    (1, 131072, 8, 8, 64, FOUR, (("forward", "last-first"),)),
    (1, 114688, 8, 2, 128, FOUR[:3], ()),
    (1, 131072, 4, 4, 128, (FOUR[0], FOUR[3]), (("forward", "last-first"),)),
)
#: PyTorch's flash backend on: (batch, tokens, heads, K/V heads, head dim, causal).
TORCH = (
    (1, 81920, 16, 16, 128, True),
    (1, 65536, 32, 8, 128, True),
    (1, 131072, 8, 8, 64, True),
    (2, 40960, 16, 16, 128, False),
)


def _workload(b: int, n: int, h: int, hkv: int, d: int, causal: bool) -> Workload:
    return Workload(
        batch=b, heads=h, heads_kv=hkv, seq_len_q=n, seq_len_k=n, head_dim=d, dtype="bf16",
        causal=causal,
    )  # fmt: skip


def tile_runs(project, torch_shapes) -> list[LongContextConfig]:
    """A set of timed prefill runs (none counted by ncu): the project's kernel on ``project``
    (batch, heads, tokens, head dim, causal, (block m, block n, warps, stages)), then
    PyTorch's on ``torch_shapes`` (batch, heads, tokens, head dim, causal) with the schedule
    its flash backend runs."""
    out = []
    for b, h, n, d, causal, (bm, bn, wp, st) in project:
        w = _workload(b, n, h, h, d, causal)
        s = Schedule(block_m=bm, block_n=bn, warps=wp, stages=st)
        out.append(LongContextConfig("project", run_group(w), w, s))
    for b, h, n, d, causal in torch_shapes:
        w = _workload(b, n, h, h, d, causal)
        out.append(LongContextConfig("torch", run_group(w), w, schedule_before_set43(w, H200_SMS)))
    return out


def heldout2_configs() -> list[LongContextConfig]:
    """The set in run order (30 runs: 26 of the project's kernel, 4 PyTorch's)."""
    return prefill_configs(SHAPES, TORCH)


def prefill_configs(shapes, torch_shapes) -> list[LongContextConfig]:
    """A held-out set's prefill runs, every one counted by Nsight Compute: the project's
    kernel on ``shapes`` (batch, tokens, heads, K/V heads, head dim, causal (kv, q) orders,
    unmasked orders), then PyTorch's on ``torch_shapes`` (batch, tokens, heads, K/V heads,
    head dim, causal) with the schedule its backend runs."""
    out: list[LongContextConfig] = []
    for b, n, h, hkv, d, causal_orders, plain_orders in shapes:
        for causal, orders in ((True, causal_orders), (False, plain_orders)):
            w = _workload(b, n, h, hkv, d, causal)
            for kv, q in orders:
                s = _sched(PREFILL_TILE, kv_order=kv, q_order=q)
                out.append(LongContextConfig("project", run_group(w), w, s, ncu=True))
    for b, n, h, hkv, d, causal in torch_shapes:
        w = _workload(b, n, h, hkv, d, causal)
        s = schedule_before_set43(w, H200_SMS)
        out.append(LongContextConfig("torch", run_group(w), w, s, ncu=True))
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "issue 18 second long-context held-out set (K/V trace L2): configurations fixed "
        "before they are measured (python -m gpusim.validation.long_context_heldout2 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("long_context_heldout2", doc, heldout2_configs(), what, argv=argv)


if __name__ == "__main__":
    raise SystemExit(main())
