"""The held-out set for the K/V reuse model (kv_reuse.py), fixed before it is measured.

    python -m gpusim.validation.long_context_heldout --write PATH   # the manifest (JSON)
    python -m gpusim.validation.long_context_heldout --list

The long-context sweep (``long_context_configs``: 16k-128k tokens, 16 heads, d 128) found
the engine's K/V misses wrong under the new walking orders and suggested the mechanism now
in :mod:`gpusim.engine.kv_reuse`; that sweep is its development set. This one judges it on
other lengths and shapes: 24k, 48k and 96k tokens; 8, 16 and 32 heads; d 64 and 128; GQA
(32 query heads over 8 K/V heads, 16 over 4); causal and not; both K/V orders and both
query orders (all four pairs where causal), the project's kernel (tile 128 x 64, 4 warps,
2 stages) and a few of PyTorch's flash runs (the schedule its backend runs). Every run's
DRAM bytes are counted by Nsight Compute, and every run is timed. Sized for one device
call of at most 300 s (36 runs of at most 0.12 s each).
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import (
    H200_SMS,
    PREFILL_TILE,
    LongContextConfig,
    _sched,
    set_command,
)
from gpusim.validation.torch_flash_schedule import schedule_before_set43
from gpusim.workload import Workload

#: (tokens, heads, K/V heads, head dim) of the project's runs, each causal in the four
#: orders and without the mask in one or two.
SHAPES = (
    (24576, 32, 32, 128),
    (49152, 8, 8, 128),
    (98304, 8, 8, 128),
    (98304, 16, 16, 64),
    (49152, 32, 8, 128),
)
#: Shapes run in fewer orders: (tokens, heads, K/V heads, head dim, causal orders).
FEW = (
    (49152, 32, 32, 64, (("forward", "first-first"), ("backward", "last-first"))),
    (98304, 16, 4, 128, (("forward", "first-first"), ("backward", "last-first"))),
)
#: PyTorch's flash backend on: (tokens, heads, K/V heads, head dim, causal).
TORCH = (
    (49152, 8, 8, 128, True),
    (98304, 8, 8, 128, True),
    (98304, 8, 8, 128, False),
    (49152, 32, 8, 128, True),
)
ORDERS = (
    ("forward", "last-first"),
    ("backward", "last-first"),
    ("forward", "first-first"),
    ("backward", "first-first"),
)


def _workload(n: int, h: int, hkv: int, d: int, causal: bool) -> Workload:
    return Workload(
        batch=1, heads=h, heads_kv=hkv, seq_len_q=n, seq_len_k=n, head_dim=d, dtype="bf16",
        causal=causal,
    )  # fmt: skip


def _project(w: Workload, kv_order: str, q_order: str) -> LongContextConfig:
    group = "gqa_prefill" if w.kv_heads != w.heads else "prefill"
    s = _sched(PREFILL_TILE, kv_order=kv_order, q_order=q_order)
    return LongContextConfig("project", group, w, s, ncu=True)


def heldout_configs() -> list[LongContextConfig]:
    """The held-out set in run order (36 runs: 32 of the project's kernel, 4 PyTorch's)."""
    out: list[LongContextConfig] = []
    for n, h, hkv, d in SHAPES:
        for kv, q in ORDERS:
            out.append(_project(_workload(n, h, hkv, d, True), kv, q))
        out.append(_project(_workload(n, h, hkv, d, False), "forward", "last-first"))
        if h == 8 or d == 64:
            out.append(_project(_workload(n, h, hkv, d, False), "backward", "first-first"))
    for n, h, hkv, d, orders in FEW:
        for kv, q in orders:
            out.append(_project(_workload(n, h, hkv, d, True), kv, q))
    for n, h, hkv, d, causal in TORCH:
        w = _workload(n, h, hkv, d, causal)
        group = "gqa_prefill" if hkv != h else "prefill"
        out.append(LongContextConfig("torch", group, w, schedule_before_set43(w, H200_SMS), True))
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "issue 18 K/V reuse held-out set: configurations fixed before they are measured "
        "(python -m gpusim.validation.long_context_heldout --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("long_context_heldout", doc, heldout_configs(), what, argv=argv)


if __name__ == "__main__":
    raise SystemExit(main())
