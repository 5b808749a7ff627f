"""Co-resident CTAs entered into one loop some cycles apart: do they keep the offset?
(kernels/cta_phase.cu)

    python -m gpusim.calibrate.cta_phase --out FILE [--quick]

The SM core model replays a compiled loop for every CTA an SM holds
(:func:`gpusim.engine.core_model.resident_step_cycles`). The replay is deterministic: CTAs
that start some cycles apart keep that offset, and the offset moves a step by up to 25 %, so
the model averages over every offset. Whether the SM keeps an offset, or draws its CTAs
into one phase, is a fact about its schedulers that no attention timing should decide. This
benchmark asks it of the smem_overlap loops (ldmatrix, mma.sync, a softmax-like pass, a
barrier per iteration; no attention code): each loop alone (one CTA of 4 warps per SM),
then 2 and 4 such CTAs per SM, the CTA of rank r on its SM entering the loop r x ``delay``
cycles after the first, ``delay`` a fraction (:data:`FRACTIONS`) of the lone CTA's
iteration over the CTA count (the offsets the model averages over). Per row: the cycles one
iteration of every CTA takes (the slowest CTA of each SM that holds exactly that many, the
median over SMs and launches), and the offsets the CTAs really entered at.
"""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.clocks import clock_hz_from_stamps
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.smem_overlap import LOOPS
from gpusim.calibrate.sources import compile_module, kernel_attributes

THREADS = 128  # one warp per scheduler per CTA
CTAS = (2, 4)
#: offsets between consecutive CTAs of an SM, in lone iterations over the CTA count
FRACTIONS = (0.0, 0.25, 0.5, 0.75)
ITERS = 4000
REPEATS = 5
MAX_SMID = 1024  # room for the per-SM counters, past any SM id


def loop_name(nld: int, per_ld: int, nreg: int, rounds: int) -> str:
    """The template instance of one loop."""
    return f"cta_phase<{nld},{per_ld},{nreg},{rounds}>"


def _launch(ctx: BenchContext, kernel: Any, bufs: dict, ctas: int, iters: int, delay: int):
    """One launch of ``ctas`` CTAs per SM: each CTA's (SM, rank, clk0, clk1)."""
    cp = ctx.cp
    grid = ctas * ctx.sm_count
    bufs["ranks"].fill(0)
    bufs["first"].fill(0)
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)
    where = cp.zeros(2 * grid, dtype=cp.uint32)
    args = (bufs["operands"], np.int32(iters), np.uint32(0), bufs["out"], stamps, bufs["ranks"],
            bufs["first"], np.int64(delay), where)  # fmt: skip
    kernel((grid,), (THREADS,), args)
    cp.cuda.runtime.deviceSynchronize()
    flat, loc = stamps.get().tolist(), where.get().tolist()
    blocks = [(loc[2 * b], loc[2 * b + 1], flat[4 * b], flat[4 * b + 1]) for b in range(grid)]
    return blocks, flat


def _per_sm(blocks: list[tuple], ctas: int, iters: int) -> tuple[list[float], list[list[int]]]:
    """Per SM holding exactly ``ctas`` CTAs: the slowest CTA's cycles per iteration, and the
    entry offsets of ranks 1.. after rank 0."""
    by_sm: dict[int, list[tuple]] = {}
    for sm, rank, c0, c1 in blocks:
        by_sm.setdefault(sm, []).append((rank, c0, c1))
    cycles, offsets = [], []
    for members in by_sm.values():
        if len(members) != ctas:
            continue
        members.sort()
        cycles.append(max((c1 - c0) / iters for _r, c0, c1 in members))
        offsets.append([c0 - members[0][1] for _r, c0, _c1 in members[1:]])
    return cycles, offsets


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every loop alone, then at 2 and 4 CTAs per SM at every offset fraction."""
    cp = ctx.cp
    names = tuple(loop_name(*lp) for lp in LOOPS)
    mod = compile_module(cp, "cta_phase.cu", names)
    n = max(CTAS) * ctx.sm_count * THREADS
    vals = cp.random.uniform(0.25, 1.0, size=12 * max(n, 4096), dtype=cp.float32)
    bufs = {
        "operands": vals.astype(cp.float16).view(cp.uint32),
        "out": cp.full(n, cp.nan, dtype=cp.float32),
        "ranks": cp.zeros(MAX_SMID, dtype=cp.uint32),
        "first": cp.zeros(MAX_SMID, dtype=cp.uint64),
    }
    iters, repeats = ctx.scale(ITERS, 400), ctx.scale(REPEATS, 2)
    rows, kernels = [], {}
    for lp, name in zip(LOOPS, names, strict=True):
        kernel = mod.get_function(name)
        kernels[name] = kernel_attributes(kernel)
        params = {"nld": lp[0], "mma_per_ld": lp[1], "nmma_reg": lp[2], "rounds": lp[3]}
        _launch(ctx, kernel, bufs, 1, iters // 10, 0)  # warm-up
        lone_runs = []
        for _ in range(repeats):
            blocks, flat = _launch(ctx, kernel, bufs, 1, iters, 0)
            lone_runs.append(statistics.median((c1 - c0) / iters for *_x, c0, c1 in blocks))
        lone = statistics.median(lone_runs)
        rows.append(params | {"ctas_per_sm": 1, "fraction": 0.0, "delay_cycles": 0,
                              "cycles_per_iteration": lone,
                              "sm_clock_hz": clock_hz_from_stamps(flat)["median_hz"]})  # fmt: skip
        ctx.log(f"{name} alone: {lone:.1f} cycles/iteration")
        for ctas in CTAS:
            for frac in FRACTIONS:
                delay = round(frac * lone / ctas)
                cyc, offs, skipped = [], [], 0
                for _ in range(repeats):
                    blocks, flat = _launch(ctx, kernel, bufs, ctas, iters, delay)
                    c, o = _per_sm(blocks, ctas, iters)
                    cyc += c
                    offs += o
                    skipped += ctx.sm_count - len(c)
                offsets = [statistics.median(o[r] for o in offs) for r in range(ctas - 1)]
                row = params | {
                    "ctas_per_sm": ctas,
                    "fraction": frac,
                    "delay_cycles": delay,
                    "cycles_per_iteration": statistics.median(cyc),
                    "cycles_per_iteration_spread": [min(cyc), max(cyc)],
                    "entry_offsets_cycles": offsets,
                    "sms_used": len(cyc),
                    "sms_skipped": skipped,
                    "sm_clock_hz": clock_hz_from_stamps(flat)["median_hz"],
                }
                ctx.log(f"{name} {ctas} CTAs, offset {frac:.2f}: {row['cycles_per_iteration']:.1f} "
                        f"cycles/iteration (entered {offsets})")  # fmt: skip
                rows.append(row)
    finite = bool(cp.isfinite(bufs["out"][: ctx.sm_count * THREADS]).all())
    ctx.log(f"outputs finite: {finite}")
    return {
        "gpu": ctx.gpu_name,
        "date": ctx.date,
        "iters": iters,
        "repeats": repeats,
        "threads": THREADS,
        "kernels": kernels,
        "outputs_finite": finite,
        "rows": rows,
    }


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0."""
    return measure(make_context(import_cupy(), quick=quick))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
