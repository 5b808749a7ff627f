"""Timings of ``gpusim tune``: one workload's whole search, and a sweep on one and on all cores.

    .venv/bin/python benchmarks/bench_tune.py [--quick] [--old-path] [--profile NAME]

Target (issue 6): the whole search for one workload in under 10 s on the 2-core machine,
the causal one included (``gpusim tune --head-dim 128 --seq-len 4096 --dtype bf16
--causal``). The causal search rests on the batch-head extrapolation of the aggregated
path (gpusim/engine/bh_skip.py); ``--old-path`` also runs it without (minutes) and prints
the speed-up and the largest change of a candidate's predicted runtime.
"""

from __future__ import annotations

import argparse
import time

from gpusim.engine import simulate
from gpusim.parallel_map import default_jobs
from gpusim.profiles import load_profile
from gpusim.tuning.tune_many import TuneTask, tune_many
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


def simulate_without_extrapolation(*args, **kw):
    """The aggregated path as it was before batch-head extrapolation."""
    return simulate(*args, extrapolate=False, **kw)


def causal(profile, jobs: int, old_path: bool) -> None:
    """The causal search against the non-causal one, and (``old_path``) against no extrapolation."""
    causal_w = EXAMPLE.model_copy(update={"causal": True})
    t0 = time.perf_counter()
    tune("flash2", EXAMPLE, profile, jobs=jobs)
    plain_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    new = tune("flash2", causal_w, profile, jobs=jobs)
    causal_s = time.perf_counter() - t0
    print(f"causal search {causal_s:.2f} s, non-causal {plain_s:.2f} s: "
          f"ratio {causal_s / plain_s:.2f} (target: causal under 10 s)")  # fmt: skip
    if not old_path:
        return
    t0 = time.perf_counter()
    old = tune("flash2", causal_w, profile, simulate=simulate_without_extrapolation, jobs=jobs)
    old_s = time.perf_counter() - t0
    was = {c.schedule: c.runtime_s for c in old.candidates}
    dev = max(abs(c.runtime_s / was[c.schedule] - 1) for c in new.candidates)
    same = new.best.schedule == old.best.schedule
    print(f"causal search without extrapolation {old_s:.2f} s: speed-up {old_s / causal_s:.1f}x; "
          f"largest runtime change of a candidate {dev:.3%}; "
          f"first choice {'the same' if same else 'differs'}")  # fmt: skip


class _Unsimulated:
    """What the recording stand-in for the engine returns (the tuner reads these fields)."""

    runtime_s = 1.0
    dram_read_bytes = dram_write_bytes = global_read_bytes = global_write_bytes = 0
    ctas_per_sm = 1
    bound = "none"


def _both_paths(item):
    w, s, kw = item
    profile = load_profile("h200-sxm")
    a = simulate("flash2", w, s, profile, extrapolate=False, **kw)
    b = simulate("flash2", w, s, profile, **kw)
    return a.runtime_s, b.runtime_s, a.dram_read_bytes, b.dram_read_bytes


def proof_deviation(jobs: int) -> None:
    """Every candidate of the causal tuning-proof workloads, with and without extrapolation."""
    import json

    from gpusim.parallel_map import pmap
    from gpusim.tuning.proof_report import MEASURED as proof

    profile = load_profile("h200-sxm")
    items = []
    for wd in json.loads(proof.read_text())["workloads"]:
        w = Workload(**wd["workload"])
        if not w.causal:
            continue

        def record(_alg, _w, s, _p, w=w, **kw):
            items.append((w, s, kw))
            return _Unsimulated()

        tune("flash2", w, profile, simulate=record, jobs=1)
    t0 = time.perf_counter()
    rows = pmap(_both_paths, items, jobs)
    worst_t = max(abs(b / a - 1) for a, b, _, _ in rows)
    worst_d = max(abs(db / da - 1) for _, _, da, db in rows)
    picks = {}
    for (w, s, _kw), (a, b, _, _) in zip(items, rows, strict=True):
        picks.setdefault(w.model_dump_json(), []).append((a, b, s))
    lost = []
    for cands in picks.values():
        best_plain = min(c[0] for c in cands)
        pick = min(cands, key=lambda c: c[1])
        lost.append(pick[0] / best_plain - 1)
    took = time.perf_counter() - t0
    print(f"{len(rows)} candidates of {len(picks)} causal proof workloads ({took:.0f} s): "
          f"largest runtime change {worst_t:.3%}, largest DRAM-read change {worst_d:.3%}; "
          f"first choices {sum(x == 0 for x in lost)} of {len(lost)} the same, worst "
          f"{max(lost):.3%} slower on the plain path")  # fmt: skip


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
    ap.add_argument("--old-path", action="store_true", help="also the causal search as it was")
    ap.add_argument("--profile", default="h200-sxm", help="e.g. h200-sxm-core, the proof's")
    ap.add_argument(
        "--proof-deviation",
        action="store_true",
        help="only: extrapolated vs plain runtimes of the causal tuning-proof candidates (minutes)",
    )
    args = ap.parse_args()
    if args.proof_deviation:
        proof_deviation(default_jobs())
        return
    profile = load_profile(args.profile)
    t0 = time.perf_counter()
    tune("flash2", EXAMPLE.model_copy(update={"seq_len_q": 256, "seq_len_k": 256}), profile)
    print(f"first call (imports, warm-up): {time.perf_counter() - t0:.2f} s")
    for jobs in sorted({1, default_jobs()}):
        print(f"\none workload's whole search, candidates on {jobs} process(es):")
        single(profile, jobs)
    print()
    causal(profile, default_jobs(), args.old_path)
    print()
    sweep(profile, args.quick)


if __name__ == "__main__":
    main()
