"""Memory latency by pointer chase: one thread, each load's address is the previous load's value.

Three chains: random over 4 MiB (L2 hits, after a warming pass), strided by 2 KiB
through fresh lines of a 1 GiB buffer (DRAM, one page-table entry serves 1024
steps), and random over 1 GiB (DRAM plus address-translation misses). The
profile's DRAM latency is the strided chain's: attention kernels read tiles in
order, so they pay DRAM latency but rarely a translation miss.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.stats import measurement

NAME = "latency"
#: Bytes written to evict the L2, as a multiple of its size (at least :data:`EVICT_MIN_BYTES`)
EVICT_L2_TIMES, EVICT_MIN_BYTES = 4, 256 << 20


def evict_l2(cp: Any) -> int:
    """Write a scratch buffer of several times the device's L2 so that no line a chain's
    construction left there survives; returns the bytes written."""
    l2 = int(cp.cuda.Device().attributes.get("L2CacheSize", 0))
    nbytes = max(EVICT_L2_TIMES * l2, EVICT_MIN_BYTES)
    scratch = cp.empty(nbytes // 4, dtype=cp.uint32)
    scratch.fill(1)
    cp.cuda.Device().synchronize()
    del scratch
    return nbytes


def _random_chain(cp: Any, total_bytes: int, stride_bytes: int) -> tuple[Any, int, int]:
    """One random cycle through all nodes ``stride_bytes`` apart: (buf, start, nodes)."""
    words = stride_bytes // 4
    nodes = total_bytes // stride_bytes
    order = cp.random.permutation(nodes).astype(cp.uint32)
    buf = cp.zeros(total_bytes // 4, dtype=cp.uint32)
    buf[order * words] = cp.roll(order, -1) * words
    return buf, int(order[0]) * words, nodes


def _strided_chain(cp: Any, total_bytes: int, stride_bytes: int) -> tuple[Any, int]:
    """A buffer whose node ``i`` points at node ``i + 1`` (wrapping); (buf, nodes)."""
    words = stride_bytes // 4
    nodes = total_bytes // stride_bytes
    buf = cp.zeros(total_bytes // 4, dtype=cp.uint32)
    idx = cp.arange(nodes, dtype=cp.uint32)
    buf[idx * words] = ((idx + 1) % nodes) * words
    return buf, nodes


def _chase(
    ctx: BenchContext, kernel: Any, buf: Any, starts: list[int | None], warm: int, steps: int
) -> dict[str, list[float]]:
    """One chase per start (``None``: go on from where the last chase stopped).

    Returns per-step seconds (global timer) and cycles (clock64).
    """
    cp = ctx.cp
    out = cp.zeros(3, dtype=cp.uint64)
    ns, cycles = [], []
    last = 0
    for start in starts:
        begin = last if start is None else start
        kernel((1,), (1,), (buf, np.uint32(begin), np.int32(warm), np.int32(steps), out))
        host = out.get()
        cycles.append(int(host[0]) / steps)
        ns.append(int(host[1]) / steps)
        last = int(host[2])
    return {"s": [x * 1e-9 for x in ns], "cycles": cycles}


def run(ctx: BenchContext) -> dict[str, Any]:
    """Measure L2 and DRAM load-to-use latency with dependent loads from one thread."""
    cp = ctx.cp
    kernel = compile_module(cp, "chase.cu").get_function("chase")
    repeats = ctx.scale(7, 2)
    steps = ctx.scale(20000, 2000)
    values: dict[str, Any] = {}

    def record(key: str, res: dict[str, list[float]], method: str, **extra: object) -> None:
        cyc = sorted(res["cycles"])
        values[key] = measurement(res["s"], "s", method, cycles_median=cyc[len(cyc) // 2], **extra)
        ctx.log(
            f"latency {key}: {values[key]['value'] * 1e9:.1f} ns ({cyc[len(cyc) // 2]:.0f} cycles)"
        )

    # L2: 4 MiB (well over L1, well under L2), 128-byte lines; warming pass covers every node.
    l2_bytes = 4 << 20
    buf, start, nodes = _random_chain(cp, l2_bytes, 128)
    res = _chase(ctx, kernel, buf, [start] * repeats, warm=nodes, steps=steps)
    record(
        "l2_latency_s",
        res,
        "random chase over 4 MiB, 128 B apart, ld.global.cg, after a warming pass",
        buffer_bytes=l2_bytes,
        steps=steps,
    )
    del buf

    # DRAM, strided: each repeat starts 64 MiB further on, so no repeat finds its lines in the L2.
    dram_bytes = ctx.scale(1 << 30, 256 << 20)
    stride = 2048
    buf, nodes = _strided_chain(cp, dram_bytes, stride)
    evicted = evict_l2(cp)  # the chain's own lines out of the L2 (see the module's note)
    window = (64 << 20) // stride
    starts = [((r * window) % nodes) * (stride // 4) for r in range(repeats)]
    res = _chase(ctx, kernel, buf, starts, warm=16, steps=min(steps, window - 16))
    record(
        "dram_latency_s",
        res,
        "chase through fresh 2 KiB-strided lines of a 1 GiB buffer, ld.global.cg "
        "(few translation misses), the L2 evicted after building the chain",
        buffer_bytes=dram_bytes,
        stride_bytes=stride,
        l2_evicted_bytes=evicted,
    )
    del buf

    # DRAM, random: includes address-translation misses; kept for comparison.
    buf, start, nodes = _random_chain(cp, dram_bytes, 256)
    evict_l2(cp)
    # Each repeat goes on along the cycle, so no repeat meets lines an earlier one left in the L2.
    res = _chase(ctx, kernel, buf, [start] + [None] * (repeats - 1), warm=1000, steps=steps)
    record(
        "dram_random_latency_s",
        res,
        "random chase over 1 GiB, 256 B apart, ld.global.cg, the L2 evicted after building",
        buffer_bytes=dram_bytes,
    )
    del buf
    cp.get_default_memory_pool().free_all_blocks()
    return {
        "values": values,
        "details": {"repeats": repeats, "steps": steps},
        "kernels": {"chase": kernel_attributes(kernel)},
    }
