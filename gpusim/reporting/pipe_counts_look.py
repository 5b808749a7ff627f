"""A look (judges nothing): would exact instruction counts bring the pipe model to issue 19's
new-shapes target on the H100's tuner sets?

    python -m gpusim.reporting.pipe_counts_look > reports/pipe_core_look/counts_sets34_35.txt

Held-out sets 34 and 35 (measured 2026-12-07, seen) hold 243 runs of the project's mma.sync
kernel: every schedule the tuner weighs for twelve prefills. ``h100-sxm5`` missed the target on
both (6.92 % and 7.29 %) where ``h100-sxm5-core`` (the compiled loops replayed) met it. The pipe
model's step is its instruction mix at the pipes' rates in two serial phases; this asks how much
of the gap the mix explains, by timing every run with three mixes:

- ``sass-fit``: the tracer's least-squares fit (the default);
- ``formulas``: :mod:`gpusim.instruction_mix`, written from what the kernel must execute;
- ``compiled``: each instance's own counts, read from its compiled loop
  (``loop_counts.json``: the steady step's warp-instructions and the masked step's, HMMA and
  LDSM apart), the most a described mix could reach.

The compiled counts are swapped into the tracer for this look alone
(:func:`compiled_counts`); no product path uses them. Printed: runtime MAPE, mean signed error,
worst run, first choices within 3 % and Spearman >= 0.85 (issue 19's tuner target) per set.
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

import algorithms.tracing as tracing
from gpusim.kernel_catalog.loop_counts import loop_counts
from gpusim.reporting.long_context_predict import predict_one
from gpusim.reporting.profile_sets import tuner_summary
from gpusim.validation import long_context_sweep
from gpusim.validation.grouping_heldout35 import heldout35_configs
from gpusim.validation.tuner_heldout34 import heldout34_configs

PROFILE = "h100-sxm5"
SETS = {
    "34": (heldout34_configs, "data/h100/2026-12-07_tuner_heldout34"),
    "35": (heldout35_configs, "data/h100/2026-12-07_grouping_heldout35"),
}
MIXES = ("sass-fit", "formulas", "compiled")


def instance_key(config) -> str:
    """The compiled grid's key of a config's kernel instance."""
    w, s = config.workload, config.schedule
    return f"tc_{w.dtype}_d{w.head_dim}_m{s.block_m}_n{s.block_n}_w{s.warps}_s{s.stages}"


@contextlib.contextmanager
def compiled_counts(key: str):
    """The tracer charges instance ``key``'s compiled counts (per warp, times the warps)."""
    counts = loop_counts()[key]
    step, mask = tracing.cta_step_issue, tracing.cta_mask_issue
    tracing.cta_step_issue = lambda cls, s, masked=False: counts["steady"] * s.warps
    tracing.cta_mask_issue = lambda cls, s: (counts["masked"] - counts["steady"]) * s.warps
    try:
        yield
    finally:
        tracing.cta_step_issue, tracing.cta_mask_issue = step, mask


def predict(config, mix: str) -> dict:
    """One run's prediction on :data:`PROFILE` with ``mix``."""
    if mix == "compiled":
        with compiled_counts(instance_key(config)):
            return predict_one(config, PROFILE)
    counts = None if mix == "sass-fit" else mix
    sched = config.schedule.model_copy(update={"instruction_counts": counts})
    return predict_one(replace(config, schedule=sched), PROFILE)


def main() -> int:
    print("| set | mix | runs | MAPE | mean signed | worst | first choice <= 3 % | "
          "Spearman >= 0.85 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, (configs_of, folder) in SETS.items():
        configs = configs_of()
        measured = {r["id"]: r for r in long_context_sweep.records(Path(folder))}
        for mix in MIXES:
            by = {c.config_id: {PROFILE: predict(c, mix)} for c in configs}
            s = tuner_summary(configs, measured, {"by_config": by}, PROFILE)
            rt, v = s["runtime"], s["verdict"]
            print(f"| {name} | {mix} | {rt['n']} | {100 * rt['mape']:.2f} % | "
                  f"{100 * rt['mean_signed']:+.2f} % | {100 * rt['max_abs']:.1f} % | "
                  f"{v['first_choice_within_3pct']} of {v['workloads']} | "
                  f"{v['spearman_at_least_0_85']} of {v['workloads']} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
