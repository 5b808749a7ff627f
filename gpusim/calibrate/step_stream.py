"""How long a step's tile takes to arrive: a tile stream that waits for each tile before it
asks for the next, against the tile's bytes, the SMs streaming, the CTAs on each and the work
between tiles.

    python -m gpusim.calibrate.step_stream --out FILE [--quick]
    python -m gpusim.calibrate.step_stream --table FILE   # a recorded run's step times

Kernel ``kernels/step_stream.cu``: each CTA (128 threads) walks its own slice of a buffer far
larger than the L2 with 16-byte ``cp.async.cg`` copies in the order an attention step asks
for K/V (flash2_tc.cu's staged loop: wait for tile t, issue tile t + STAGES - 1, work on tile
t), the work a spin of ``gap`` SM cycles. One CTA per SM on S SMs (dynamic shared memory past
half the SM's), or two on every SM. No attention code is in it. The question it answers for
the model: whether a load that waits its latency and moves its bytes at its share of the
DRAM (``gpusim.engine.load_latency``) is how a step's tile arrives when an SM keeps one or two
tiles in flight, as a decode's split grid does (held-out set 23's 46k-key decode: 126 CTAs
with one 16-KiB tile in flight each read 2.3 TB/s where the model streamed them at 3.1).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.record_table import print_table
from gpusim.calibrate.sources import compile_module, kernel_attributes

THREADS = 128
WORD_BYTES = 16
#: stages (tiles in flight while the CTA works: STAGES - 1) and tile sizes in 16-byte words
STAGES = (2, 3)
TILE_WORDS = (512, 1024, 2048, 4096)
#: SMs with one CTA each, then (every SM, 2): two CTAs on every SM
PLACEMENTS = ((8, 1), (16, 1), (33, 1), (66, 1), (99, 1), (116, 1), (132, 1), (132, 2))
#: SM cycles of spin after each tile (0: a bare stream; about 0.35 and 0.9 us at 1.7 GHz)
GAPS = (0, 600, 1500)
BUFFER_BYTES = 4 << 30
READ_BYTES_PER_CTA = 8 << 20
REPEATS = 5
QUICK_REPEATS = 3
#: shared memory the GPU reserves per block (sm_90), and a margin
RESERVED_BYTES = 1024
MARGIN_BYTES = 256


def kernel_name(stages: int, words: int) -> str:
    """The template instance of one stream shape."""
    return f"step_stream<{stages},{words}>"


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0."""
    return measure(make_context(import_cupy(), quick=quick))


def _dynamic_smem(smem_per_sm: int, ctas_per_sm: int) -> int:
    """Shared memory per CTA that lets exactly ``ctas_per_sm`` CTAs share an SM."""
    return smem_per_sm // ctas_per_sm - RESERVED_BYTES - MARGIN_BYTES


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every (stages, tile, placement, gap): median event time of the launches, the step."""
    cp = ctx.cp
    names = tuple(kernel_name(s, w) for s in STAGES for w in TILE_WORDS)
    mod = compile_module(cp, "step_stream.cu", names)
    props = cp.cuda.runtime.getDeviceProperties(0)
    smem_per_sm = int(props["sharedMemPerMultiprocessor"])
    src = cp.random.randint(1, 2**31, size=BUFFER_BYTES // 4, dtype=cp.int64).astype(cp.uint32)
    buf_words = BUFFER_BYTES // WORD_BYTES
    words_per_cta = READ_BYTES_PER_CTA // WORD_BYTES
    repeats = ctx.scale(REPEATS, QUICK_REPEATS)
    rows, kernels = [], {}
    launch = 0
    for stages in STAGES:
        for words in TILE_WORDS:
            name = kernel_name(stages, words)
            fn = mod.get_function(name)
            tile_bytes = words * WORD_BYTES
            for sms, per_sm in PLACEMENTS:
                dyn = _dynamic_smem(smem_per_sm, per_sm)
                if sms > ctx.sm_count or stages * tile_bytes > dyn:
                    continue
                fn.max_dynamic_shared_size_bytes = dyn
                kernels[name] = kernel_attributes(fn)
                ctas = sms * per_sm
                total_words = ctas * words_per_cta
                stamps = cp.zeros(4 * ctas, dtype=cp.uint64)
                out = cp.full(ctas * THREADS, cp.nan, dtype=cp.float32)
                for gap in GAPS:
                    times = []
                    for i in range(repeats + 1):  # the first launch warms up
                        # each launch reads a part of the buffer the last one did not
                        base = (launch * total_words) % (buf_words - total_words)
                        base -= base % words
                        launch += 1
                        args = (src, np.uint64(base), np.uint64(words_per_cta), np.int64(gap),
                                stamps, out)  # fmt: skip
                        a, b = cp.cuda.Event(), cp.cuda.Event()
                        a.record()
                        fn((ctas,), (THREADS,), args, shared_mem=dyn)
                        b.record()
                        b.synchronize()
                        if i:
                            times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
                    st = stamps.get().reshape(-1, 4).astype(np.float64)
                    cyc, ns = st[:, 1] - st[:, 0], st[:, 3] - st[:, 2]
                    med = float(np.median(times))
                    tiles = words_per_cta // words
                    moved = ctas * words_per_cta * WORD_BYTES
                    rows.append(
                        {
                            "stages": stages,
                            "tile_bytes": tile_bytes,
                            "sms": sms,
                            "ctas_per_sm": per_sm,
                            "gap_cycles": gap,
                            "tiles_per_cta": tiles,
                            "bytes_read": moved,
                            "median_s": med,
                            "times_s": times,
                            "bandwidth_bytes_per_s": moved / med,
                            "step_s": med / tiles,
                            "cta_median_ns": float(np.median(ns)),
                            "cta_max_ns": float(ns.max()),
                            "sm_clock_ghz": float(np.median(cyc / ns)),
                            "outputs_finite": bool(cp.isfinite(out).all()),
                        }
                    )
                    ctx.log(f"{name} S={sms}x{per_sm} gap={gap}: {moved / med / 1e12:.3f} TB/s, "
                            f"step {med / tiles * 1e6:.3f} us")  # fmt: skip
    return {"gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "smem_per_sm_bytes": smem_per_sm, "kernels": kernels, "rows": rows}  # fmt: skip


def table_text(record: dict[str, Any]) -> str:
    """The recorded run's step time (us) per row: stages, tile, gap by placement."""
    rows = record["rows"]
    places = sorted({(r["sms"], r["ctas_per_sm"]) for r in rows})
    head = "stages tile KiB gap cyc  " + " ".join(f"{f'{s}x{c}':>7}" for s, c in places)
    lines = [head]
    keys = sorted({(r["stages"], r["tile_bytes"], r["gap_cycles"]) for r in rows})
    for st, tb, gap in keys:
        got = {(r["sms"], r["ctas_per_sm"]): r for r in rows
               if (r["stages"], r["tile_bytes"], r["gap_cycles"]) == (st, tb, gap)}  # fmt: skip
        cells = " ".join(f"{got[p]['step_s'] * 1e6:7.3f}" if p in got else f"{'-':>7}"
                         for p in places)  # fmt: skip
        lines.append(f"{st:6d} {tb // 1024:8d} {gap:7d}  {cells}")
    lines.append("(step: a launch's median time over its tiles per CTA, in us)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON, or print a recorded run's table."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--table"] and len(argv) == 2:
        return print_table(Path(argv[1]), table_text, "step_stream")
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
