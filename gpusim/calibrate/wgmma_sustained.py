"""The SM clock under sustained wgmma load: back-to-back launches of the heaviest product loop
of :mod:`gpusim.calibrate.wgmma` (m64n256k16, two warpgroups per SM) for seconds, nvidia-smi
polled beside them; the clock of the first and of the last launch from the blocks' own stamps.
Part of ``python -m gpusim.calibrate.wgmma`` (its ``sustained`` record); the clock of short
bursts after an L2 flush is :mod:`gpusim.calibrate.wgmma_burst`'s.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from gpusim.calibrate.clocks import SmiSampler, clock_hz_from_stamps
from gpusim.calibrate.wgmma import Bench, U, _flop, _smem, tput_name


def sustained_clock(b: Bench, seconds: float) -> dict[str, Any]:
    """Back-to-back launches of the heaviest product loop for ``seconds``; the last one's clock."""
    cp, ctx = b.cp, b.ctx
    n, groups = 256, 2
    smem = _smem(n, groups)
    f = b.fn(tput_name(n, 1, 0, 1, 0), smem)
    grid = ctx.sm_count
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)
    iters = 20000

    def launch(it: int) -> None:
        f(
            (grid,),
            (128 * groups,),
            (
                b.init["bf16"],
                np.int32(b.words),
                np.int32(it),
                np.int32(0b0101),
                np.int32(1),
                b.out,
                stamps,
            ),
            shared_mem=smem,
        )

    launch(100)
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    launch(iters)
    cp.cuda.Device().synchronize()
    one = time.perf_counter() - t0
    first = clock_hz_from_stamps(stamps.get().tolist())
    count = max(1, int(seconds / max(one, 1e-4)))
    with SmiSampler(period_ms=100) as smi:
        t0 = time.perf_counter()
        for _ in range(count):
            launch(iters)
        cp.cuda.Device().synchronize()
        wall = time.perf_counter() - t0
    last = clock_hz_from_stamps(stamps.get().tolist())
    flop = count * iters * groups * U * _flop(n) * grid
    res = {
        "kernel": tput_name(n, 1, 0, 1, 0),
        "n": n,
        "warpgroups": groups,
        "launches": count,
        "iters": iters,
        "wall_s": wall,
        "first_launch_clock": first,
        "last_launch_clock": last,
        "flops_per_s_over_wall": flop / wall,
        "smi_fields": list(smi.fields),
        "smi_error": smi.error,
        "smi_samples": [[round(ts, 3), s] for ts, s in smi.samples],
    }
    ctx.log(
        f"sustained {count} launches {wall:.2f} s: clock first {first['median_hz'] / 1e6:.0f} "
        f"last {last['median_hz'] / 1e6:.0f} MHz, {flop / wall / 1e12:.0f} TFLOP/s"
    )
    return res
