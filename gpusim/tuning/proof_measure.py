"""The tuner against the H200: time every runnable schedule of the tensor-core kernel.

Run on the GPU machine from the repository root:

    python -m gpusim.tuning.proof_measure --out OUT/h200_tuning_proof.json [--quick]
                                          [--set held-out]

For each workload (head dim 64 and 128, causal and not, short and long
sequences, bf16, batch x length = 16k tokens and heads x head dim = 2048 as in
the FlashAttention-2 paper's sweep) it asks the tuner for its ranking, times
every kernel instance (the tuner's rejections too, so a wrongly rejected winner
shows) and writes one JSON file with provenance. It needs no engine time on the
GPU machine: the model's predictions for the same schedules are made on the CPU
afterwards (``python -m gpusim.tuning.proof_report predict``, then ``report``),
and the CPU test in tests/tuning/ recomputes the figures (tuner's loss,
Spearman, the rules' losses) from the two files.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gpusim.profiles.loader import load_profile
from gpusim.tuning import proof
from gpusim.tuning.proof_workloads import held_out_workloads, proof_workloads
from gpusim.tuning.space import search_space
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload


def provenance(cp) -> dict:
    """GPU, driver, CUDA, CuPy, clocks, date, commit of this run."""
    from gpusim.calibrate.calibration_provenance import collect

    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return collect(cp, name, sys.argv[1:]) | {"command": " ".join(sys.argv)}


def measure(workload: Workload, schedules: list, repeats: int, runner) -> list[dict]:
    """One timing record per schedule (``median_s``, or ``error`` where it cannot run)."""
    from gpusim.kernels.schedule_timing import time_schedules  # the kernel package's timer

    return time_schedules([(workload, s) for s in schedules], runner=runner, repeats=repeats)


def check_timed(runner, record: dict, log) -> list[dict]:
    """Correctness of every instance that was timed, on the kernels' own check cases
    (random inputs, poisoned output, float64 reference): the timed binaries compute attention."""
    from gpusim.kernel_catalog.instances import all_instances
    from gpusim.kernels.check import CASES, check_instances

    timed = {r["measurement"].get("instance") for e in record["workloads"] for r in e["schedules"]}
    insts = [i for i in all_instances() if i.key in timed]
    # a ragged causal case and an aligned one: masking, tails and full tiles
    out = check_instances(runner, insts, cases=(CASES[1], CASES[3]))
    bad = [r for r in out if not r["ok"]]
    log(f"checked {len(insts)} instances on 2 cases: {len(bad)} failures")
    return out


def run_workload(w: Workload, profile, repeats: int, log, runner, predict: bool = False) -> dict:
    """Measurements (and, with ``predict``, the model's predictions) of one workload.

    Every schedule the kernel has an instance for is timed, whatever the model
    says, so a schedule the tuner wrongly rejects still shows.
    """
    t0 = time.perf_counter()
    predicted, rejected, tuner = {}, {}, None
    if predict:
        res = tune("flash2", w, profile, jobs=None, caps=False)  # as it is timed
        predicted = {c.schedule: c.runtime_s for c in res.candidates}
        rejected = {r.schedule: r.reason for r in res.rejected}
        tuner = res.to_dict()
    space = search_space("flash2", w)
    runnable = [s for s in space.schedules if s not in space.unsupported]
    timings = measure(w, runnable, repeats, runner)
    rows = [
        {
            "schedule": s.model_dump(),
            "predicted_s": predicted.get(s),
            "tuner_rejected": rejected.get(s),
            "measured_s": m.get("median_s"),
            "measurement": m,
        }
        for s, m in zip(runnable, timings, strict=True)
    ]
    log(f"{w.model_dump()}: {len(rows)} schedules, {time.perf_counter() - t0:.1f} s")
    return {
        "workload": w.model_dump(),
        "profile": profile.name,
        "sram_bytes": profile.smem_per_block_bytes.value,
        "model_flops": w.model_flops(),
        "tuner": tuner,
        "schedules": rows,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="the record's file (a new one)")
    ap.add_argument("--profile", default="h200-sxm")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="4 short workloads, for a smoke run")
    ap.add_argument(
        "--set",
        choices=("proof", "held-out"),
        default="proof",
        help="the 10 proof workloads, or 8 others the model was not developed on",
    )
    ap.add_argument(
        "--predict",
        action="store_true",
        help="also run the tuner here (slow for causal workloads); by default predictions are "
        "made on the CPU afterwards: python -m gpusim.tuning.proof_report predict",
    )
    ap.add_argument(
        "--cubin-dir",
        type=Path,
        default=None,
        help="time nvcc-built cubins (python -m gpusim.kernels.build DIR), the binaries whose "
        "ptxas report the tuner reads; without it CuPy compiles with NVRTC",
    )
    ap.add_argument("--check", action="store_true", help="check every timed instance's output")
    args = ap.parse_args()

    import cupy as cp

    from gpusim.kernels.runner import Flash2Runner

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    profile = load_profile(args.profile)
    runner = Flash2Runner(cubin_dir=args.cubin_dir)
    record = {
        "kind": "gpusim tuning proof",
        "schema": 1,
        "provenance": provenance(cp),
        "profile": args.profile,
        "repeats": args.repeats,
        "binaries": str(args.cubin_dir) if args.cubin_dir else "nvrtc",
        "workloads": [],
    }
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    chosen = held_out_workloads() if args.set == "held-out" else proof_workloads(args.quick)
    for w in chosen:
        entry = run_workload(w, profile, args.repeats, log, runner, args.predict)
        record["workloads"].append(entry)
        # written after every workload: a run that stops half-way keeps what it measured
        out.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n")
    if args.check:
        record["checks"] = check_timed(runner, record, log)
    out.write_text(json.dumps(record, indent=1, sort_keys=False) + "\n")
    done = sum(r["measured_s"] is not None for e in record["workloads"] for r in e["schedules"])
    summary: dict = {"file": str(out), "measured": done}
    if args.predict:
        figures = proof.evaluate(record)
        for p in figures:
            w = p.workload
            log(
                f"d{w.head_dim} N{w.seq_len_q} causal={w.causal}: tuner loss "
                f"{100 * p.tuner_loss:.1f}%, Spearman {p.spearman:.2f}, paper "
                f"{100 * p.rule_loss['paper']:.1f}%, seed {100 * p.rule_loss['seed']:.1f}%"
            )
        summary["summary"] = proof.summary(figures)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
