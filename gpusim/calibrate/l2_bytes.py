"""Byte counts of two L2 traffic patterns under Nsight Compute (kernels/l2_bytes.cu).

    python -m gpusim.calibrate.l2_bytes --out FILE      (on the GPU, ncu on PATH)

Not timed: what is measured is bytes. (1) ``ldgsts_copy``: the fp32 kernel's cp.async tile
copy into shared rows padded by 16 bytes (and unpadded, for comparison), 64 rows of 64 or
128 floats; bytes requested against bytes the SMs received from L2 and sectors the L2
slices served. (2) ``l2_reread``: a working set of S MiB read in full by one CTA per SM,
launched twice; the DRAM reads say how much of a set shared by every SM the L2 keeps.
(3) ``l2_survive``: such a set W, then P MiB of other reads (each CTA its own), then W
again: how much other traffic the shared set survives. (4) ``--writes``: ``l2_survive_w``,
the same with P MiB *written* (each CTA its own slice, whole lines), beside reads of the same
set in the same run: how much written lines age a shared set per byte, against read ones
(an attention kernel writes its output tiles between two heads' reads of K and V). (5)
``--hot``: ``l2_survive_h``, the same with a P-MiB set that every CTA reads whole (shared
traffic, as other heads' K and V), beside ``l2_survive`` (P read once) in the same run. (6)
``--suite``: what ``gpusim calibrate``'s ``l2_cache`` benchmark needs in one ncu run: the
copies of (1), ``l2_survive_w`` over the P of (4), ``l2_survive`` over every P of (3) with
``--fine``, (4) and (5); ``--quick`` thins the P. The driver (``--launch``) runs the kernels;
the parent runs it under ncu.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from gpusim import atomic

#: (D, LD, THREADS) instances of ldgsts_copy
COPIES = (
    (64, 68, 256),
    (64, 64, 256),
    (128, 132, 256),
    (128, 128, 256),
    (64, 68, 128),
    (128, 132, 128),
)
#: Working sets of l2_reread, MiB
REREAD_MIB = (8, 16, 24, 32, 40, 48, 56, 64, 80)
#: l2_survive: shared working sets W and the other traffic P read between its two passes, MiB
SURVIVE_W_MIB = (4, 8, 16, 24)
SURVIVE_P_MIB = (0, 8, 16, 24, 32, 40, 48, 64)
#: ``--fine``: a 2-MiB set, so that every re-read line's LRU depth is P to P + 2 MiB, and P
#: in 2-MiB steps across the edge (the loss curve itself, not its average over a wide W)
FINE_W_MIB = (2,)
FINE_P_MIB = tuple(range(14, 60, 2))
#: ``--writes``: a 2-MiB set, then P MiB written (out to where the whole set is lost even if a
#: written byte ages it half as much as a read one), and the same set and reads for reference
WRITES_W_MIB = (2,)
WRITES_P_MIB = tuple(range(8, 100, 4))
WRITES_READ_P_MIB = tuple(range(14, 52, 4))
#: ``--hot``: a 2-MiB set, then a P-MiB set every SM reads, and the same P read once; 2-MiB
#: steps from 16 to 32 MiB, where half the set is lost under shared traffic: on the H100's
#: 50 MB L2 a shared P set stops fitting by itself past about 24 MiB, and 4-MiB steps left
#: one valid depth past the crossing or none (data/h100/2026-12-05_calibration)
HOT_P_MIB = (8, 12, *range(16, 33, 2), *range(36, 64, 4))
#: ``--suite``: the writes of ``--writes`` and one pass over every read P of ``--fine``,
#: ``--writes`` and ``--hot`` (a depth measured twice in one run would overwrite itself)
SUITE_WRITES_P_MIB = WRITES_P_MIB
SUITE_READ_P_MIB = tuple(sorted(set(FINE_P_MIB) | set(WRITES_READ_P_MIB) | set(HOT_P_MIB)))
#: ``--suite --quick``: every fourth written P, every fourth read P
QUICK_WRITES_P_MIB = WRITES_P_MIB[::4]
QUICK_READ_P_MIB = SUITE_READ_P_MIB[::4]
#: bytes of the buffer the writes go to (separate from every set that is read)
SINK_BYTES = 100 << 20
#: where the streamed bytes start in the source buffer (past every shared set)
STREAM_OFFSET_BYTES = 64 << 20
SOURCE_BYTES = 256 << 20
ROWS = 64
METRICS = (
    "dram__bytes_read.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum",
    "l1tex__m_xbar2l1tex_read_bytes.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "launch__grid_size",
    "dram__bytes_write.sum",
)


def copy_name(d: int, ld: int, threads: int) -> str:
    return f"ldgsts_copy<{d},{ld},{threads}>"


def suite_plan(quick: bool) -> dict[str, Any]:
    """What ``--suite`` launches: the copies, and the written and read P of the 2-MiB set."""
    return {
        "copies": [copy_name(*c) for c in COPIES],
        "set_mib": WRITES_W_MIB[0],
        "written_p_mib": list(QUICK_WRITES_P_MIB if quick else SUITE_WRITES_P_MIB),
        "read_p_mib": list(QUICK_READ_P_MIB if quick else SUITE_READ_P_MIB),
    }


def launch(
    fine: bool = False,
    writes: bool = False,
    hot: bool = False,
    suite: bool = False,
    quick: bool = False,
) -> list[dict[str, Any]]:
    """Run every launch once (ldgsts copies, then each working set twice); the plan.

    ``fine``: only l2_survive, over :data:`FINE_W_MIB` x :data:`FINE_P_MIB`. ``writes``:
    only l2_survive_w over :data:`WRITES_W_MIB` x :data:`WRITES_P_MIB`, then l2_survive
    over :data:`WRITES_W_MIB` x :data:`WRITES_READ_P_MIB`. ``hot``: only l2_survive_h and
    l2_survive, both over :data:`WRITES_W_MIB` x :data:`HOT_P_MIB`. ``suite``: the copies,
    then :func:`suite_plan`'s writes and reads (``quick``: its thinned P).
    """
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.sources import compile_module

    names = (*(copy_name(*c) for c in COPIES), "l2_reread", "l2_survive", "l2_survive_w",
             "l2_survive_h")  # fmt: skip
    only_survive = fine or writes or hot  # --suite keeps the copies and skips the re-reads
    plan_of_suite = suite_plan(quick) if suite else None
    mod = compile_module(cp, "l2_bytes.cu", names)
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    src = cp.random.uniform(-1, 1, SOURCE_BYTES // 4, dtype=cp.float32)
    out = cp.full(sms * 4 * 256, cp.nan, dtype=cp.float32)
    plan: list[dict[str, Any]] = []
    for d, ld, threads in () if only_survive else COPIES:
        fn = mod.get_function(copy_name(d, ld, threads))
        smem = ROWS * ld * 4
        fn.max_dynamic_shared_size_bytes = smem
        tile_bytes = ROWS * d * 4
        tiles = SOURCE_BYTES // tile_bytes
        grid, iters = sms * 2, max(1, tiles // (sms * 2))
        fn((grid,), (threads,), (src, np.int32(tiles), np.int32(iters), out), shared_mem=smem)
        plan.append(
            {"kernel": "ldgsts_copy", "d": d, "ld": ld, "threads": threads, "grid": grid,
             "requested_bytes": grid * iters * tile_bytes}
        )  # fmt: skip
    fn = mod.get_function("l2_reread")
    for mib in () if only_survive or suite else REREAD_MIB:
        words = (mib << 20) // 16
        for rep in (1, 2):
            fn((sms,), (256,), (src, np.uint64(words), out))
            plan.append(
                {"kernel": "l2_reread", "mib": mib, "launch": rep, "grid": sms,
                 "requested_bytes": sms * words * 16}
            )  # fmt: skip
    stream = src[STREAM_OFFSET_BYTES // 4 :]

    def survive(kernel: str, w_set, p_set, other, per_cta: bool, key: str) -> None:
        """Each (W, P) pair launched without and with the re-read of the set: ``other`` is
        the P traffic's buffer, ``per_cta`` whether each CTA has its own P / SMs slice
        (else every CTA takes all of it), ``key`` the record's name for the P bytes."""
        fn = mod.get_function(kernel)
        for w_mib in w_set:
            for p_mib in p_set:
                for again in (0, 1):
                    bar = cp.zeros(1, dtype=cp.uint32)
                    w_words = (w_mib << 20) // 16
                    p_words = (p_mib << 20) // 16 // (sms if per_cta else 1)
                    args = (src, np.uint64(w_words), other, np.uint64(p_words), np.int32(again))
                    fn((sms,), (256,), (*args, bar, out))
                    plan.append(
                        {"kernel": kernel, "w_mib": w_mib, "p_mib": p_mib, "again": again,
                         "grid": sms, "shared_bytes": w_words * 16,
                         key: p_words * 16 * (sms if per_cta else 1)}
                    )  # fmt: skip

    if writes or suite:
        sink = cp.zeros(SINK_BYTES // 4, dtype=cp.float32)
        written = plan_of_suite["written_p_mib"] if plan_of_suite else WRITES_P_MIB
        survive("l2_survive_w", WRITES_W_MIB, written, sink, True, "written_bytes")
    if hot:
        survive("l2_survive_h", WRITES_W_MIB, HOT_P_MIB, stream, False, "hot_bytes")
    if plan_of_suite:
        w_set, p_set = WRITES_W_MIB, plan_of_suite["read_p_mib"]
    elif hot:
        w_set, p_set = WRITES_W_MIB, HOT_P_MIB
    elif writes:
        w_set, p_set = WRITES_W_MIB, WRITES_READ_P_MIB
    elif fine:
        w_set, p_set = FINE_W_MIB, FINE_P_MIB
    else:
        w_set, p_set = SURVIVE_W_MIB, SURVIVE_P_MIB
    survive("l2_survive", w_set, p_set, stream, True, "stream_bytes")
    cp.cuda.Device().synchronize()
    assert bool(cp.isfinite(out[: sms * 256]).all())
    return plan


def padded_copy_factor(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``l2_fetch_bytes_per_byte_padded_row_copy`` from the ldgsts copies of a record: bytes
    the SMs received from L2 (``l1tex__m_xbar2l1tex_read_bytes``) over bytes requested, the
    median over the copies into padded rows (low/high: the smallest and largest of them)."""
    ratios: dict[bool, list[float]] = {True: [], False: []}
    for r in records:
        if r.get("kernel") == "ldgsts_copy":
            got = r["metrics"]["l1tex__m_xbar2l1tex_read_bytes.sum"] / r["requested_bytes"]
            ratios[r["ld"] != r["d"]].append(got)
    padded = sorted(ratios[True])
    if not padded:
        raise ValueError("no ldgsts_copy launch into padded rows in the record")
    mid = len(padded) // 2
    median = padded[mid] if len(padded) % 2 else (padded[mid - 1] + padded[mid]) / 2
    plain = ", ".join(f"{x:.3f}" for x in sorted(ratios[False])) or "none measured"
    return {
        "value": round(median, 3),
        "low": round(padded[0], 3),  # rounded as the value
        "high": round(padded[-1], 3),
        "note": (
            "l1tex__m_xbar2l1tex_read_bytes over requested bytes of 16-byte cp.async.cg copies "
            f"into shared rows padded by 16 bytes, median of {len(padded)} (row lengths 64 and "
            f"128 floats, 128 and 256 threads): {', '.join(f'{x:.3f}' for x in padded)}; "
            f"unpadded copies: {plain}"
        ),
    }


def run(out: Path, fine: bool = False, writes: bool = False, hot: bool = False) -> int:
    """Run the driver under ncu (no cache flush between kernels) and write the records."""
    from gpusim.ncu import find_ncu

    ncu = find_ncu()
    if ncu is None:
        print("error: ncu not found", file=sys.stderr)
        return 2
    doc = record(ncu, ["--fine"] * fine + ["--writes"] * writes + ["--hot"] * hot)
    atomic.write_text(out, json.dumps(doc, indent=1))
    print(f"wrote {out}: {len(doc['records'])} launches", file=sys.stderr)
    return 0 if doc["records"] else 1


def record(ncu: str, modes: list[str], timeout_s: float = 500) -> dict[str, Any]:
    """The driver run under ``ncu`` with the mode flags ``modes``: command, exit code, the
    end of ncu's log, and per launch its plan entry, kernel name and metrics."""
    from gpusim.ncu import parse_csv

    with tempfile.TemporaryDirectory() as tmp:
        plan_path = Path(tmp) / "plan.json"
        cmd = [ncu, "--clock-control", "none", "--cache-control", "none", "--csv",
               "--kernel-name", "regex:ldgsts_copy|l2_reread|l2_survive", "--page",
               "raw", "--print-units", "base", "--metrics", ",".join(METRICS),
               sys.executable, "-m", "gpusim.calibrate.l2_bytes",
               "--launch", str(plan_path), *modes]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        kernels = parse_csv(proc.stdout)
        plan = json.loads(plan_path.read_text()) if plan_path.exists() else []
    doc = {"command": " ".join(cmd), "exit_code": proc.returncode,
           "log_tail": proc.stderr[-2000:], "records": []}  # fmt: skip
    for p, k in zip(plan, kernels, strict=False):
        doc["records"].append({**p, "name": k["name"], "metrics": k["metrics"]})
    doc["planned_launches"], doc["profiled_kernels"] = len(plan), len(kernels)
    return doc


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--launch", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--fine", action="store_true", help="only l2_survive, 2 MiB set, P in 2 MiB")
    ap.add_argument(
        "--writes", action="store_true", help="only l2_survive_w (P written) and its read reference"
    )
    ap.add_argument(
        "--hot", action="store_true", help="only l2_survive_h (P read by all SMs) and its reference"
    )
    ap.add_argument("--suite", action="store_true", help="what gpusim calibrate's l2_cache needs")
    ap.add_argument("--quick", action="store_true", help="with --suite: fewer P")
    a = ap.parse_args(argv)
    if a.launch is not None:
        a.launch.write_text(json.dumps(launch(a.fine, a.writes, a.hot, a.suite, a.quick)))
        return 0
    if a.out is None:
        ap.error("--out is required")
    if a.suite:
        ap.error("--suite runs inside gpusim calibrate (its l2_cache benchmark)")
    return run(a.out, a.fine, a.writes, a.hot)


if __name__ == "__main__":
    raise SystemExit(main())
