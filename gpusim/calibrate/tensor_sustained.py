"""The SM clock of mma.sync work sustained for seconds, and under a benchmark's protocol.

    python -m gpusim.calibrate.tensor_sustained --out FILE      (on the GPU)
    python -m gpusim.calibrate.tensor_sustained --table FILE

The profile's ``sm_clock_tensor_load_hz`` (1814 MHz on the H200) is the clock of the tensor
benchmark's last launch, a fraction of a second of products. Attention kernels at long
context are timed for seconds (2 warm-up and 10 timed launches of 60-300 ms each, an L2
flush before each), and wgmma products sustained for 3 s ran at 1620 MHz where their first
launch ran at 1740 (``sm_clock_wgmma_load_hz``). This measures the same for mma.sync, with
the tensor benchmark's own loop (``mma_loop<bf16, 8 accumulators>`` of kernels/tensor.cu,
128 threads, 2 CTAs per SM, no attention in it), each block stamping clock64 and
%globaltimer:

- ``sustained``: back-to-back launches of about 50 ms for 5 s after 2 s idle, the clock of
  every launch against the time since the first;
- ``protocol``: for launches of about 0.2, 2, 20, 60 and 200 ms, after 2 s idle, 2 warm-up
  and 10 timed launches each after a 256 MB L2 flush (the validation sweeps' protocol),
  the clock of each timed launch.

Fed to nothing by this module: the record says whether the clock under a long benchmark is
the profile's.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from gpusim.calibrate.clocks import protocol_clocks, sustained_clocks
from gpusim.calibrate.record_table import record_main

THREADS, BLOCKS_PER_SM, KERNEL = 128, 2, "mma_loop<1,8>"
FLUSH_BYTES = 256 << 20
SUSTAIN_S, SUSTAIN_LAUNCH_S, IDLE_S = 5.0, 0.05, 2.0
PROTOCOL_S = (2e-4, 2e-3, 2e-2, 6e-2, 2e-1)
WARMUP, TIMED = 2, 10


def measure() -> dict[str, Any]:
    """Both protocols on device 0 (see the module's docstring)."""
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.sources import compile_module, kernel_attributes

    mod = compile_module(cp, "tensor.cu", (KERNEL,))
    fn = mod.get_function(KERNEL)
    props = cp.cuda.runtime.getDeviceProperties(0)
    grid = int(props["multiProcessorCount"]) * BLOCKS_PER_SM
    n = grid * THREADS
    vals = cp.random.uniform(0.25, 1.0, size=12 * n, dtype=cp.float32)
    hi = (vals.view(cp.uint32) >> 16).astype(cp.uint32)
    operands = hi[0::2] | (hi[1::2] << 16)
    out = cp.zeros(n, dtype=cp.float32)
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)

    def launch(iters: int) -> None:
        fn((grid,), (THREADS,), (operands, np.int32(iters), out, stamps))

    start, end = cp.cuda.Event(), cp.cuda.Event()

    def timed(iters: int) -> float:
        """Milliseconds of one launch between CUDA events."""
        start.record()
        launch(iters)
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)

    launch(1000)
    cp.cuda.Device().synchronize()
    per_iter_s = timed(20000) / 1e3 / 20000
    if not bool(cp.isfinite(out).all()):
        raise RuntimeError("mma_loop: non-finite output")

    time.sleep(IDLE_S)
    iters = max(1, int(SUSTAIN_LAUNCH_S / per_iter_s))
    sustained = sustained_clocks(cp, lambda: timed(iters), stamps, SUSTAIN_S)
    protocol = []
    for target in PROTOCOL_S:
        n = max(1, int(target / per_iter_s))
        run = protocol_clocks(cp, lambda n=n: timed(n), stamps, flush, WARMUP, TIMED, IDLE_S)
        protocol.append({"target_s": target, "iters": n, **run})
    return {
        "kind": "gpusim.tensor_sustained",
        "kernel": KERNEL,
        "kernel_attributes": kernel_attributes(fn),
        "threads": THREADS,
        "grid": grid,
        "per_iter_s": per_iter_s,
        "sustained": sustained,
        "protocol": protocol,
    }


def table(doc: dict[str, Any]) -> str:
    """The record as Markdown: the sustained clock by second, the protocol's by length."""
    if doc.get("kind") != "gpusim.tensor_sustained":
        raise ValueError("not a tensor_sustained record")
    lines = ["| sustained for | launches | median clock MHz |", "|---|---|---|"]
    rows = doc["sustained"]
    for lo in range(int(max(r["t_s"] for r in rows)) + 1):
        part = [r["clock_hz"] for r in rows if lo <= r["t_s"] < lo + 1]
        if part:
            lines.append(f"| {lo}-{lo + 1} s | {len(part)} | {statistics.median(part) / 1e6:.0f} |")
    lines += ["", "| launch ms | timed clock MHz (median) | min | max |", "|---|---|---|---|"]
    for p in doc["protocol"]:
        c = [r["clock_hz"] for r in p["launches"] if r["timed"]]
        lines.append(
            f"| {p['median_ms']:.2f} | {p['median_clock_hz'] / 1e6:.0f} | {min(c) / 1e6:.0f} "
            f"| {max(c) / 1e6:.0f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return record_main(argv, __doc__.split("\n\n")[0], measure, table, "tensor_sustained")


if __name__ == "__main__":
    raise SystemExit(main())
