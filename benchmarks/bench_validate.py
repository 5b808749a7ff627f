"""Cold ``gpusim validate --from`` timings, side by side with a baseline commit (0f5ef1e).

    python benchmarks/bench_validate.py [--repeat N] [--baseline COMMIT] [--dataset PATH]

Target (issue 17): ``gpusim validate --from
data/h200/2026-11-30_validation_dram21/h200-dataset.json`` in under 15 s on the 2-core
machine, cold (an empty prediction cache: ``GPUSIM_CACHE_DIR`` set to a fresh folder).

Each run is a whole ``gpusim validate --from DATASET --json`` command, on this checkout and
on ``--baseline`` (exported with ``git archive``, as ``bench_simulate.py`` does), alternating
so that both see the same load; the report goes to a temporary folder. It prints the best
wall time and the CPU time of that run (user + system, its worker processes included), the
ratio of the wall times, the two runtime and DRAM MAPEs, and whether the two comparisons
are identical (every row's predictions), else the largest relative move of each prediction.
Wall times depend on what else the machine runs: the CPU ratio is the steadier figure.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_simulate import export_baseline

ROOT = Path(__file__).resolve().parents[1]
DATASET = "data/h200/2026-11-30_validation_dram21/h200-dataset.json"
#: The last commit before the cold validate was made faster (plans built once per kernel,
#: jobs freed without the cyclic garbage collector).
BASELINE = "0f5ef1e"


def _children_cpu_s() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def cold_validate(dataset: Path, code: Path, work: Path) -> tuple[float, float, dict]:
    """Wall and CPU seconds of one cold ``validate --from`` run of the tree ``code``, and its
    comparison."""
    env = dict(os.environ)
    # Ahead of the installed (editable) package, which may be another checkout's.
    env["PYTHONPATH"] = str(code)
    cache = Path(tempfile.mkdtemp(prefix="cache_", dir=work))
    out = Path(tempfile.mkdtemp(prefix="report_", dir=work))
    env["GPUSIM_CACHE_DIR"] = str(cache)  # empty: every run simulated
    cmd = [sys.executable, "-m", "gpusim.cli.main", "validate", "--from", str(dataset)]
    cmd += ["--out", str(out), "--json"]
    cpu0, t0 = _children_cpu_s(), time.perf_counter()
    # cwd: a folder that puts neither tree on sys.path
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, check=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu_s() - cpu0
    comparison = json.loads((out / "comparison.json").read_text())
    return wall, cpu, json.loads(run.stdout) | {"rows": comparison["rows"]}


def main() -> None:
    """Time this checkout and the baseline, alternating; print one line each and the ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1, help="runs per tree (best wall kept)")
    ap.add_argument("--baseline", default=BASELINE, help="commit to compare against")
    ap.add_argument("--dataset", default=DATASET, help="recorded dataset to compare")
    args = ap.parse_args()
    dataset = (ROOT / args.dataset).resolve()
    best: dict[str, tuple[float, float, dict]] = {}
    with tempfile.TemporaryDirectory(prefix="gpusim_bench_validate_") as tmp:
        base = export_baseline(args.baseline, Path(tmp) / "tree")
        for _ in range(args.repeat):
            for key, code in (("this checkout", ROOT), (args.baseline, base)):
                got = cold_validate(dataset, code, Path(tmp))
                if key not in best or got[0] < best[key][0]:
                    best[key] = got
    print(f"gpusim validate --from {args.dataset}, cold, best of {args.repeat}")
    print(f"  {'tree':14} {'wall s':>7} {'CPU s':>7} {'runtime MAPE':>18} {'DRAM MAPE':>20}")
    for key, (wall, cpu, res) in best.items():
        print(f"  {key:14} {wall:7.1f} {cpu:7.1f} {res['runtime_mape']!r:>18}"
              f" {res['dram_bytes_mape']!r:>20}")  # fmt: skip
    new, old = best["this checkout"], best[args.baseline]
    same = new[2]["rows"] == old[2]["rows"]
    print(f"  wall ratio {new[0] / old[0]:.2f}, CPU ratio {new[1] / old[1]:.2f}; predictions "
          f"{'identical' if same else 'differ'} ({len(new[2]['rows'])} runs)")  # fmt: skip
    if not same:
        for what, moved in largest_moves(old[2]["rows"], new[2]["rows"]).items():
            print(f"  largest move of {what}: {moved[0]:.2e} relative ({moved[1]})")


def _predicted(row: dict) -> dict[str, float]:
    """What the model predicted for a compared run (measured values and errors left out)."""
    out = {"runtime": row["predicted_s"]}
    ncu = row.get("ncu") or {}
    for key in ("dram_bytes_predicted", "l2_bytes_predicted", "kernel_time_predicted_s"):
        if ncu.get(key) is not None:
            out[key] = ncu[key]
    return out


def largest_moves(old: list[dict], new: list[dict]) -> dict[str, tuple[float, str]]:
    """For each prediction, the largest relative move between two comparisons' rows and the
    run it is in (only those that moved)."""
    moves: dict[str, tuple[float, str]] = {}
    for a, b in zip(old, new, strict=True):
        pa, pb = _predicted(a), _predicted(b)
        for key, x in pa.items():
            y = pb.get(key)
            if y is None or x == y:
                continue
            rel = abs(y - x) / abs(x) if x else float("inf")
            if rel > moves.get(key, (0.0, ""))[0]:
                moves[key] = (rel, a["id"])
    return moves


if __name__ == "__main__":
    main()
