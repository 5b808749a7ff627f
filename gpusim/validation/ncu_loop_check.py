"""The compiled-code facts against Nsight Compute on the tuning proof's kernels (no GPU).

    python -m gpusim.validation.ncu_loop_check [--core]

Reads the Nsight runs committed beside the proof (data/h200/2026-11-30_tuning_nvcc/
tuning_ncu*.json.gz: one launch of every instance of the 10 workloads) and, for every
non-causal one:

- instructions per warp and K/V step: Nsight's executed count over the warp-steps, against
  the committed loop counts (data/sm90/2026-11-30_kernels_build/loop_counts.json: the step, HMMA
  and LDSM); and the instructions besides HMMA and LDSM (Nsight's less its tensor-pipe
  and ldmatrix counts) against the instruction-mix formulas (gpusim/instruction_mix.py);
- with ``--core``: cycles per step of every resident CTA from the SM core model
  (gpusim/engine/core_model.py, profile h200-sxm-core, co-resident CTAs phase-averaged),
  against the cycles Nsight's issue rate implies (instructions of the step's warps per
  scheduler over the issue-active share; memory stalls included, so an upper bound on the
  loop's own cycles). About 20 s.
"""

from __future__ import annotations

import argparse
import gzip
import json

from gpusim.data.layout import KERNELS_BUILD, TUNING_NVCC
from gpusim.instruction_mix import StepShape, issued, step_mix
from gpusim.kernel_catalog.loop_counts import loop_counts, loop_path
from gpusim.kernel_class import KernelClass

NCU = TUNING_NVCC
PTXAS = KERNELS_BUILD / "ptxas_and_sass.json"
TOKENS, HIDDEN, SCHEDULERS = 16384, 2048, 4


def runs() -> list[dict]:
    """One row per non-causal instance-run: its key, shape and Nsight metrics."""
    out = []
    # the runs are stored gzip-compressed (the folder's README says why)
    for f in sorted(NCU.glob("tuning_ncu*.json.gz")):
        for label, kernels in json.loads(gzip.decompress(f.read_bytes()))["instances"].items():
            _w, d, n, mask, tile, warps, stages = label.split(":")
            if mask != "full":
                continue
            bm, bn = (int(x) for x in tile.split("x"))
            d, n, w, s = int(d[1:]), int(n[1:]), int(warps[1:]), int(stages[1:])
            out.append({
                "label": label.split(":", 1)[1], "key": f"tc_bf16_d{d}_m{bm}_n{bn}_w{w}_s{s}",
                "d": d, "n": n, "bm": bm, "bn": bn, "warps": w, "metrics": kernels[0]["metrics"],
                "warp_steps": n // bm * (TOKENS // n) * (HIDDEN // d) * (n // bn) * w,
            })  # fmt: skip
    return out


def instructions(rows: list[dict]) -> None:
    """Print Nsight's instructions per warp-step against the SASS loop counts and the formula."""
    counts = loop_counts()
    print(f"{'instance-run':34s} {'Nsight':>8s} {'SASS':>6s} {'err':>7s} {'formula err':>11s}")
    print(f"{'':34s} {'(all, per warp-step)':>22s} {'(besides HMMA, LDSM)':>20s}")
    for r in rows:
        c = counts[r["key"]]
        meas = r["metrics"]["smsp__inst_executed.sum"] / r["warp_steps"]
        sass = c["steady"] + c["hmma"] + c["ldsm"]
        stages = int(r["key"].rsplit("_s", 1)[1])
        shape = StepShape(r["bm"] / r["warps"], r["bn"], r["d"], r["warps"], stages, 2, r["bn"])
        formula = issued(step_mix(KernelClass(product="mma"), shape))
        m = r["metrics"]
        other = meas - (m["sm__inst_executed_pipe_tensor.sum"]
                        + m["smsp__inst_executed_op_ldsm.sum"]) / r["warp_steps"]  # fmt: skip
        print(
            f"{r['label']:34s} {meas:8.1f} {sass:6d} {sass / meas - 1:+7.1%} "
            f"{formula / other - 1:+11.1%}"
        )


def core_cycles(rows: list[dict]) -> None:
    """Print the core model's cycles per step against those Nsight's issue rate implies."""
    from gpusim.engine.core_table import cycles_per_step
    from gpusim.kernel_catalog.instances import all_instances
    from gpusim.occupancy import occupancy
    from gpusim.profiles.loader import load_profile

    profile = load_profile("h200-sxm-core")
    regs = {k: v["registers"] for k, v in json.loads(PTXAS.read_text())["ptxas"].items()}
    insts = {i.key: i for i in all_instances()}
    print(f"{'instance-run':34s} {'CTAs/SM':>7s} {'model':>7s} {'Nsight':>7s} {'err':>7s}")
    for r in rows:
        inst = insts[r["key"]]
        ctas = occupancy(profile, inst.smem_bytes, inst.threads, regs[r["key"]], None).ctas_per_sm
        path = list(loop_path(r["key"]))
        c = profile.sass_core_cycles.value
        bw = profile.smem_bandwidth_bytes_per_clk_per_sm.value
        scheds = profile.warp_schedulers_per_sm.value
        model = cycles_per_step(r["key"], ctas, inst.warps, c, bw, scheds)  # the engine's
        issue = r["metrics"]["smsp__issue_active.avg.pct_of_peak_sustained_active"] / 100
        meas = len(path) * inst.warps * ctas / SCHEDULERS / issue
        print(f"{r['label']:34s} {ctas:7d} {model:7.0f} {meas:7.0f} {model / meas - 1:+7.1%}")


def main() -> int:
    """Print the instruction table, and with ``--core`` the cycles table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--core", action="store_true", help="also the SM core model's cycles")
    args = ap.parse_args()
    rows = runs()
    instructions(rows)
    if args.core:
        print()
        core_cycles(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
