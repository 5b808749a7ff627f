"""Scale of ``gpusim explore``: points per second per core, and peak memory against points.

    .venv/bin/python benchmarks/bench_explore.py [--points 10000] [--small 1000] [--jobs N]
        [--executor local|dask]

Each size runs in a fresh process (so its peak RSS is its own): a sweep of tuned points,
each a tiny flash2 workload (B1 H2 N128 d64 fp16: a real search of ~20 schedules, about
30 ms) on an H200 whose SM count, L2 size and DRAM bandwidth are varied, written to a
temporary folder with its table, summary and figures. Printed per size: the points, the
sweep's wall time, points/s/core (wall), its CPU seconds and points per CPU-second (what
one core does when it is not shared: the figure to scale from), the time to resume the
finished sweep (table, summary and figures again, no point run), the parent's and the
largest worker's peak RSS. With ``--executor dask`` the workers' CPU is not counted (they
are not this process's children): read the wall rate on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SM_COUNTS = [8 + 5 * i for i in range(25)]  # 8 .. 128
L2_MIB = [4 * (i + 1) for i in range(20)]  # 4 .. 80 MiB


def spec_text(points: int) -> str:
    """A spec of ``points`` tuned points (a multiple of 500)."""
    per_bw = len(SM_COUNTS) * len(L2_MIB)
    if points % per_bw:
        raise SystemExit(f"--points must be a multiple of {per_bw}")
    bandwidths = [1.0e12 + 0.25e12 * i for i in range(points // per_bw)]
    return json.dumps(
        {
            "base_profile": "h200-sxm",
            "vary": {
                "sm_count": SM_COUNTS,
                "l2_bytes": [m * 1024 * 1024 for m in L2_MIB],
                "dram_bandwidth_bytes_per_s": bandwidths,
            },
            "workloads": [{"batch": 1, "heads": 2, "seq_len": 128, "head_dim": 64}],
            "algorithms": ["flash2"],
        }
    )


def _cpu_s() -> float:
    """CPU seconds of this process and its finished children (the local pool's workers)."""
    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run_one(points: int, jobs: int, executor: str) -> dict:
    """One sweep in this process; what it measured."""
    from gpusim.explore import explore, load_plan

    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        spec.write_text(spec_text(points))
        plan = load_plan(spec)
        kwargs = {"jobs": jobs} if executor == "local" else {"workers": jobs}
        cpu0 = _cpu_s()
        t0 = time.perf_counter()
        result = explore(plan, Path(tmp) / "out", executor=executor, **kwargs)
        sweep_s = time.perf_counter() - t0
        cpu_s = _cpu_s() - cpu0
        t0 = time.perf_counter()
        again = explore(plan, Path(tmp) / "out", jobs=1)
        resume_s = time.perf_counter() - t0
        assert again.sweep.ran == 0 and result.summary["ok"] == points, result.summary
    kib = 1024
    return {
        "points": points,
        "jobs": jobs,
        "executor": executor,
        "sweep_s": sweep_s,
        "points_per_s_per_core": points / sweep_s / jobs,
        "cpu_s": cpu_s,
        "points_per_cpu_s": points / cpu_s,
        "resume_s": resume_s,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / kib,
        "worker_peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / kib,
    }


def main() -> None:
    from gpusim.parallel_map import default_jobs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--small", type=int, default=1000, help="the smaller size, for memory")
    ap.add_argument("--jobs", type=int, default=default_jobs())
    ap.add_argument("--executor", default="local", choices=["local", "dask"])
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child run of one size
    args = ap.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.jobs, args.executor)))
        return
    print(f"{'points':>7} {'jobs':>4} {'sweep s':>8} {'pts/s/core':>10} {'CPU s':>7} "
          f"{'pts/CPU-s':>9} {'resume s':>8} {'RSS MiB':>8} {'worker MiB':>10}  "
          f"({args.executor})")  # fmt: skip
    for n in (args.small, args.points):
        cmd = [sys.executable, __file__, "--one", str(n), "--jobs", str(args.jobs),
               "--executor", args.executor]  # fmt: skip
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        print(f"{r['points']:7d} {r['jobs']:4d} {r['sweep_s']:8.1f} "
              f"{r['points_per_s_per_core']:10.2f} {r['cpu_s']:7.0f} {r['points_per_cpu_s']:9.2f} "
              f"{r['resume_s']:8.1f} "
              f"{r['peak_rss_mib']:8.0f} {r['worker_peak_rss_mib']:10.0f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
