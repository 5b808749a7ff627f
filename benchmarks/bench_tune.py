"""Timings of ``gpusim tune``: one workload's whole search, and a sweep on one and on all cores.

    .venv/bin/python benchmarks/bench_tune.py [--quick]

Target (issue 6): the whole search for one workload in under 10 s on the 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpusim.profiles import load_profile
from gpusim.tuning.parallel import default_jobs
from gpusim.tuning.sweep import TuneTask, tune_many
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

EXAMPLE = Workload(batch=8, heads=32, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16")


def single(profile, jobs: int) -> None:
    """One search per line: the README example, causal, a small SRAM, a long sequence."""
    cases = [
        ("d128 N4096 bf16 (example)", EXAMPLE, None),
        ("d128 N4096 bf16 causal", EXAMPLE.model_copy(update={"causal": True}), None),
        ("d128 N4096 bf16 --sram-kib 64", EXAMPLE, 64 * 1024),
        ("d64 N16384 fp16 B1 H32", Workload(batch=1, heads=32, seq_len_q=16384,
                                             seq_len_k=16384, head_dim=64), None),
        ("d128 N131072 bf16 B1 H32", Workload(batch=1, heads=32, seq_len_q=131072,
                                               seq_len_k=131072, dtype="bf16"), None),
    ]  # fmt: skip
    print(f"{'workload':34} {'schedules':>9} {'simulated':>9} {'check s':>8} {'sim s':>8} "
          f"{'total s':>8}")  # fmt: skip
    for name, w, sram in cases:
        t0 = time.perf_counter()
        r = tune("flash2", w, profile, sram, jobs=jobs)
        total = time.perf_counter() - t0
        n = len(r.candidates) + len(r.rejected)
        print(f"{name:34} {n:9d} {len(r.candidates):9d} {r.stats['check_s']:8.2f} "
              f"{r.stats['simulate_s']:8.2f} {total:8.2f}")  # fmt: skip


def sweep(profile, quick: bool) -> None:
    """The same sweep on one process and on every core."""
    lengths = (512, 2048) if quick else (512, 1024, 2048, 4096, 8192, 16384)
    tasks = [
        TuneTask("flash2", Workload(batch=max(1, 16384 // n), heads=2048 // d, seq_len_q=n,
                                    seq_len_k=n, head_dim=d, dtype="bf16", causal=c), profile)
        for d in (64, 128) for c in (False, True) for n in lengths
    ]  # fmt: skip
    for jobs in sorted({1, default_jobs()}):
        t0 = time.perf_counter()
        tune_many(tasks, jobs=jobs)
        dt = time.perf_counter() - t0
        print(f"sweep of {len(tasks)} workloads, {jobs} process(es): {dt:.2f} s "
              f"({dt / len(tasks):.2f} s per workload)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a shorter sweep")
    args = ap.parse_args()
    profile = load_profile("h200-sxm")
    t0 = time.perf_counter()
    tune("flash2", EXAMPLE.model_copy(update={"seq_len_q": 256, "seq_len_k": 256}), profile)
    print(f"first call (imports, warm-up): {time.perf_counter() - t0:.2f} s")
    for jobs in sorted({1, default_jobs()}):
        print(f"\none workload's whole search, candidates on {jobs} process(es):")
        single(profile, jobs)
    print()
    sweep(profile, args.quick)


if __name__ == "__main__":
    main()
