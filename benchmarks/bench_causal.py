"""Causal grids at any length: wall time and events, beside the engine before lumping (ee38197).

    python benchmarks/bench_causal.py [--repeat N] [--baseline COMMIT] [--full]

Targets (issue 18), on the 2-core machine, the whole ``gpusim simulate`` command:

- causal flash2, batch 1, heads 16, d128, bf16, 128x64 tiles: 131072 tokens in under 5 s,
  1,048,576 tokens in under 30 s;
- ``gpusim simulate --causal`` on the default workload (standard and flash2) works;
- flash1 (and the streamed softmaxes of standard attention at rows too long for its
  on-chip row) at the same lengths: flash1 at 1,048,576 tokens, causal or not, under 30 s;
- within 1 % of the detailed simulation where that one is affordable (``--full``: the
  16384-token case in detail, about 15 s; ``--full-32k`` also 32768 tokens, about 5 min).

Each case runs as a whole ``gpusim simulate --json`` command on this checkout and on
``--baseline`` (exported with ``git archive``, as ``bench_simulate.py`` does), best of
``--repeat``; where the baseline refuses, its one-line error is printed instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_simulate import export_baseline  # benchmarks/ is on sys.path when run as a script

from gpusim.engine import simulate
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The commit before compressed programs and lumped causal grids.
BASELINE = "ee38197"
FLASH2 = "-a flash2 --batch 1 --heads 16 --head-dim 128 --dtype bf16 --block-m 128 --block-n 64"
CASES = [
    ("flash2 causal B1 H16 N16384", f"{FLASH2} --seq-len 16384 --causal"),
    ("flash2 causal B1 H16 N131072", f"{FLASH2} --seq-len 131072 --causal"),
    ("flash2 causal B1 H16 N1048576", f"{FLASH2} --seq-len 1048576 --causal"),
    ("defaults --causal (standard + flash2)", "--causal"),
    ("flash1 B1 H32 N1048576", "-a flash1 --batch 1 --heads 32 --seq-len 1048576"),
    ("flash1 causal B1 H32 N1048576", "-a flash1 --batch 1 --heads 32 --seq-len 1048576 --causal"),
    (
        "softmax-online causal B1 H16 N131072",
        "-a softmax-online --batch 1 --heads 16 --seq-len 131072 --causal",
    ),
    ("standard causal B8 H32 N1000", "-a standard --seq-len 1000 --causal"),
]


def _run(args: list[str], code: Path | None, cwd: Path) -> tuple[float, dict | str]:
    """Wall seconds of one ``gpusim simulate --json`` and its JSON (or its error line)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["GPUSIM_CACHE_DIR"] = "off"
    if code is not None:
        env["PYTHONPATH"] = str(code)
    cmd = [sys.executable, "-m", "gpusim.cli.main", "simulate", *args, "--json"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        return wall, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return wall, json.loads(out.stdout)


def _summary(d: dict | str) -> str:
    if isinstance(d, str):
        return d[:110]
    rs = d.get("results", [d])
    events = sum(r["events"] for r in rs)
    runtimes = ", ".join(f"{r['algorithm']} {r['runtime_s'] * 1e3:.3f} ms" for r in rs)
    return f"{events:>9,} events  {runtimes}"


def side_by_side(base: Path, commit: str, repeat: int) -> None:
    """Each case on this checkout and on the baseline."""
    print(f"this checkout against {commit}, best of {repeat} (whole command, --json)")
    neutral = base.parent
    for label, line in CASES:
        for name, code in (("new", None), (commit, base)):
            best, out = float("inf"), None
            for _ in range(repeat):
                wall, out = _run(line.split(), code, neutral)
                best = min(best, wall)
                if isinstance(out, str):
                    break  # a refusal: once is enough
            print(f"  {label:38} {name:8} {best:7.2f} s  {_summary(out)}")


def detailed(lengths: tuple[int, ...]) -> None:
    """The aggregated (lumped) path against the detailed one, in process."""
    p = load_profile("h200-sxm")
    s = Schedule(block_m=128, block_n=64, warps=8, stages=2)
    print("aggregated vs detailed, flash2 causal B1 H16 d128 bf16 128x64, h200-sxm")
    for n in lengths:
        w = Workload(batch=1, heads=16, seq_len_q=n, seq_len_k=n, dtype="bf16", causal=True)
        t0 = time.perf_counter()
        full = simulate("flash2", w, s, p, detail="full")
        t1 = time.perf_counter()
        agg = simulate("flash2", w, s, p, detail="aggregated")
        t2 = time.perf_counter()
        dr = agg.runtime_s / full.runtime_s - 1
        dd = agg.dram_read_bytes / full.dram_read_bytes - 1
        print(f"  N{n:<7} full {t1 - t0:6.1f} s {full.events:>10,} events  aggregated "
              f"{t2 - t1:5.2f} s {agg.events:>8,} events  runtime {dr:+.3%}"
              f"  DRAM {dd:+.3%}")  # fmt: skip


def main() -> None:
    """Run the benchmark."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per case and engine")
    ap.add_argument("--baseline", default=BASELINE, help="commit to compare against")
    ap.add_argument("--full", action="store_true", help="also N16384 in detail (~15 s)")
    ap.add_argument("--full-32k", action="store_true", help="N32768 in detail too (~5 min)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpusim_baseline_") as tmp:
        base = export_baseline(args.baseline, Path(tmp) / "tree")
        side_by_side(base, args.baseline, args.repeat)
    lengths = (16384,) if args.full else ()
    lengths += (32768,) if args.full_32k else ()
    if lengths:
        detailed(lengths)


if __name__ == "__main__":
    main()
