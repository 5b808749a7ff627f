"""The SM clock under an attention step's load on green-context partitions of the GPU.

    python -m gpusim.validation.partition_clock --out FILE      (on the GPU)
    python -m gpusim.validation.partition_clock --table FILE

The profiles run tensor-core kernels at the clock measured under an attention step's load on
the whole GPU (``sm_clock_stream_load_hz``: load_clock's products, softmax and tiles
streamed from the L2 on every SM, where the H200 sits at its 700 W power cap). A partition
of 8 to 72 SMs (``--sm-count``) draws far less power; whether its SMs then run faster is a
fact the partition sets never measured (reports/partitions/README.md: "the clocks of a
partition under load were not measured"). This runs load_clock's kernel (no attention code:
``kernels/load_clock.cu``, two CTAs per SM of the partition) on green contexts of each size,
under the timing harness's protocol (1 s idle, 2 warm-up and 10 timed launches of about 2 ms
and of about 60 ms, each after a 256 MB L2 flush) and back to back for 2 s, and reads each
launch's clock from its blocks' clock64/%globaltimer stamps; nvidia-smi's power beside.
"""

from __future__ import annotations

import functools
import statistics
import time
from typing import Any

from gpusim.calibrate.clocks import SmiSampler, protocol_clocks, smi_static, sustained_clocks
from gpusim.calibrate.load_clock import (
    BLOCKS_PER_SM,
    FLUSH_BYTES,
    L2_BUF_BYTES,
    MIX_ROUNDS,
    MMA_ROUNDS,
    THREADS,
    TILE_BYTES,
)
from gpusim.calibrate.record_table import record_main

KIND = "gpusim.partition_clock"
#: The partition sizes of the partition sets (the driver grants multiples of 8 on the H200).
SM_COUNTS = (8, 16, 32, 72, 132)
#: (name, tiles streamed from the L2, products, softmax): two of load_clock's variants
VARIANTS = (("products+softmax+L2 stream", True, True, True), ("products", False, True, False))
PROTOCOL_S = (2e-3, 6e-2)
WARMUP, TIMED, IDLE_S, SUSTAIN_S, SUSTAIN_LAUNCH_S = 2, 10, 1.0, 2.0, 0.05


def measure(ctx: Any = None) -> dict[str, Any]:
    """Every variant's clocks on every partition size of :data:`SM_COUNTS` (device 0)."""
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.sources import compile_module, kernel_attributes
    from gpusim.kernels.green_context import open_partition

    mod = compile_module(cp, "load_clock.cu")
    fn = mod.get_function("load_clock")
    smem = 2 * TILE_BYTES
    fn.max_dynamic_shared_size_bytes = smem
    buf = cp.random.uniform(-1.0, 1.0, size=L2_BUF_BYTES // 2, dtype=cp.float32).astype(cp.float16)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
    parts = []
    with SmiSampler(period_ms=50) as smi:
        for n in SM_COUNTS:
            part = open_partition(n)
            grid = part.sm_count * BLOCKS_PER_SM
            out = cp.zeros(grid * THREADS, dtype=cp.float32)
            stamps = cp.zeros(4 * grid, dtype=cp.uint64)
            records = []
            with part.current():
                for name, streamed, products, softmax in VARIANTS:
                    args = (np.uint64(buf.nbytes // TILE_BYTES), np.int32(streamed),
                            np.int32(MMA_ROUNDS if products else 0),
                            np.int32(MIX_ROUNDS if softmax else 0))  # fmt: skip

                    launch = _launcher(cp, fn, grid, (buf, *args), stamps, out, smem)
                    launch(64)
                    per_tile_s = launch(2048) / 1e3 / 2048
                    if not bool((out == 1.0).all()):
                        raise RuntimeError(f"partition_clock {name}: non-finite accumulators")
                    protocol = []
                    for target in PROTOCOL_S:
                        k = max(1, int(target / per_tile_s))
                        m0 = time.monotonic()
                        run = protocol_clocks(
                            cp, functools.partial(launch, k), stamps, flush, WARMUP, TIMED, IDLE_S
                        )
                        run["smi"] = smi.window(m0 + IDLE_S, time.monotonic())
                        protocol.append({"target_s": target, "tiles": k, **run})
                    time.sleep(IDLE_S)
                    m0 = time.monotonic()
                    tiles = max(1, int(SUSTAIN_LAUNCH_S / per_tile_s))
                    held = functools.partial(launch, tiles)
                    sustained = sustained_clocks(cp, held, stamps, SUSTAIN_S)
                    records.append(
                        {"variant": name, "stream": "l2" if streamed else None,
                         "products": products, "softmax": softmax,
                         "per_tile_s": per_tile_s, "protocol": protocol, "sustained": sustained,
                         "smi_sustained": smi.window(m0, time.monotonic())}
                    )  # fmt: skip
                    print(f"partition_clock: {part.sm_count} SMs, {name}: "
                          f"{row(records[-1])}", flush=True)  # fmt: skip
            parts.append({"partition": part.as_dict(), "grid": grid, "variants": records})
            part.close()
    return {
        "kind": KIND,
        "kernel": "load_clock",
        "kernel_attributes": kernel_attributes(fn),
        "threads": THREADS,
        "blocks_per_sm": BLOCKS_PER_SM,
        "tile_bytes": TILE_BYTES,
        "mma_rounds": MMA_ROUNDS,
        "mix_rounds": MIX_ROUNDS,
        "smi_after": smi_static(),
        "partitions": parts,
    }


def _launcher(cp: Any, fn: Any, grid: int, head: tuple, stamps: Any, out: Any, smem: int):
    """``launch(tiles)``: one load_clock launch on the current stream, its CUDA-event ms."""
    import numpy as np

    start, end = cp.cuda.Event(), cp.cuda.Event()
    buf, n_buf_tiles, *flags = head

    def launch(tiles: int) -> float:
        start.record()
        fn((grid,), (THREADS,), (buf, n_buf_tiles, np.int32(tiles), *flags, stamps, out),
           shared_mem=smem)  # fmt: skip
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end)

    return launch


def protocol_clock_hz(rec: dict[str, Any]) -> float:
    """A variant's clock under the timing protocol: the median over the timed launches of
    every protocol length (as ``sm_clock_stream_load_hz`` is read from load_clock)."""
    return statistics.median(
        x["clock_hz"] for p in rec["protocol"] for x in p["launches"] if x["timed"]
    )


def row(rec: dict[str, Any]) -> str:
    proto = " | ".join(f"{p['median_clock_hz'] / 1e6:.0f}" for p in rec["protocol"])
    late = [r["clock_hz"] for r in rec["sustained"] if r["t_s"] >= 1.0] or [
        r["clock_hz"] for r in rec["sustained"]
    ]
    held = f"{statistics.median(late) / 1e6:.0f}" if late else "-"
    watts = rec.get("smi_sustained", {}).get("power_w", {}).get("median")
    return (
        f"{proto} | {held} | {protocol_clock_hz(rec) / 1e6:.0f} | "
        f"{rec['per_tile_s'] * 1e6:.2f} | {f'{watts:.0f}' if watts is not None else '-'}"
    )


def table(doc: dict[str, Any]) -> str:
    """The record as Markdown: one row per partition size and variant."""
    if doc.get("kind") != KIND:
        raise ValueError("not a partition_clock record")
    lines = [
        "| SMs | load | protocol 2 ms MHz | protocol 60 ms MHz | back to back 1-2 s MHz "
        "| protocol, all timed launches MHz | us per tile | power W (median, back to back) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in doc["partitions"]:
        for r in p["variants"]:
            lines.append(f"| {p['partition']['sm_count']} | {r['variant']} | {row(r)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    return record_main(argv, __doc__.split("\n\n")[0], measure, table, "partition_clock")


if __name__ == "__main__":
    raise SystemExit(main())
