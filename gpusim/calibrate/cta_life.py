"""What a warp-specialized Hopper CTA pays around its main loop (no attention kernel).

    python -m gpusim.calibrate.cta_life --out FILE [--cubin CUBIN]   (on the GPU; nvcc builds
                                                                       the sm_90a cubin if none)
    python -m gpusim.calibrate.cta_life --table FILE

``kernels/cta_life.cu``: one CTA per SM, a producer warpgroup and NC consumer warpgroups
(BR = 64 NC rows), a BR x D 16-bit Q block by bulk copy from DRAM (the harness's 256 MB L2
flush before every timed launch), ``steps`` 32-KiB tiles through a two-stage mbarrier ring
(mostly L2 hits) with a fixed FMA chain per tile, then a BR x D 16-bit output block stored
straight from a wgmma accumulator's register layout (4-byte stores), by coalesced 16-byte
stores, or not at all. Grids of 1, 2, 4 and 8 waves: the least-squares time per wave is what
one CTA's life costs an SM; the stamps (%globaltimer) split it into the wait for Q, the
loop, the stores and the gap before the SM's next CTA.

    python -m gpusim.calibrate.cta_life --record FILE --profile PROFILE.yaml

writes the profile's ``fragment_store_bytes_per_clk_per_sm`` (``--store 16-byte``:
``staged_store_bytes_per_clk_per_sm``): the stores from the accumulator layout (or the
16-byte stores) on one wave of fewer CTAs than SMs (what one SM pays whatever the others do), their
bytes over their SM cycles (least squares through the origin over the shapes measured).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
from itertools import pairwise
from pathlib import Path
from typing import Any

from gpusim.calibrate.record_table import table_or_measure, write_into_profile

SHAPES = ((1, 64), (1, 128), (1, 256), (2, 64), (2, 128), (2, 256), (3, 64), (3, 128))
STORES = {0: "none", 1: "fragments", 2: "16-byte"}
STEPS = (0, 2, 8)
WAVES = (1, 2, 4, 8)
TILE_BYTES, KV_GROUP, KV_TILES, FMA_ITERS = 32768, 8, 8, 256
#: more than half the SM's 228 KiB: one CTA per SM whatever the shape
SMEM_BYTES = 140 * 1024
FLUSH_BYTES = 256 << 20
WARMUP, REPEATS = 2, 9
#: One wave on fewer SMs: whether the stores' cost is the SM's own or the memory system's
#: (every SM of a full wave stores at once).
PARTIAL_SHAPES, PARTIAL_GRIDS = ((1, 128), (2, 128), (2, 256), (3, 64)), (8, 16, 33, 66, 132)
NVCC_FLAGS = ("-gencode=arch=compute_90a,code=sm_90a", "-cubin", "-std=c++17", "-Xptxas", "-v")


def build_cubin(out_dir: Path) -> tuple[Path, str]:
    """nvcc's sm_90a cubin of kernels/cta_life.cu (setmaxnreg needs sm_90a) and ptxas's report."""
    from gpusim.calibrate.sources import source_path

    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise RuntimeError("nvcc not found: pass --cubin (an sm_90a cubin of cta_life.cu)")
    cubin = out_dir / "cta_life.cubin"
    src = source_path("cta_life.cu")
    proc = subprocess.run(
        [nvcc, *NVCC_FLAGS, "-o", str(cubin), str(src)], capture_output=True, text=True, check=True
    )
    return cubin, proc.stdout + proc.stderr


def stamp_summary(stamps: list[list[int]]) -> dict[str, float]:
    """Medians (ns) over a launch's CTAs: Q wait, loop, stores (also in SM cycles), and the
    gap from a CTA's stores to the start of the next CTA on its SM; the launch's span."""
    by_sm: dict[int, list[list[int]]] = {}
    for s in stamps:
        by_sm.setdefault(s[4], []).append(s)
    gaps = []
    for rows in by_sm.values():
        rows.sort(key=lambda s: s[0])
        gaps += [b[0] - a[3] for a, b in pairwise(rows)]
    return {
        "q_wait_ns": statistics.median(s[1] - s[0] for s in stamps),
        "loop_ns": statistics.median(s[2] - s[1] for s in stamps),
        "store_ns": statistics.median(s[3] - s[2] for s in stamps),
        "store_cycles": statistics.median(s[5] for s in stamps),
        "life_ns": statistics.median(s[3] - s[0] for s in stamps),
        "gap_ns": statistics.median(gaps) if gaps else None,
        "span_ns": max(s[3] for s in stamps) - min(s[0] for s in stamps),
        "sms": len(by_sm),
    }


#: the profile field each kind of store writes, and the field it is placed after
FIELDS = {
    "fragments": "fragment_store_bytes_per_clk_per_sm",
    "16-byte": "staged_store_bytes_per_clk_per_sm",
}
FIELD, AFTER = FIELDS["fragments"], "smem_fill_cost_per_byte"
#: what each kind of store is, for the written note
_HOW = {
    "fragments": "from a wgmma accumulator's register layout (4-byte stores)",
    "16-byte": "by coalesced 16-byte stores (as a block staged in shared memory leaves)",
}


def store_points(doc: dict[str, Any], store: str = "fragments") -> list[tuple[int, float]]:
    """``(bytes, SM cycles)`` of one CTA's ``store`` stores (``fragments`` or ``16-byte``),
    per shape: the median over the one-wave launches on fewer SMs than the GPU has (the full
    wave also meets the other SMs' stores in the memory system, which a CTA of a multi-wave
    grid mostly does not)."""
    if doc.get("kind") != "gpusim.cta_life":
        raise ValueError("not a cta_life record")
    shapes: dict[tuple[int, int], list[float]] = {}
    for r in doc.get("partial_rows", []):
        if r["store"] == store and r["grid"] < doc["sm_count"]:
            shapes.setdefault((r["consumers"], r["head_dim"]), []).append(
                r["stamps_last"]["store_cycles"]
            )
    if not shapes:
        raise ValueError(f"the record has no one-wave {store} stores on part of the GPU")
    return [(64 * nc * d * 2, statistics.median(c)) for (nc, d), c in sorted(shapes.items())]


def fragment_store_points(doc: dict[str, Any]) -> list[tuple[int, float]]:
    """:func:`store_points` of the fragment stores."""
    return store_points(doc, "fragments")


def store_rate(doc: dict[str, Any], store: str = "fragments") -> float:
    """Bytes per SM clock of ``store`` stores: least squares through the origin."""
    pts = store_points(doc, store)
    return sum(b * b for b, _ in pts) / sum(b * c for b, c in pts)


def fragment_store_rate(doc: dict[str, Any]) -> float:
    """:func:`store_rate` of the fragment stores."""
    return store_rate(doc, "fragments")


def apply(
    profile_text: str, doc: dict[str, Any], record_path: str, store: str = "fragments"
) -> str:
    """``profile_text`` with the field of ``store`` stores (:data:`FIELDS`) from a recorded
    run."""
    from gpusim.calibrate.profile_patch import set_after

    pts = store_points(doc, store)
    each = ", ".join(f"{b // 1024} KiB {c:.0f}" for b, c in pts)
    entry = {
        "value": round(store_rate(doc, store), 3),
        "source": f"measured, python -m gpusim.calibrate.cta_life ({record_path})",
        "note": f"one CTA per SM stores a 16-bit output block {_HOW[store]} on one wave of "
        "8-66 CTAs, SM cycles by clock64, least squares through the origin of bytes against "
        f"cycles: {each} cycles",
    }
    if store == "fragments":
        entry["note"] += "; 16-byte stores of the same bytes take a quarter"
    after = AFTER if store == "fragments" else FIELD
    field = FIELDS[store]
    label = "fragment" if store == "fragments" else store
    return set_after(profile_text, after, {field: entry}, f"# {label} stores: {record_path}")


def per_wave_s(rows: list[dict[str, Any]]) -> float:
    """Least-squares seconds per wave of median time against waves."""
    xs = [r["waves"] for r in rows]
    ys = [r["median_s"] for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return cov / sum((x - mx) ** 2 for x in xs)


def measure(cubin: Path | None = None) -> dict[str, Any]:
    """Every (shape, store, steps, waves) on device 0."""
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.event_timing import event_times_s
    from gpusim.calibrate.sources import kernel_attributes

    log = ""
    if cubin is None:
        cubin, log = build_cubin(Path(tempfile.mkdtemp()))
    mod = cp.RawModule(path=str(cubin))
    sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
    max_grid = sms * max(WAVES)
    max_q = 64 * 3 * 256 * 2
    q = cp.random.randint(0, 2**31, size=max_grid * max_q // 4, dtype=cp.int32)
    kv = cp.random.randint(0, 2**31, size=max_grid * TILE_BYTES // 4, dtype=cp.int32)
    o = cp.zeros(max_grid * max_q // 4, dtype=cp.uint32)
    stamps = cp.zeros(8 * max_grid, dtype=cp.uint64)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
    rows, kernels = [], {}

    def flushed(r: int) -> None:
        flush.fill(r & 0xFF)  # the harness's flush before every timed launch

    for nc, d in SHAPES:
        fn = mod.get_function(f"cta_life_c{nc}_d{d}")
        fn.max_dynamic_shared_size_bytes = SMEM_BYTES
        kernels[f"c{nc}_d{d}"] = kernel_attributes(fn) | {"dynamic_smem_bytes": SMEM_BYTES}
        for store in STORES:
            for steps in STEPS:
                for waves in WAVES:
                    grid = sms * waves
                    args = (q, kv, o, stamps, np.int32(steps), np.int32(store),
                            np.int32(FMA_ITERS), np.int32(TILE_BYTES), np.int32(KV_GROUP),
                            np.int32(KV_TILES))  # fmt: skip

                    def launch(grid=grid, args=args, fn=fn, threads=(nc + 1) * 128) -> None:
                        fn((grid,), (threads,), args, shared_mem=SMEM_BYTES)

                    times = event_times_s(cp, launch, REPEATS, WARMUP, before=flushed)
                    st = cp.asnumpy(stamps[: 8 * grid]).reshape(grid, 8).astype(np.int64)
                    row = {
                        "consumers": nc, "head_dim": d, "store": STORES[store], "steps": steps,
                        "waves": waves, "grid": grid, "times_s": times,
                        "median_s": statistics.median(times),
                        "stamps_last": stamp_summary(st[:, :6].tolist()),
                    }  # fmt: skip
                    rows.append(row)
                print(
                    f"cta_life: c{nc} d{d} {STORES[store]:9s} steps {steps}: "
                    + " ".join(f"{1e6 * r['median_s']:.1f}" for r in rows[-len(WAVES):])
                    + f" us; per wave {1e6 * per_wave_s(rows[-len(WAVES):]):.2f} us",
                    flush=True,
                )  # fmt: skip
    partial = []
    for nc, d in PARTIAL_SHAPES:
        fn = mod.get_function(f"cta_life_c{nc}_d{d}")
        for store in (1, 2):
            for grid in PARTIAL_GRIDS:
                args = (q, kv, o, stamps, np.int32(0), np.int32(store), np.int32(FMA_ITERS),
                        np.int32(TILE_BYTES), np.int32(KV_GROUP), np.int32(KV_TILES))  # fmt: skip

                def launch(grid=grid, args=args, fn=fn, threads=(nc + 1) * 128) -> None:
                    fn((grid,), (threads,), args, shared_mem=SMEM_BYTES)

                times = event_times_s(cp, launch, REPEATS, WARMUP, before=flushed)
                st = cp.asnumpy(stamps[: 8 * grid]).reshape(grid, 8).astype(np.int64)
                s = stamp_summary(st[:, :6].tolist())
                partial.append({
                    "consumers": nc, "head_dim": d, "store": STORES[store], "grid": grid,
                    "median_s": statistics.median(times), "stamps_last": s,
                })  # fmt: skip
                print(f"cta_life: one wave of {grid} CTAs, c{nc} d{d} {STORES[store]}: "
                      f"stores {s['store_ns'] / 1e3:.2f} us", flush=True)  # fmt: skip
    return {
        "kind": "gpusim.cta_life",
        "sm_count": sms,
        "tile_bytes": TILE_BYTES,
        "kv_group": KV_GROUP,
        "fma_iters": FMA_ITERS,
        "smem_bytes": SMEM_BYTES,
        "warmup": WARMUP,
        "repeats": REPEATS,
        "kernels": kernels,
        "ptxas": log,
        "rows": rows,
        "partial_rows": partial,
    }


def groups(doc: dict[str, Any]) -> dict[tuple, list[dict[str, Any]]]:
    """The record's rows by (consumers, head dim, store, steps)."""
    out: dict[tuple, list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        out.setdefault((r["consumers"], r["head_dim"], r["store"], r["steps"]), []).append(r)
    return out


def table(doc: dict[str, Any]) -> str:
    """Per (shape, store, steps): time per wave, and the stamps of the 8-wave launch."""
    if doc.get("kind") != "gpusim.cta_life":
        raise ValueError("not a cta_life record")
    lines = [
        "| consumers | d | store | steps | us per wave | Q wait us | loop us | stores us "
        "| gap us |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (nc, d, store, steps), rows in groups(doc).items():
        s = max(rows, key=lambda r: r["waves"])["stamps_last"]
        gap = f"{s['gap_ns'] / 1e3:.2f}" if s["gap_ns"] is not None else "-"
        lines.append(
            f"| {nc} | {d} | {store} | {steps} | {1e6 * per_wave_s(rows):.2f} "
            f"| {s['q_wait_ns'] / 1e3:.2f} | {s['loop_ns'] / 1e3:.2f} | {s['store_ns'] / 1e3:.2f} "
            f"| {gap} |"
        )
    lines += [
        "",
        "| consumers | d | store | CTAs (one wave) | stores us | stores SM cycles |",
        "|---|---|---|---|---|---|",
    ]
    for r in doc.get("partial_rows", []):
        s = r["stamps_last"]
        lines.append(
            f"| {r['consumers']} | {r['head_dim']} | {r['store']} | {r['grid']} "
            f"| {s['store_ns'] / 1e3:.2f} | {s.get('store_cycles', '-')} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    ap.add_argument("--cubin", type=Path)
    ap.add_argument("--record", type=Path, help="a recorded run, to write into --profile")
    ap.add_argument("--profile", type=Path)
    ap.add_argument(
        "--store", choices=sorted(FIELDS), default="fragments",
        help="with --record: which stores' rate to write (fragments: "
        "fragment_store_bytes_per_clk_per_sm; 16-byte: staged_store_bytes_per_clk_per_sm)",
    )  # fmt: skip
    a = ap.parse_args(argv)
    if a.record is not None or a.profile is not None:
        if a.record is None or a.profile is None:
            ap.error("--record and --profile go together")
        store = a.store

        def write(text: str, doc: dict[str, Any], path: str) -> str:
            return apply(text, doc, path, store)

        return write_into_profile(a.record, a.profile, write, FIELDS[store])
    if a.table is None and a.out is None:
        ap.error("--out, --table or --record is required")
    return table_or_measure(a.table, a.out, lambda: measure(a.cubin), table, "cta_life")


if __name__ == "__main__":
    raise SystemExit(main())
