"""DRAM bandwidth of a read stream as a tile loader issues it: cp.async copies into shared
memory, several tiles in flight per CTA, every SM (``kernels/dram_read.cu``).

    python -m gpusim.calibrate.dram_read --out FILE [--quick]
    python -m gpusim.calibrate.dram_read --table FILE

The profile's ``dram_bandwidth_bytes_per_s`` is a device-to-device copy's (bytes read plus
written, half each); the suite's dram_mlp reads with dependent register loads. An attention
kernel's DRAM traffic is almost all reads, issued as cp.async tile copies: this measures
that stream, over a 4-GiB buffer (far larger than the L2), for tiles of 16 and 32 KiB,
2-4 stages, 128 and 256 threads, one and two CTAs per SM; and, for the same loader, a copy
(each tile stored back, reads and writes in equal bytes). No attention kernel is in it.

    python -m gpusim.calibrate.dram_read --record FILE --profile PROFILE.yaml

writes ``dram_read_bandwidth_bytes_per_s``: the best read configuration's median bandwidth
(adopted on held-out set 9, gpusim/engine/dram_mix.py).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.calibrate.context import BenchContext, import_cupy, make_context
from gpusim.calibrate.record_table import table_or_measure, write_into_profile
from gpusim.calibrate.sources import compile_module, kernel_attributes

WORD_BYTES = 16
BUFFER_BYTES = 4 << 30
#: (threads, tile bytes, stages, CTAs per SM, copy)
_READS = tuple(
    (th, tile, st, c, False)
    for th in (128, 256)
    for tile in (16384, 32768)
    for st in (2, 3, 4)
    for c in (1, 2)
    if st * tile * c <= 200 * 1024
)
CONFIGS = (*_READS, (128, 16384, 2, 2, True), (256, 32768, 2, 1, True), (128, 16384, 4, 2, True))
REPEATS, QUICK_REPEATS = 9, 3
FIELD, AFTER = "dram_read_bandwidth_bytes_per_s", "dram_bandwidth_bytes_per_s"


def kernel_name(stages: int, copy: bool) -> str:
    return f"dram_read<{stages},{'true' if copy else 'false'}>"


def run(quick: bool = False) -> dict[str, Any]:
    """The stand-alone run on device 0."""
    return measure(make_context(import_cupy(), quick=quick))


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Every configuration: median event time over the launches and the bandwidth."""
    cp = ctx.cp
    names = tuple(sorted({kernel_name(st, cp_) for _t, _b, st, _c, cp_ in CONFIGS}))
    mod = compile_module(cp, "dram_read.cu", names)
    words = BUFFER_BYTES // WORD_BYTES
    src = cp.random.randint(1, 2**31, size=words * 4, dtype=cp.int64).astype(cp.uint32)
    dst = cp.zeros_like(src)
    repeats = ctx.scale(REPEATS, QUICK_REPEATS)
    rows, kernels = [], {}
    for threads, tile, stages, per_sm, copy in CONFIGS:
        name = kernel_name(stages, copy)
        fn = mod.get_function(name)
        smem = stages * tile
        fn.max_dynamic_shared_size_bytes = smem
        kernels[name] = kernel_attributes(fn)
        ctas = ctx.sm_count * per_sm
        tile_words = tile // WORD_BYTES
        per_cta = words // ctas // tile_words * tile_words
        out = cp.full(ctas * threads, cp.nan, dtype=cp.float32)
        args = (src, dst, np.uint64(per_cta), np.int32(tile_words), out)
        fn((ctas,), (threads,), args, shared_mem=smem)  # warm-up
        times = []
        for _ in range(repeats):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn((ctas,), (threads,), args, shared_mem=smem)
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
        med = float(np.median(times))
        read = ctas * per_cta * WORD_BYTES
        moved = read * (2 if copy else 1)
        rows.append({
            "threads": threads, "tile_bytes": tile, "stages": stages, "ctas_per_sm": per_sm,
            "copy": copy, "bytes_read": read, "bytes_moved": moved, "median_s": med,
            "times_s": times, "bandwidth_bytes_per_s": moved / med,
            "outputs_finite": bool(cp.isfinite(out).all()),
        })  # fmt: skip
        ctx.log(f"{name} {threads} thr {tile // 1024} KiB x{stages} {per_sm}/SM: "
                f"{moved / med / 1e12:.3f} TB/s")  # fmt: skip
    return {"kind": "gpusim.dram_read", "gpu": ctx.gpu_name, "date": ctx.date,
            "sm_count": ctx.sm_count, "buffer_bytes": BUFFER_BYTES, "kernels": kernels,
            "rows": rows}  # fmt: skip


def best_read(doc: dict[str, Any]) -> dict[str, Any]:
    """The read-only configuration with the highest median bandwidth."""
    if doc.get("kind") != "gpusim.dram_read":
        raise ValueError("not a dram_read record")
    reads = [r for r in doc["rows"] if not r["copy"] and r["outputs_finite"]]
    if not reads:
        raise ValueError("the record has no read-only rows with finite outputs")
    return max(reads, key=lambda r: r["bandwidth_bytes_per_s"])


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with ``dram_read_bandwidth_bytes_per_s`` from a recorded run."""
    from gpusim.calibrate.profile_patch import set_after

    b = best_read(doc)
    bw = [b["bytes_moved"] / t for t in b["times_s"]]
    copies = [r["bandwidth_bytes_per_s"] for r in doc["rows"] if r["copy"]]
    entry = {
        "value": round(b["bandwidth_bytes_per_s"], 0),
        "source": f"measured, python -m gpusim.calibrate.dram_read ({record_path})",
        "note": f"cp.async.cg 16-byte tile copies into shared memory, {b['threads']} threads, "
        f"{b['tile_bytes'] // 1024}-KiB tiles x {b['stages']} stages, {b['ctas_per_sm']} CTA(s) "
        f"per SM on every SM, {doc['buffer_bytes'] >> 30} GiB read once per launch: median of "
        f"{len(bw)} launches, min {min(bw):.4g}, max {max(bw):.4g} B/s (the best of "
        f"{sum(not r['copy'] for r in doc['rows'])} configurations); the same loader copying "
        f"(reads and writes in equal bytes): {', '.join(f'{c:.4g}' for c in copies)} B/s",
    }
    return set_after(profile_text, AFTER, {FIELD: entry}, f"# DRAM reads: {record_path}")


def table(doc: dict[str, Any]) -> str:
    """A recorded run's bandwidths, one line per configuration."""
    lines = ["threads  tile KiB  stages  CTAs/SM  copy   TB/s   (min-max)"]
    for r in doc["rows"]:
        ts = r["times_s"]
        lo, hi = r["bytes_moved"] / max(ts) / 1e12, r["bytes_moved"] / min(ts) / 1e12
        bw = r["bandwidth_bytes_per_s"] / 1e12
        copy = "yes" if r["copy"] else "no"
        lines.append(
            f"{r['threads']:7d}  {r['tile_bytes'] // 1024:8d}  {r['stages']:6d}  "
            f"{r['ctas_per_sm']:7d}  {copy:4}  {bw:5.3f}  ({lo:.3f}-{hi:.3f})"
        )
    b = best_read(doc)
    reads = [r["bandwidth_bytes_per_s"] for r in doc["rows"] if not r["copy"]]
    lines.append(
        f"best read: {b['bandwidth_bytes_per_s'] / 1e12:.3f} TB/s; "
        f"median over read rows {statistics.median(reads) / 1e12:.3f}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", type=Path, help="a recorded run, to write into --profile")
    ap.add_argument("--profile", type=Path)
    a = ap.parse_args(argv)
    if a.record is not None or a.profile is not None:
        if a.record is None or a.profile is None:
            ap.error("--record and --profile go together")
        return write_into_profile(a.record, a.profile, apply, FIELD)
    if a.table is None and a.out is None:
        ap.error("--out, --table or --record is required")
    return table_or_measure(a.table, a.out, lambda: run(a.quick), table, "dram_read")


if __name__ == "__main__":
    raise SystemExit(main())
