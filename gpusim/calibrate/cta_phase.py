"""Co-resident CTAs entered into one loop some cycles apart: do they keep the offset?
(kernels/cta_phase.cu)

    python -m gpusim.calibrate.cta_phase --out FILE          # measure (about 10 s)
    python -m gpusim.calibrate.cta_phase --table FILE        # the offsets' effect, by loop
    python -m gpusim.calibrate.cta_phase --record FILE --profile P   # co_resident_phases into P

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

from gpusim.calibrate.clocks import clock_hz_from_stamps
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.record_table import record_main
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


def module_and_buffers(ctx: BenchContext, ctas: int) -> tuple[tuple[str, ...], Any, dict]:
    """The loops' names, their compiled module, and the buffers a launch of up to ``ctas``
    CTAs per SM needs (random fp16 operands, a NaN-poisoned output, the per-SM counters)."""
    cp = ctx.cp
    names = tuple(loop_name(*lp) for lp in LOOPS)
    mod = compile_module(cp, "cta_phase.cu", names)
    n = ctas * ctx.sm_count * THREADS
    vals = cp.random.uniform(0.25, 1.0, size=12 * max(n, 4096), dtype=cp.float32)
    bufs = {
        "operands": vals.astype(cp.float16).view(cp.uint32),
        "out": cp.full(n, cp.nan, dtype=cp.float32),
        "ranks": cp.zeros(MAX_SMID, dtype=cp.uint32),
        "first": cp.zeros(MAX_SMID, dtype=cp.uint64),
    }
    return names, mod, bufs


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every loop alone, then at 2 and 4 CTAs per SM at every offset fraction."""
    cp = ctx.cp
    names, mod, bufs = module_and_buffers(ctx, max(CTAS))
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


def run() -> dict[str, Any]:
    """The stand-alone run on device 0."""
    return measure(make_context(import_cupy()))


def groups(doc: dict[str, Any]) -> dict[tuple, list[dict[str, Any]]]:
    """The rows of each (loop, CTAs per SM) whose CTAs were all resident together: an entry
    offset past a lone iteration means a CTA that waited for another to finish (the SM had
    no room for it), not one that entered late."""
    lone = {_loop(r): r["cycles_per_iteration"] for r in doc["rows"] if r["ctas_per_sm"] == 1}
    out: dict[tuple, list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        if r["ctas_per_sm"] > 1:
            out.setdefault((_loop(r), r["ctas_per_sm"]), []).append(r)
    return {
        k: rows
        for k, rows in out.items()
        if all(max(r["entry_offsets_cycles"]) < lone[k[0]] for r in rows)
    }


def _loop(r: dict[str, Any]) -> str:
    return loop_name(r["nld"], r["mma_per_ld"], r["nmma_reg"], r["rounds"])


def spreads(doc: dict[str, Any]) -> dict[tuple, float]:
    """How far each group's cycles per iteration move with the entry offset (max / min - 1)."""
    out = {}
    for k, rows in groups(doc).items():
        c = [r["cycles_per_iteration"] for r in rows]
        out[k] = max(c) / min(c) - 1
    return out


#: A group "keeps no offset" when its steady cycles move less than this with the offset.
LOCKSTEP_SPREAD = 0.01


def co_resident_phases(doc: dict[str, Any]) -> int:
    """The core replay's ``co_resident_phases``: 1 (co-resident CTAs replayed in one phase)
    when no group's steady cycles move by :data:`LOCKSTEP_SPREAD` with the offset its CTAs
    entered at; a record where the offset matters gives no such fact (an error)."""
    s = spreads(doc)
    if not s:
        raise ValueError("the record has no co-resident groups")
    kept = {f"{k[0]} x{k[1]}": round(v, 4) for k, v in s.items() if v > LOCKSTEP_SPREAD}
    if kept:
        raise ValueError(f"these groups keep their entry offsets: {kept}")
    return 1


def table(doc: dict[str, Any]) -> str:
    """Measured cycles per iteration by entry offset, and each group's spread."""
    lines = ["| loop | CTAs per SM | cycles per iteration by offset (0, 0.25, 0.5, 0.75) "
             "| spread |", "|---|---|---|---|"]  # fmt: skip
    for (loop, ctas), rows in groups(doc).items():
        c = [r["cycles_per_iteration"] for r in rows]
        cells = ", ".join(f"{x:.1f}" for x in c)
        lines.append(f"| {loop} | {ctas} | {cells} | {max(c) / min(c) - 1:.2%} |")
    return "\n".join(lines)


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with :func:`co_resident_phases` in its ``sass_core_cycles`` (which it
    must have) and a header line naming the record."""
    from gpusim.calibrate.profile_patch import add_core_cycles

    mark = "; co_resident_phases: python -m gpusim.calibrate.cta_phase"
    values = {"co_resident_phases": co_resident_phases(doc)}
    return add_core_cycles(profile_text, values, mark, doc.get("date"),
                           f"# co-resident CTAs' phase: {record_path}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    return record_main(
        argv, __doc__.split("\n\n")[0], run, table, "cta_phase", apply=apply,
        field="sass_core_cycles' co_resident_phases",
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
