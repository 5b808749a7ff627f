"""fp32 atomic adds into the L2: the rate a backward kernel's dQ accumulation meets.

    python -m gpusim.calibrate.l2_atomics --out FILE      (on the GPU)
    python -m gpusim.calibrate.l2_atomics --table FILE
    python -m gpusim.calibrate.l2_atomics --record FILE --profile PROFILE.yaml

flash2's backward (FlashAttention-2's) adds each step's dQ block into an fp32 accumulator with
atomic adds, and the model charges them as bytes written to the L2 (``store_add``); the L2's
throughput for atomics has not been measured. This measures it with no attention code
(``kernels/l2_atomics.cu``): every SM adding into one 16-MiB buffer that stays in the L2,
fp32 ``atomicAdd`` (RED) with a warp on 32 consecutive floats, the same adds in an m16n8
accumulator's layout (8 rows x 4 floats two apart per instruction, as a kernel adds from its
registers), and plain 4-byte stores in the first pattern beside them; 8 CTAs of 256 threads
per SM, CUDA-event time, median of 9 launches after a warm-up; the buffer's sum checked
against the adds made. ``--record/--profile`` writes the rate of the accumulator-layout adds
(how FlashAttention-2's backward adds dQ from its registers) into a profile as
``l2_atomic_add_bytes_per_s``, which the engine charges atomic adds at
(:func:`gpusim.profiles.gaps.l2_atomic_cost`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.event_timing import event_times_s
from gpusim.calibrate.record_table import record_main
from gpusim.calibrate.sources import compile_module, kernel_attributes

KIND = "gpusim.l2_atomics"
FIELD, AFTER = "l2_atomic_add_bytes_per_s", "l2_bandwidth_bytes_per_s"
#: the mode whose rate the profile takes: adds from an MMA accumulator's registers
PROFILE_MODE = 1
BUFFER_BYTES, THREADS, CTAS_PER_SM, ITERS, REPEATS, WARMUP = 16 << 20, 256, 8, 8, 9, 1
MODES = {0: "atomic add, 32 consecutive floats", 1: "atomic add, mma C-fragment layout",
         2: "4-byte stores, 32 consecutive floats"}  # fmt: skip
#: the value thread t adds: 1 + (t mod 8) / 8 (l2_atomics.cu)
ADD_PER_CHUNK = 256 * (1 + 3.5 / 8)


def kernel_name(mode: int) -> str:
    return f"l2_atomics<{mode}>"


def measure(ctx: BenchContext | None = None) -> dict[str, Any]:
    """Each mode's median time and its rate in bytes added (or stored) per second."""
    ctx = ctx or make_context(import_cupy())
    cp = ctx.cp
    mod = compile_module(cp, "l2_atomics.cu", tuple(kernel_name(m) for m in MODES))
    floats = BUFFER_BYTES // 4
    ctas = ctx.sm_count * CTAS_PER_SM
    rows, kernels = [], {}
    for mode, what in MODES.items():
        fn = mod.get_function(kernel_name(mode))
        kernels[kernel_name(mode)] = kernel_attributes(fn)
        buf = cp.zeros(floats, dtype=cp.float32)
        out = cp.full(ctas, cp.nan, dtype=cp.float32)
        args = (buf, np.uint64(floats), np.int32(ITERS), out)
        times = event_times_s(cp, lambda fn=fn, args=args: fn((ctas,), (THREADS,), args),
                              repeats=REPEATS, warmup=WARMUP)  # fmt: skip
        launches = WARMUP + REPEATS
        # Every float got ITERS adds per launch (atomics), or holds the last store.
        want = ADD_PER_CHUNK * floats / 256 * ITERS * launches if mode != 2 else None
        got = float(cp.sum(buf, dtype=cp.float64))
        moved = floats * 4 * ITERS
        med = float(np.median(times))
        rows.append({
            "mode": mode, "what": what, "bytes_added": moved, "median_s": med, "times_s": times,
            "bytes_per_s": moved / med, "buffer_sum": got, "expected_sum": want,
            "sum_ok": want is None or abs(got - want) <= 1e-6 * want,
            "outputs_finite": bool(cp.isfinite(out).all()),
        })  # fmt: skip
        ctx.log(f"{what}: {moved / med / 1e12:.3f} TB/s")
    return {"kind": KIND, "gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count,
            "buffer_bytes": BUFFER_BYTES, "threads": THREADS, "ctas_per_sm": CTAS_PER_SM,
            "iters": ITERS, "kernels": kernels, "rows": rows}  # fmt: skip


def table(doc: dict[str, Any]) -> str:
    """A recorded run as Markdown: one row per mode."""
    if doc.get("kind") != KIND:
        raise ValueError("not an l2_atomics record")
    lines = ["| what | TB/s (median) | min-max | sum checked |", "|---|---|---|---|"]
    for r in doc["rows"]:
        ts = r["times_s"]
        lo, hi = r["bytes_added"] / max(ts) / 1e12, r["bytes_added"] / min(ts) / 1e12
        check = "-" if r["expected_sum"] is None else ("yes" if r["sum_ok"] else "NO")
        lines.append(
            f"| {r['what']} | {r['bytes_per_s'] / 1e12:.3f} | {lo:.3f}-{hi:.3f} | {check} |"
        )
    return "\n".join(lines)


def profile_entry(doc: dict[str, Any], record_path: str) -> dict[str, Any]:
    """The profile's ``l2_atomic_add_bytes_per_s`` from a recorded run: the median rate of
    the accumulator-layout adds, whose buffer sum must have checked out."""
    if doc.get("kind") != KIND:
        raise ValueError(f"{record_path}: not an l2_atomics record")
    rows = {r["mode"]: r for r in doc["rows"]}
    r = rows.get(PROFILE_MODE)
    if r is None or not r["sum_ok"] or not r["outputs_finite"]:
        raise ValueError(f"{record_path}: no checked run of the {MODES[PROFILE_MODE]} mode")
    rates = [r["bytes_added"] / t for t in r["times_s"]]
    others = "; ".join(
        f"{x['what']}: {x['bytes_per_s']:.4g} B/s" for x in doc["rows"] if x is not r
    )
    return {
        "value": round(r["bytes_per_s"], 0),
        "source": f"measured, python -m gpusim.calibrate.l2_atomics ({record_path})",
        "note": f"fp32 atomic adds (RED) into a {doc['buffer_bytes'] >> 20}-MiB buffer from "
        f"every SM, {doc['ctas_per_sm']} CTAs of {doc['threads']} threads per SM, "
        f"{r['what']}: median of {len(rates)} launches, min {min(rates):.4g}, max "
        f"{max(rates):.4g} B/s, the buffer's sum checked; {others}",
    }


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with ``l2_atomic_add_bytes_per_s`` from a recorded run (after the L2's
    bandwidth), a header line naming the record."""
    from gpusim.calibrate.profile_patch import set_after

    entry = {FIELD: profile_entry(doc, record_path)}
    return set_after(profile_text, AFTER, entry, f"# L2 atomic adds: {record_path}")


def main(argv: list[str] | None = None) -> int:
    return record_main(
        argv, __doc__.split("\n\n")[0], measure, table, "l2_atomics", apply=apply, field=FIELD
    )


if __name__ == "__main__":
    raise SystemExit(main())
