"""Timings of the engine: the default ``gpusim simulate``, a 128k-token flash2, and both paths.

    .venv/bin/python benchmarks/bench_simulate.py [--quick]

Targets (issue 3), on the 2-core machine:

- ``gpusim simulate`` with no options (standard and flash2, batch 8, heads 32,
  N 2048, d 128, fp16, h200-sxm) in under 1 s of wall time, start-up included;
- flash2, batch 1, heads 32, N 131072, d 128 in under 10 s, with memory flat in N;
- the aggregated path within 1% of the detailed one (runtime and DRAM bytes)
  where the detailed one is affordable.

Wall times depend on what else the machine runs; each line is the best of a few runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpusim.engine import simulate  # noqa: E402
from gpusim.profiles import load_profile  # noqa: E402
from gpusim.schedule import Schedule  # noqa: E402
from gpusim.workload import Workload  # noqa: E402

H200 = "h200-sxm"


def _best(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def cli_default(repeat: int) -> None:
    """The whole command, interpreter start-up included."""
    cmd = [sys.executable, "-m", "gpusim.cli.main", "simulate", "--json"]

    def run():
        return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout

    wall, out = _best(run, repeat)
    d = json.loads(out)
    print(f"gpusim simulate (CLI, both algorithms)        {wall:7.3f} s wall  (target < 1 s)")
    for r in d["results"]:
        mb_r, mb_w = r["dram_read_bytes"] / 1e6, r["dram_write_bytes"] / 1e6
        print(
            f"  {r['algorithm']:9} runtime {r['runtime_s'] * 1e3:8.4f} ms"
            f"  {r['tflops']:6.1f} TFLOP/s  DRAM R {mb_r:9.1f} MB  W {mb_w:8.1f} MB"
            f"  events {r['events']:6,}  engine {r['events_per_s']:8,.0f} events/s"
        )


def long_sequence(repeat: int, lengths: tuple[int, ...]) -> None:
    """flash2 at growing N: wall time, events, and the peak memory of a fresh process."""
    print("flash2 B1 H32 d128 fp16 on h200-sxm, aggregated path")
    print(f"  {'N':>7} {'wall s':>7} {'events':>7} {'events/s':>9} {'max RSS MB':>10}"
          f"  {'runtime ms':>10} {'DRAM read GB':>12}")  # fmt: skip
    for n in lengths:
        code = (
            "import json,resource,time,sys;"
            f"sys.path.insert(0,{str(ROOT)!r});"
            "from gpusim.engine import simulate;from gpusim.profiles import load_profile;"
            "from gpusim.schedule import Schedule;from gpusim.workload import Workload;"
            f"w=Workload(batch=1,heads=32,seq_len_q={n},seq_len_k={n});"
            "best=1e9\n"
            f"for _ in range({repeat}):\n"
            " t=time.perf_counter();r=simulate('flash2',w,Schedule(),load_profile('h200-sxm'));"
            "best=min(best,time.perf_counter()-t)\n"
            "print(json.dumps([best,r.events,r.events_per_s,"
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024,r.runtime_s,"
            "r.dram_read_bytes]))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
        wall, events, eps, rss, runtime, dram = json.loads(out)
        print(f"  {n:7d} {wall:7.3f} {events:7d} {eps:9,.0f} {rss:10.1f}  {runtime * 1e3:10.3f}"
              f" {dram / 1e9:12.3f}")  # fmt: skip


def paths(cases) -> None:
    """Detailed against aggregated: wall-time ratio and agreement."""
    profile = load_profile(H200)
    print("detailed vs aggregated (flash2, h200-sxm)")
    print(f"  {'workload':18} {'full s':>7} {'agg s':>7} {'speed-up':>8} {'events full':>11}"
          f" {'events agg':>10} {'runtime diff':>12} {'DRAM diff':>9}")  # fmt: skip
    for b, h, n in cases:
        w = Workload(batch=b, heads=h, seq_len_q=n, seq_len_k=n)
        tf, full = _best(lambda w=w: simulate("flash2", w, Schedule(), profile, detail="full"), 1)
        ta, agg = _best(
            lambda w=w: simulate("flash2", w, Schedule(), profile, detail="aggregated"), 3
        )
        dr = agg.runtime_s / full.runtime_s - 1
        dd = agg.dram_read_bytes / full.dram_read_bytes - 1
        print(f"  B{b} H{h} N{n:<10} {tf:7.2f} {ta:7.3f} {tf / ta:7.0f}x {full.events:11,}"
              f" {agg.events:10,} {dr:+12.3%} {dd:+9.3%}")  # fmt: skip


def main() -> None:
    """Run the benchmarks (``--quick``: fewer repeats and smaller cases)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one repeat, smaller cases")
    args = ap.parse_args()
    repeat = 1 if args.quick else 3
    cli_default(repeat)
    lengths = (16384, 131072) if args.quick else (16384, 32768, 65536, 131072)
    long_sequence(repeat, lengths)
    cases = [(2, 9, 2048)] if args.quick else [(2, 9, 2048), (1, 16, 4096), (1, 8, 8192)]
    paths(cases)


if __name__ == "__main__":
    main()
