"""Where the tuning proof's kernels spend their cycles: Nsight Compute's stall reasons per instance.

Run on the GPU machine from the repository root, after the proof's cubins are built:

    python -m gpusim.validation.proof_ncu --cubin-dir DIR --out OUT.json [--workloads 0,5,8]

Each runnable kernel instance of the chosen proof workloads (indices into
:func:`gpusim.tuning.proof_workloads.proof_workloads`) is launched once between two marker
kernels, under one ``ncu`` process (``--clock-control none``, caches flushed before each
kernel), and the report's issue-stall breakdown, instruction counts, pipe use and occupancy
are kept per instance. Diagnostic data: it explains where the model's per-instance times
miss; no model parameter is taken from it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gpusim import ncu as ncu_mod
from gpusim.tuning.proof_workloads import proof_workloads
from gpusim.tuning.space import search_space

#: Every issue-stall reason Hopper's ncu reports, per issued instruction.
STALLS = (
    "barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
    "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
    "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait",
)  # fmt: skip
METRICS = (
    "gpu__time_duration.sum",
    "launch__grid_size",
    *ncu_mod.DIAGNOSTIC_METRICS,
    *(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS),
    "smsp__inst_executed_op_ldsm.sum",
    "sm__inst_executed_pipe_uniform.sum",
    "smsp__cycles_active.avg",
)


def jobs(indices: list[int]) -> list[tuple[str, object, object]]:
    """(label, workload, schedule) of every runnable instance of the chosen workloads."""
    out = []
    ws = proof_workloads(quick=False)
    for i in indices:
        w = ws[i]
        space = search_space("flash2", w)
        for s in space.schedules:
            if s in space.unsupported:
                continue
            label = (
                f"w{i}:d{w.head_dim}:N{w.seq_len_q}:{'causal' if w.causal else 'full'}:"
                f"{s.block_m}x{s.block_n}:w{s.warps}:s{s.stages}"
            )
            out.append((label, w, s))
    return out


def driver(indices: list[int], cubin_dir: Path | None) -> int:
    """Launch each instance once, markers ``2i + 1`` before and ``2i + 2`` after it."""
    from gpusim.kernels.runner import Flash2Runner
    from gpusim.kernels.schedule_timing import random_inputs

    runner = Flash2Runner(cubin_dir=cubin_dir)
    cp = runner.cp
    marker = cp.RawKernel(
        f'extern "C" __global__ void {ncu_mod.MARKER_KERNEL}(int i) {{}}', ncu_mod.MARKER_KERNEL
    )
    inputs: dict = {}
    for n, (_, w, s) in enumerate(jobs(indices)):
        if w not in inputs:
            inputs.clear()
            q, k, v = random_inputs(cp, w, 0)
            inputs[w] = (q, k, v, cp.full(q.shape, 0x7FC0, dtype=q.dtype))  # poisoned
        q, k, v, o = inputs[w]
        try:
            loaded = runner.load(runner.instance(w, s))
        except Exception as exc:  # not loadable here: its markers stay empty
            print(f"skip {s}: {exc}", file=sys.stderr)
            continue
        cp.cuda.Device().synchronize()
        marker((2 * n + 1,), (1,), (cp.int32(n),))
        runner.launch(loaded, w, q, k, v, o)
        marker((2 * n + 2,), (1,), (cp.int32(n),))
        cp.cuda.Device().synchronize()
    return 0


def main() -> int:
    """Profile the chosen workloads' instances under one ncu process; write ``--out``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cubin-dir", type=Path, default=None)
    ap.add_argument("--workloads", default="0,1,4,5,8", help="indices into the proof's list")
    ap.add_argument("--timeout", type=float, default=400)
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    indices = [int(x) for x in args.workloads.split(",") if x.strip()]
    if args.driver:
        return driver(indices, args.cubin_dir)

    ncu = ncu_mod.find_ncu()
    if ncu is None:
        print("error: ncu not found", file=sys.stderr)
        return 2
    known, qerr = ncu_mod.query_metrics(ncu)
    keep, dropped = ncu_mod.select_metrics(known, METRICS) if known else (list(METRICS), [])
    labels = [j[0] for j in jobs(indices)]
    argv = [sys.executable, "-m", "gpusim.validation.proof_ncu", "--driver", "--out", str(args.out),
            "--workloads", args.workloads]  # fmt: skip
    if args.cubin_dir:
        argv += ["--cubin-dir", str(args.cubin_dir)]
    t0 = time.time()
    base = args.out.with_suffix("")
    res = ncu_mod.profile(ncu, argv, labels, base, keep, args.timeout)
    per = {
        label: [{"name": k["name"], "metrics": k["metrics"]} for k in c["kernels"]]
        for label, c in res.pop("by_config", {}).items()
    }
    doc = {
        "kind": "gpusim tuning ncu",
        "workload_indices": indices,
        "cubin_dir": str(args.cubin_dir) if args.cubin_dir else "nvrtc",
        "metrics_dropped": dropped,
        "query_error": qerr,
        "seconds": round(time.time() - t0, 1),
        "ncu": res,
        "instances": per,
    }
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({"file": str(args.out), "profiled": len(per), "of": len(labels)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
