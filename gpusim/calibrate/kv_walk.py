"""How often the DRAM serves a buffer that waves of CTAs walk, when it does not fit in the L2.

    python -m gpusim.calibrate.kv_walk --out FILE        (on the GPU, ncu on PATH)
    python -m gpusim.calibrate.kv_walk --table FILE      # passes per wave of a record

The kernel (``kernels/kv_walk.cu``) walks "heads" of S MiB as an attention forward kernel
walks a head's K and V: CTAs launched in order, consecutive CTAs on the same buffer, each
streaming it forward in 32-KiB tiles (two cp.async stages) with FMA work between tiles; the
shared memory asked for decides the CTAs per SM. Nsight Compute counts the DRAM bytes of
each launch; thread 0 of every CTA stamps its SM and its start and end (%globaltimer), so
the record also shows how the CTAs of a wave drift apart.

The question it answers, without an attention kernel: when a head's buffer is larger than
the L2 keeps, is it read from DRAM once per wave of CTAs (the lockstep picture), once per
CTA slot of an SM, or once per L2 half; and does that depend on the CTAs per SM? The
long-context sets found 2.2-2.4 DRAM passes of K/V per wave of unmasked flash2 CTAs at two
CTAs per SM, where a lockstep wave gives one (reports/long_context/heldout3).
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
from gpusim.calibrate.record_table import print_table
from gpusim.engine.sm_mates import generation_spreads

THREADS = 128
TILE_BYTES = 32 << 10
#: (head MiB, heads, waves per head, CTAs per SM, FMA rounds per tile)
LAUNCHES = (
    (64, 2, 3, 1, 370),
    (64, 2, 3, 2, 370),
    (64, 2, 3, 3, 370),
    (32, 2, 3, 1, 370),
    (32, 2, 3, 2, 370),
    (32, 2, 3, 3, 370),
    (16, 2, 3, 2, 370),
    (24, 2, 3, 2, 370),
    (48, 2, 3, 2, 370),
    (64, 2, 3, 2, 0),
    (64, 2, 3, 2, 1500),
    (64, 1, 8, 2, 370),
    (64, 1, 1, 2, 370),
    (64, 1, 1, 1, 370),
)
#: ``--mma``: the walk with tensor-core work between tiles (kv_walk_mma), FMA rounds replaced
#: by ldmatrix + 8 mma.sync rounds: (head MiB, heads, waves per head, CTAs per SM, rounds)
MMA_LAUNCHES = (
    (64, 2, 3, 1, 24),
    (64, 2, 3, 2, 24),
    (64, 2, 3, 3, 24),
    (32, 2, 3, 2, 24),
    (64, 2, 3, 2, 48),
    (64, 4, 4, 2, 24),
)
#: ``--drift``: kv_walk_mma at five amounts of tensor-core work per tile, each alone on its SM
#: and two to an SM (three at two amounts), 8 generations of 32-MiB heads: how fast SM-mates
#: drift apart against how much they slow each other (the life at 2 or 3 per SM over the life
#: alone), the two numbers the K/V trace's SM-mate priority is calibrated from
DRIFT_LAUNCHES = (
    *((32, 2, 4, c, w) for w in (6, 12, 24, 48, 96) for c in (1, 2)),
    *((32, 2, 4, 3, 12), (32, 2, 4, 3, 48), (32, 2, 4, 2, 32), (32, 2, 4, 1, 32)),
)
#: ``--mix``: kv_walk_mix, the products of each tile followed by a softmax-like pass (ex2 and
#: FMAs over the accumulators) as an attention step has: (head MiB, heads, waves per head,
#: CTAs per SM, mma rounds, mix rounds); whether SM-mates drift apart faster when their steps
#: alternate pipes than kv_walk_mma's at the same step time
MIX_LAUNCHES = (
    *((32, 2, 4, 2, 24, m) for m in (0, 2, 6, 12)),
    (32, 2, 4, 1, 24, 6),
    (32, 2, 4, 2, 32, 4),
    (32, 2, 4, 1, 32, 4),
    (32, 2, 4, 2, 12, 6),
)
#: the grid is dispatched on all SMs: the waves count that
SCRATCH_BYTES = 256 << 20
RESERVED_BYTES = 1024
METRICS = (
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "gpu__time_duration.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum",
    "launch__grid_size",
    "launch__occupancy_limit_shared_mem",
)


def dynamic_smem(smem_per_sm: int, ctas_per_sm: int) -> int:
    """Dynamic shared memory per CTA that lets exactly ``ctas_per_sm`` CTAs share an SM (at
    least the two 32-KiB stages)."""
    most = smem_per_sm // ctas_per_sm - RESERVED_BYTES
    fewest = smem_per_sm // (ctas_per_sm + 1) - RESERVED_BYTES + 1024
    return max(2 * TILE_BYTES, min(most, fewest))


def launch(plan_path: Path, mma: bool = False, drift: bool = False, mix: bool = False) -> None:
    """Run every launch once (``mma``: :data:`MMA_LAUNCHES` of kv_walk_mma; ``drift``:
    :data:`DRIFT_LAUNCHES` of kv_walk_mma), a flush before each; write the plan and the
    stamps."""
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.sources import compile_module, kernel_attributes

    mod = compile_module(cp, "kv_walk.cu")
    kernel = "kv_walk_mix" if mix else "kv_walk_mma" if mma or drift else "kv_walk"
    fn, flush = mod.get_function(kernel), mod.get_function("kv_walk_flush")
    launches = (
        MIX_LAUNCHES if mix else DRIFT_LAUNCHES if drift else MMA_LAUNCHES if mma else LAUNCHES
    )
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms, smem_per_sm = int(props["multiProcessorCount"]), int(props["sharedMemPerMultiprocessor"])
    most_bytes = max(m * h for m, h, *_ in launches) << 20
    src = cp.random.randint(1, 2**31, size=most_bytes // 4, dtype=cp.int64).astype(cp.uint32)
    scratch = cp.empty(SCRATCH_BYTES // 4, dtype=cp.uint32)
    plan: list[dict[str, Any]] = []
    for head_mib, heads, waves_per_head, cps, work, *rest in launches:
        dyn = dynamic_smem(smem_per_sm, cps)
        fn.max_dynamic_shared_size_bytes = dyn
        per_head = waves_per_head * sms * cps
        grid = per_head * heads
        head_words = (head_mib << 20) // 16
        tiles = (head_mib << 20) // TILE_BYTES
        stamps = cp.zeros(3 * grid, dtype=cp.uint64)
        out = cp.full(grid * THREADS, cp.nan, dtype=cp.float32)
        flush((sms * 4,), (256,), (scratch, np.uint64(SCRATCH_BYTES // 16)))
        args = (src, np.uint64(head_words), np.int32(per_head), np.int32(tiles), np.int32(work))
        args += tuple(np.int32(m) for m in rest)  # kv_walk_mix: its mix rounds
        fn((grid,), (THREADS,), (*args, stamps, out), shared_mem=dyn)
        cp.cuda.Device().synchronize()
        if not bool(cp.isfinite(out).all()):
            raise RuntimeError(f"kv_walk {head_mib} MiB x {heads}, {cps}/SM: non-finite output")
        st = cp.asnumpy(stamps).reshape(grid, 3)
        plan.append(
            {"kernel": kernel, "head_mib": head_mib, "heads": heads,
             "waves_per_head": waves_per_head, "ctas_per_sm": cps, "work": work,
             "mix": rest[0] if rest else 0,
             "grid": grid, "ctas_per_head": per_head,
             "tiles": tiles, "dynamic_smem_bytes": dyn, "sm_count": sms,
             "kernel_attributes": kernel_attributes(fn),
             "smid": st[:, 0].astype(int).tolist(),
             "start_ns": (st[:, 1] - st[:, 1].min()).astype(int).tolist(),
             "end_ns": (st[:, 2] - st[:, 1].min()).astype(int).tolist()}
        )  # fmt: skip
    plan_path.write_text(json.dumps(plan))


def record(
    ncu: str, mma: bool = False, timeout_s: float = 500, drift: bool = False, mix: bool = False
) -> dict[str, Any]:
    """The launches under ``ncu`` (no cache flush of its own, clocks as they are): per launch
    its plan entry, stamps and metrics."""
    from gpusim.ncu import parse_csv

    with tempfile.TemporaryDirectory() as tmp:
        plan_path = Path(tmp) / "plan.json"
        cmd = [ncu, "--clock-control", "none", "--cache-control", "none", "--csv",
               "--kernel-name", "regex:^kv_walk(_mma|_mix)?$", "--page", "raw",
               "--print-units", "base",
               "--metrics", ",".join(METRICS), sys.executable, "-m",
               "gpusim.calibrate.kv_walk", "--launch", str(plan_path),
               *(["--mma"] if mma else []), *(["--drift"] if drift else []),
               *(["--mix"] if mix else [])]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        kernels = parse_csv(proc.stdout)
        plan = json.loads(plan_path.read_text()) if plan_path.exists() else []
    doc = {"kind": "gpusim.kv_walk", "command": " ".join(cmd), "exit_code": proc.returncode,
           "log_tail": proc.stderr[-2000:], "records": []}  # fmt: skip
    for p, k in zip(plan, kernels, strict=False):
        doc["records"].append({**p, "name": k["name"], "metrics": k["metrics"]})
    doc["planned_launches"], doc["profiled_kernels"] = len(plan), len(kernels)
    return doc


def passes(r: dict[str, Any]) -> dict[str, float]:
    """DRAM passes over the heads' bytes per launch, per head and per wave of CTAs."""
    head_bytes = r["head_mib"] << 20
    waves = r["grid"] / (r["sm_count"] * r["ctas_per_sm"])
    n = r["metrics"]["dram__bytes_read.sum"] / head_bytes
    return {"passes": n, "per_head": n / r["heads"], "per_wave": n / waves, "waves": waves}


def drift(r: dict[str, Any]) -> dict[str, float]:
    """How far the CTAs of one generation (``sm_count x CTAs/SM`` consecutive CTAs, a wave
    when they keep in step) start apart, in CTA lifetimes (the median CTA's start-to-end):
    the spread between the 10th and 90th percentile of their starts, median over the
    generations after the first; and how far apart the CTAs sharing an SM start, median."""
    import numpy as np

    start = np.asarray(r["start_ns"], dtype=float)
    end = np.asarray(r["end_ns"], dtype=float)
    life = float(np.median(end - start))
    spreads = generation_spreads(start, end, r["sm_count"] * r["ctas_per_sm"])[1:]
    pair = []
    smid = np.asarray(r["smid"])
    for sm in np.unique(smid):
        idx = np.flatnonzero(smid == sm)
        for i in idx:
            # co-resident CTAs: others on this SM whose life overlaps this one's middle
            mid = (start[i] + end[i]) / 2
            others = idx[(start[idx] <= mid) & (end[idx] >= mid) & (idx != i)]
            pair.extend(abs(start[others] - start[i]) / life)
    return {
        "life_ms": life / 1e6,
        "spread": float(np.median(spreads)) if spreads.size else 0.0,
        "pair_offset": float(np.median(pair)) if pair else 0.0,
    }


def _work_kind(r: dict[str, Any]) -> str:
    """How a launch's work column reads: FMA rounds, mma rounds, or mma + mix rounds."""
    if r.get("kernel") == "kv_walk_mix":
        return f" mma + {r['mix']} mix"
    return " mma" if r.get("kernel") == "kv_walk_mma" else ""


def table(doc: dict[str, Any]) -> str:
    """One line per launch: shape, DRAM passes per wave, duration."""
    if doc.get("kind") != "gpusim.kv_walk":
        raise ValueError("not a kv_walk record")
    lines = ["| head MiB | heads | waves/head | CTAs/SM | work | DRAM passes | per wave | ms "
             "| CTA life ms | start spread | SM-mates apart |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in doc["records"]:
        p = passes(r)
        ms = r["metrics"]["gpu__time_duration.sum"] / 1e6
        d = drift(r)
        lines.append(
            f"| {r['head_mib']} | {r['heads']} | {r['waves_per_head']} | {r['ctas_per_sm']} "
            f"| {r['work']}{_work_kind(r)} "
            f"| {p['passes']:.2f} | {p['per_wave']:.2f} | {ms:.2f} "
            f"| {d['life_ms']:.2f} | {d['spread']:.3f} | {d['pair_offset']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path, help="print the passes of a recorded run")
    ap.add_argument("--mma", action="store_true", help="the walk with tensor-core work")
    ap.add_argument(
        "--drift",
        action="store_true",
        help="kv_walk_mma at several amounts of work, 1-3 CTAs/SM (DRIFT_LAUNCHES)",
    )
    ap.add_argument(
        "--mix", action="store_true", help="kv_walk_mix: products then exponentials per tile"
    )
    ap.add_argument("--launch", type=Path, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.launch is not None:
        launch(a.launch, a.mma, a.drift, a.mix)
        return 0
    if a.table is not None:
        return print_table(a.table, table, "kv_walk")
    if a.out is None:
        ap.error("--out or --table is required")
    from gpusim.ncu import find_ncu

    ncu = find_ncu()
    if ncu is None:
        print("error: ncu not found", file=sys.stderr)
        return 2
    doc = record(ncu, a.mma, drift=a.drift, mix=a.mix)
    atomic.write_text(a.out, json.dumps(doc))
    print(f"wrote {a.out}: {len(doc['records'])} launches", file=sys.stderr)
    print(table(doc))
    return 0 if doc["records"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
