"""The project's wgmma kernel's steps against the microbenchmark's (a look, not a judgement).

    python -m gpusim.reporting.wgmma_step_check

For each step shape ``gpusim.calibrate.wgmma_step`` measured, the paper sweep's longest
non-causal run of the instance with that shape (data/h200/2026-12-03_wgmma_bench, measured
before any wgmma set): its time per CTA-step in SM cycles at the microbenchmark's clock under
the timing protocol (the run's time over waves x steps per CTA; at N = 16384 the launch and
a CTA's ends are under 1 %), beside the microbenchmark's step with the softmax.
"""

from __future__ import annotations

import json
import math

from gpusim.calibrate.wgmma_step import step_table
from gpusim.data.layout import REPO_ROOT
from gpusim.kernel_catalog.wgmma_instances import all_instances

RECORD = REPO_ROOT / "data/h200/2026-12-04_calibration_wgmma_step/wgmma-step-h200.json"
BENCH = REPO_ROOT / "data/h200/2026-12-03_wgmma_bench/bench.json"
SM_COUNT, TOKENS, HIDDEN = 132, 16384, 2048  # the paper sweep: batch x N = 16k, heads x d = 2048


def rows() -> list[dict]:
    doc = json.loads(RECORD.read_text())
    table = step_table(doc)
    fills = {(r["block_n"], r["head_dim"], r["warpgroups"]): r["cycles_per_iter"]
             for r in doc.get("fill_rows", [])}  # fmt: skip
    lags = {(r["block_n"], r["head_dim"], r["warpgroups"]): r["cycles_per_iter"]
            for r in doc.get("lag_rows", [])}  # fmt: skip
    bench = json.loads(BENCH.read_text())["per_instance"]
    insts = {i.key: i for i in all_instances() if not i.pingpong}
    out = []
    for key, steps in table.items():
        d, groups = (int(x) for x in key.split("/"))
        for bc, cycles, clock in steps:
            runs = [
                r for r in bench
                if "median_s" in r and not r["causal"] and r["instance"] in insts
                and insts[r["instance"]].head_dim == d and insts[r["instance"]].block_n == bc
                and insts[r["instance"]].consumer_wgs == groups
            ]  # fmt: skip
            if not runs:
                continue
            r = max(runs, key=lambda x: x["seq_len"])
            inst = insts[r["instance"]]
            n = r["seq_len"]
            ctas = (TOKENS // n) * (HIDDEN // d) * math.ceil(n / inst.block_m)
            per_step_s = r["median_s"] / (ctas / SM_COUNT) / math.ceil(n / bc)
            kernel = per_step_s * clock
            fill = fills.get((bc, d, groups))
            out.append({"instance": r["instance"], "seq_len": n, "micro_cycles": cycles,
                        "clock_hz": clock, "kernel_cycles": kernel,
                        "kernel_over_micro": kernel / cycles - 1,
                        "fill_cycles": fill,
                        "kernel_over_fill": kernel / fill - 1 if fill else None,
                        "lag_cycles": lags.get((bc, d, groups)),
                        "kernel_over_lag": kernel / lags[(bc, d, groups)] - 1
                        if (bc, d, groups) in lags else None})  # fmt: skip
    return out


def main() -> int:
    print("| instance (paper sweep, non-causal) | N | kernel step cycles | products + softmax "
          "| kernel over it | with the tiles streamed in | kernel over it | per-tile barriers "
          "| kernel over it |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows():
        fill = (f"{r['fill_cycles']:.0f} | {r['kernel_over_fill']:+.0%}"
                if r["fill_cycles"] else "- | -")  # fmt: skip
        lag = (f"{r['lag_cycles']:.0f} | {r['kernel_over_lag']:+.0%}"
               if r["lag_cycles"] else "- | -")  # fmt: skip
        micro = f"{r['micro_cycles']:.0f} | {r['kernel_over_micro']:+.0%}"
        print(f"| {r['instance']} | {r['seq_len']} | {r['kernel_cycles']:.0f} | {micro} "
              f"| {fill} | {lag} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
