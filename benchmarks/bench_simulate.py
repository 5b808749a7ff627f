"""Timings of the engine, side by side with the engine before SimPy (commit 5bcb19d).

    python benchmarks/bench_simulate.py [--quick] [--repeat N] [--baseline COMMIT]

Targets (issue 17), on the 2-core machine:

- ``gpusim simulate`` with no options (standard and flash2, batch 8, heads 32,
  N 2048, d 128, fp16, h200-sxm) in under 1 s of wall time, start-up included;
- flash2, batch 1, heads 32, N 131072, d 128 in under 2 s, with memory flat in N;
- the aggregated path within 1% of the detailed one (runtime and DRAM bytes)
  where the detailed one is affordable.

The first table runs every case as a whole ``gpusim`` command on this checkout
and on ``--baseline`` (exported with ``git archive`` into a temporary folder and
put first on ``PYTHONPATH``), alternating, and prints each one's events, its
best wall time of ``--repeat`` runs and the ratio of the two wall times; "same"
says the two predicted identical runtimes and DRAM bytes. Wall times depend on
what else the machine runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from gpusim.engine import simulate
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

ROOT = Path(__file__).resolve().parents[1]
H200 = "h200-sxm"
#: The last commit of the engine on its own event loop.
BASELINE = "5bcb19d"

#: (label, ``gpusim simulate`` arguments, also timed without ``--json``)
#: Flash2 cases pin the schedule (Schedule()'s defaults, 128x64 w4 s2): since 2026-12-01 the
#: CLI's default flash2 schedule is one the tuner accepts, so the two trees would otherwise
#: time different schedules.
PINNED = "--block-m 128 --block-n 64 --warps 4 --stages 2"
CASES = [
    ("default (standard + flash2)", "", True),
    ("flash2 default workload, pinned schedule", f"-a flash2 {PINNED}", False),
    ("flash2 B1 H32 N131072 d128", f"-a flash2 --batch 1 --seq-len 131072 {PINNED}", False),
    ("flash2 causal B4 H16 N4096 bf16", f"-a flash2 --batch 4 --heads 16 --causal {PINNED}", False),
    (
        "flash2 B1 H4 N1024 --detail full",
        f"-a flash2 --batch 1 --heads 4 --detail full {PINNED}",
        False,
    ),
    ("standard h200-sxm-core N1024", "-p h200-sxm-core --seq-len 1024", False),
]
#: the rest of the arguments where a line would not fit
WORKLOAD_TAIL = {
    "flash2 causal B4 H16 N4096 bf16": ["--seq-len", "4096", "--dtype", "bf16"],
    "flash2 B1 H4 N1024 --detail full": ["--seq-len", "1024"],
}
QUICK = {
    "default (standard + flash2)",
    "flash2 default workload, pinned schedule",
    "flash2 B1 H32 N131072 d128",
}


def export_baseline(commit: str, into: Path) -> Path:
    """The tree of ``commit`` unpacked under ``into`` (``git archive``; no worktree made)."""
    tar = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(tar)) as t:
        t.extractall(into, filter="data")
    return into


def _command(args: list[str], code: Path | None, cwd: Path) -> tuple[float, str]:
    """Wall seconds of one ``gpusim simulate`` run (start-up included) and its stdout."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if code is not None:
        env["PYTHONPATH"] = str(code)  # ahead of the installed (editable) package
    cmd = [sys.executable, "-m", "gpusim.cli.main", "simulate", *args]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, out.stdout


def _results(stdout: str) -> list[dict]:
    d = json.loads(stdout)
    return d.get("results", [d])


def side_by_side(base: Path, commit: str, repeat: int, quick: bool) -> None:
    """Each case on this checkout and on the baseline: events, best wall time, ratio."""
    what = " (the engine before SimPy)" if commit == BASELINE else ""
    print(f"this checkout against {commit}{what}, best of {repeat}")
    print(f"  {'case':42} {'events':>8} {'before':>8} {'wall s':>7} {'before':>7} {'ratio':>6}"
          f"  predictions")  # fmt: skip
    neutral = base.parent  # a cwd that puts neither tree on sys.path
    for label, line, plain_too in CASES:
        args = line.split() + WORKLOAD_TAIL.get(label, [])
        if quick and label not in QUICK:
            continue
        modes = [("--json", [*args, "--json"])]
        if plain_too:
            modes.append(("no options" if not args else "table", args))
        for mode, argv in modes:
            walls: dict[str, float] = {"new": float("inf"), "old": float("inf")}
            outs: dict[str, str] = {}
            for _ in range(repeat):  # alternate, so that both see the same load
                for key, code in (("new", ROOT), ("old", base)):
                    wall, out = _command(argv, code, neutral)
                    walls[key] = min(walls[key], wall)
                    outs[key] = out
            name = f"{label} ({mode})"
            ratio = walls["new"] / walls["old"]
            if mode != "--json":
                print(f"  {name:42} {'':>8} {'':>8} {walls['new']:7.3f} {walls['old']:7.3f}"
                      f" {ratio:6.2f}")  # fmt: skip
                continue
            new, old = _results(outs["new"]), _results(outs["old"])
            keys = ("runtime_s", "dram_read_bytes", "dram_write_bytes")
            same = all(a[k] == b[k] for a, b in zip(new, old, strict=True) for k in keys)
            tiles = ("block_m", "block_n", "warps", "stages")
            moved = any(
                [a["schedule"][k] for k in tiles] != [b["schedule"][k] for k in tiles]
                for a, b in zip(new, old, strict=True)
            )
            verdict = "same" if same else "DIFFER"
            if moved:  # the default schedule changed (2026-12-01): not an engine comparison
                verdict = "other default schedule"
            ev_new = sum(r["events"] for r in new)
            ev_old = sum(r["events"] for r in old)
            print(f"  {name:42} {ev_new:8,} {ev_old:8,} {walls['new']:7.3f} {walls['old']:7.3f}"
                  f" {ratio:6.2f}  {verdict}")  # fmt: skip


def long_sequence(repeat: int, lengths: tuple[int, ...]) -> None:
    """flash2 at growing N: wall time, events, and the peak memory of a fresh process."""
    print("flash2 B1 H32 d128 fp16 on h200-sxm, aggregated path (this checkout, in process)")
    print(f"  {'N':>7} {'wall s':>7} {'events':>7} {'events/s':>9} {'max RSS MB':>10}"
          f"  {'runtime ms':>10} {'DRAM read GB':>12}")  # fmt: skip
    for n in lengths:
        code = (
            "import json,time;"
            "from gpusim.engine import simulate;from gpusim.profiles import load_profile;"
            "from gpusim.schedule import Schedule;from gpusim.workload import Workload;"
            f"w=Workload(batch=1,heads=32,seq_len_q={n},seq_len_k={n});"
            "best=1e9\n"
            f"for _ in range({repeat}):\n"
            " t=time.perf_counter();r=simulate('flash2',w,Schedule(),load_profile('h200-sxm'));"
            "best=min(best,time.perf_counter()-t)\n"
            # VmHWM, not ru_maxrss: Linux carries the latter over from the forked parent
            "hwm=[l for l in open('/proc/self/status') if l.startswith('VmHWM')][0];"
            "print(json.dumps([best,r.events,r.events_per_s,int(hwm.split()[1])/1024,"
            "r.runtime_s,r.dram_read_bytes]))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
        wall, events, eps, rss, runtime, dram = json.loads(out)
        print(f"  {n:7d} {wall:7.3f} {events:7d} {eps:9,.0f} {rss:10.1f}  {runtime * 1e3:10.3f}"
              f" {dram / 1e9:12.3f}")  # fmt: skip


def _best(fn, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


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
    """Run the benchmarks (``--quick``: fewer cases and smaller ones)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the two target cases, smaller sweeps")
    ap.add_argument("--repeat", type=int, default=5, help="runs per case and engine (best kept)")
    ap.add_argument("--baseline", default=BASELINE, help="commit to compare against")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpusim_baseline_") as tmp:
        base = export_baseline(args.baseline, Path(tmp) / "tree")
        side_by_side(base, args.baseline, args.repeat, args.quick)
    repeat = 1 if args.quick else 3
    lengths = (16384, 131072) if args.quick else (16384, 32768, 65536, 131072)
    long_sequence(repeat, lengths)
    cases = [(2, 9, 2048)] if args.quick else [(2, 9, 2048), (1, 16, 4096), (1, 8, 8192)]
    paths(cases)


if __name__ == "__main__":
    main()
