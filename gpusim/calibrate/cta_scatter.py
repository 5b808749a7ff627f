"""How far identical CTAs drift apart, and how SMs differ in speed (kernels/cta_scatter.cu).

``gpusim calibrate`` runs it as its ``cta_scatter`` benchmark (``--quick``: only the
:data:`STEP_LOOP`); on its own: ``python -m gpusim.calibrate.cta_scatter --out FILE``. Each
loop (tile loads and products as in an attention step, products alone, loads alone from an
L2-resident or a DRAM-sized buffer) runs a grid of many waves of identical CTAs at two CTAs
per SM, three times; every CTA records its SM and its start and end (``%globaltimer``).
:func:`summary` says how much the SMs' mean CTA durations differ, whether the same SMs are
slow in every repeat (a lasting speed of the SM, not noise), and how much CTAs of one SM
scatter around their SM's mean. The engine runs identical CTAs in lockstep unless told how
SMs differ; this is where it is told.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.sources import compile_module, kernel_attributes

#: (name, NLD, MMA_PER_LD, NFILL, source MiB) of each loop
LOOPS = (
    ("step_l2", 32, 2, 8, 8),  # loads from an 8-MiB set every CTA shares, and products
    ("products", 32, 2, 0, 8),
    ("loads_l2", 4, 1, 8, 8),
    ("loads_dram", 4, 1, 8, 1024),
)
#: CTAs per SM (forced by the dynamic shared memory asked for) and waves of the grid
CTAS_PER_SM = 2
WAVES = 8
REPEATS = 3
THREADS = 128
#: iterations per CTA (about 0.1-0.3 ms each, in the range of attention CTAs' lifetimes)
ITERS = 400
#: The loop whose scatter stands for a kernel's CTAs: tile loads and products, as a step.
STEP_LOOP = "step_l2"


def loop_name(nld: int, per_ld: int, nfill: int, kernel: str = "cta_scatter") -> str:
    """The template instance of one loop (of ``kernel``: its source is ``<kernel>.cu``)."""
    return f"{kernel}<{nld},{per_ld},{nfill}>"


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0 (``--quick``: the suite's quick variant)."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext, loops: tuple = LOOPS, kernel: str = "cta_scatter") -> dict[str, Any]:
    """Every loop (:data:`LOOPS`, or ``loops`` of that form), ``REPEATS`` launches each: per
    CTA its SM, start and end (ns)."""
    cp = ctx.cp
    names = tuple(loop_name(nld, per, nf, kernel) for _n, nld, per, nf, _m in loops)
    mod = compile_module(cp, f"{kernel}.cu", names)
    words = (max(m for *_x, m in loops) << 20) // 16
    src = cp.random.randint(0, 2**31, size=4 * words, dtype=cp.int64).astype(cp.uint32)
    grid = ctx.sm_count * CTAS_PER_SM * WAVES
    out = cp.full(grid * THREADS, cp.nan, dtype=cp.float32)  # poisoned: every thread writes
    smem_per_sm = int(cp.cuda.runtime.getDeviceProperties(0)["sharedMemPerMultiprocessor"])
    # Dynamic shared memory so that exactly CTAS_PER_SM fit (static 32 KiB + this + 1 KiB
    # reserved per block must exceed a third of the SM).
    dyn = smem_per_sm // (CTAS_PER_SM + 1) - 32 * 1024
    iters = ITERS
    launches, kernels = [], {}
    # Quick: only the loop the profile's scatter comes from, at full length (a shorter CTA
    # would scatter differently); the others cost compile time, not GPU time.
    for name, nld, per, nfill, mib in [lp for lp in loops if not ctx.quick or lp[0] == STEP_LOOP]:
        fn = mod.get_function(loop_name(nld, per, nfill, kernel))
        fn.max_dynamic_shared_size_bytes = dyn
        kernels[loop_name(nld, per, nfill, kernel)] = kernel_attributes(fn)
        mask = np.uint64((mib << 20) // 16 - 1)
        for rep in range(REPEATS):
            stamps = cp.zeros(3 * grid, dtype=cp.uint64)
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn(
                (grid,),
                (THREADS,),
                (src, mask, np.int32(iters), np.uint32(0), out, stamps),
                shared_mem=dyn,
            )
            end.record()
            end.synchronize()
            s = cp.asnumpy(stamps).reshape(grid, 3)
            t0 = int(s[:, 1].min())
            launches.append(
                {
                    "loop": name,
                    "nld": nld,
                    "mma_per_ld": per,
                    "nfill": nfill,
                    "source_mib": mib,
                    "repeat": rep,
                    "grid": grid,
                    "iters": iters,
                    "dynamic_smem_bytes": dyn,
                    "kernel_ms": cp.cuda.get_elapsed_time(start, end),
                    "smid": s[:, 0].astype(int).tolist(),
                    "start_ns": (s[:, 1].astype(np.int64) - t0).tolist(),
                    "end_ns": (s[:, 2].astype(np.int64) - t0).tolist(),
                }
            )
            ctx.log(f"{name} repeat {rep}: {launches[-1]['kernel_ms']:.3f} ms")
    finite = bool(cp.isfinite(out).all())
    ctx.log(f"outputs finite: {finite}")
    return {
        "gpu": ctx.gpu_name,
        "date": ctx.date,
        "sm_count": ctx.sm_count,
        "ctas_per_sm": CTAS_PER_SM,
        "kernels": kernels,
        "outputs_finite": finite,
        "launches": launches,
    }


def sm_means(launch: dict[str, Any]) -> dict[int, float]:
    """Mean CTA duration (ns) per SM, over all its CTAs (the grid is whole waves)."""
    sm = np.asarray(launch["smid"])
    dur = np.asarray(launch["end_ns"]) - np.asarray(launch["start_ns"])
    return {int(s): float(dur[sm == s].mean()) for s in np.unique(sm)}


def summary(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per loop: spread of the SMs' mean CTA durations (relative), its repeatability, the
    scatter of CTAs around their SM's mean, and the SMs' relative speeds in quartiles."""
    by_loop: dict[str, list[dict[str, Any]]] = {}
    for la in record["launches"]:
        by_loop.setdefault(la["loop"], []).append(la)
    out = []
    for loop, las in by_loop.items():
        means = [sm_means(la) for la in las]
        sms = sorted(set.intersection(*(set(m) for m in means)))
        mat = np.array([[m[s] for s in sms] for m in means])  # repeats x SMs
        rel = mat / mat.mean(axis=1, keepdims=True)
        corr = [
            float(np.corrcoef(rel[i], rel[j])[0, 1])
            for i in range(len(rel))
            for j in range(i + 1, len(rel))
        ]
        within = []
        for la, m in zip(las, means, strict=True):
            sm = np.asarray(la["smid"])
            dur = np.asarray(la["end_ns"]) - np.asarray(la["start_ns"])
            within.append(float(np.std(dur / np.array([m[int(s)] for s in sm]))))
        speed = np.sort(1.0 / rel.mean(axis=0))  # lasting relative speed per SM
        quart = [float(q.mean()) for q in np.array_split(speed, 4)]
        out.append(
            {
                "loop": loop,
                "cta_ms": float(mat.mean()) / 1e6,
                "sm_spread_std": float(rel.std(axis=1).mean()),
                "sm_spread_range": float((rel.max(axis=1) - rel.min(axis=1)).mean()),
                "repeat_correlation": corr,
                "within_sm_std": float(np.mean(within)),
                "speed_quartiles": quart,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())


def profile_entry(record: dict[str, Any]) -> dict[str, Any]:
    """``cta_duration_scatter`` from a recorded run: the relative standard deviation of a
    CTA's duration around its SM's mean, in the attention-like loop (:data:`STEP_LOOP`)."""
    rows = {s["loop"]: s for s in summary(record)}
    if STEP_LOOP not in rows:
        raise ValueError(f"no {STEP_LOOP} launches in the record")
    s = rows[STEP_LOOP]
    return {
        "value": round(s["within_sm_std"], 4),
        "source": (
            f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate.cta_scatter"
        ),
        "note": (
            f"relative std of identical CTAs' durations around their SM's mean ({STEP_LOOP}: "
            f"tile loads and products, {s['cta_ms'] * 1e3:.0f} us per CTA, 2 CTAs per SM); "
            f"the SMs' lasting spread is {s['sm_spread_std']:.4f} (left out)"
        ),
    }
