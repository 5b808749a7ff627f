"""A look (judges nothing): the pipe model's steady step against the SM core model's replay.

    python -m gpusim.reporting.pipe_core_look [--counts sass-fit|formulas] [--profile NAME]
    python -m gpusim.reporting.pipe_core_look --seen      # both counts on seen sets 14, 19, 20
    python -m gpusim.reporting.pipe_core_look --tuning    # both counts on tuning sets 13, 16

For every bf16 instance of the project's mma.sync kernel in the compiled grid, at one
reference workload (batch 4, 16 heads, 4096 tokens, head dim of the instance, no mask) on
the core profile (``h200-sxm-core``): the pipe model's time for one steady step of each
resident CTA (its two serial phases at the pipes' rates over the profile's step efficiency,
:func:`gpusim.engine.rates.step_efficiency`) over the core model's cycles for the same
step of the compiled loop (:func:`gpusim.engine.prepare.core_efficiency`). No measured time
enters: both are the models' own. Where the ratio is above 1 the pipe model's step is the
slower. Printed per instance, then the mean by block n, head dim and rows per warp.

``--counts`` times the steps with the tracer's least-squares fit to the compiled loops'
instruction counts (``sass-fit``, the default for the project's kernels) or with the
instruction-mix formulas (:mod:`gpusim.instruction_mix`). ``--seen`` predicts the new-shapes
sets 14, 19 (H200, ``h200-sxm``) and 20 (H100, ``h100-sxm5``) with each and prints every run's
signed error against its measured time; ``--tuning`` ranks the inference-tuning sets 13 and 16
(H200) with each (mean Spearman, first choices). Both read seen sets: they judge nothing.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import dataclass
from typing import Any

from algorithms import get_algorithm
from gpusim.counting import MAX_TRACED_STEPS, traced_classes
from gpusim.engine.prepare import core_efficiency, planned_programs
from gpusim.engine.rates import rates_for, step_efficiency
from gpusim.kernel_catalog.compiled_chips import compiled_on_chip
from gpusim.kernel_catalog.instances import grid_instances
from gpusim.occupancy import occupancy
from gpusim.profiles.loader import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: the reference workload's shape (the head dim is the instance's)
BATCH, HEADS, TOKENS = 4, 16, 4096


@dataclass(frozen=True)
class Row:
    head_dim: int
    block_m: int
    block_n: int
    warps: int
    stages: int
    ctas_per_sm: int
    #: the pipe model's step over the core model's, both for every resident CTA
    pipe_over_core: float

    @property
    def rows_per_warp(self) -> int:
        return self.block_m // self.warps


def instance_row(inst: Any, profile: Any, counts: str | None) -> Row | None:
    """One instance's row; None where the core model has no loop for it or it does not fit."""
    w = Workload(batch=BATCH, heads=HEADS, seq_len_q=TOKENS, seq_len_k=TOKENS,
                 head_dim=inst.head_dim, dtype=inst.dtype, causal=False)  # fmt: skip
    s = Schedule(block_m=inst.block_m, block_n=inst.block_n, warps=inst.warps,
                 stages=inst.stages, instruction_counts=counts)  # fmt: skip
    chips, _ = compiled_on_chip("flash2", w, s, profile)
    (kernel,) = get_algorithm("flash2").kernels(w, s)
    chip = chips.get(kernel.name)
    if chip is None:
        return None
    occ = occupancy(
        profile, chip.smem_bytes, chip.threads, chip.regs_per_thread, chip.max_ctas_per_sm
    )
    if occ.ctas_per_sm < 1:
        return None
    programs = planned_programs(traced_classes(kernel, [MAX_TRACED_STEPS]))
    rates = rates_for(profile, w.dtype, s.warps, schedule=s, head_dim=w.head_dim)
    rates = rates.for_kernel(True)
    core = core_efficiency(kernel, profile, programs, rates, occ.ctas_per_sm, s.warps)
    if core is None:
        return None
    pipe = step_efficiency(profile, occ.ctas_per_sm * s.warps)
    return Row(inst.head_dim, inst.block_m, inst.block_n, inst.warps, inst.stages,
               occ.ctas_per_sm, core / pipe)  # fmt: skip


def rows(counts: str | None, profile_name: str = "h200-sxm-core") -> list[Row]:
    """Every bf16 instance's row (those the core model replays and that fit)."""
    profile = load_profile(profile_name)
    got = (instance_row(i, profile, counts) for i in grid_instances("tc") if i.dtype == "bf16")
    return [r for r in got if r is not None]


def by(rows_: list[Row], key: str) -> dict[int, tuple[float, int]]:
    """Mean ratio and count by ``key`` (an attribute of :class:`Row`)."""
    groups: dict[int, list[float]] = {}
    for r in rows_:
        groups.setdefault(getattr(r, key), []).append(r.pipe_over_core)
    return {k: (statistics.fmean(v), len(v)) for k, v in sorted(groups.items())}


def table(rows_: list[Row]) -> str:
    lines = ["d | Br | Bc | warps | stages | CTAs/SM | pipe / core", "---|---|---|---|---|---|---"]
    lines += [f"{r.head_dim} | {r.block_m} | {r.block_n} | {r.warps} | {r.stages} | "
              f"{r.ctas_per_sm} | {r.pipe_over_core:.3f}" for r in rows_]  # fmt: skip
    ratios = [r.pipe_over_core for r in rows_]
    lines.append("")
    lines.append(
        f"{len(rows_)} instances: mean {statistics.fmean(ratios):.3f}, mean |ratio - 1| "
        f"{statistics.fmean(abs(x - 1) for x in ratios):.3f}"
    )
    for key in ("block_n", "head_dim", "rows_per_warp"):
        parts = ", ".join(f"{k}: {m:.3f} ({n})" for k, (m, n) in by(rows_, key).items())
        lines.append(f"by {key}: {parts}")
    return "\n".join(lines)


#: (folder, dataset, profile) of the seen new-shapes sets --seen reads
SEEN = {
    "14": ("data/h200/2026-12-04_new_shapes_heldout14", "h200-dataset.json", "h200-sxm"),
    "19": ("data/h200/2026-12-05_new_shapes_heldout19", "h200-dataset.json", "h200-sxm"),
    "20": ("data/h100/2026-12-05_new_shapes_heldout20", "h100-dataset.json", "h100-sxm5"),
}
COUNTS = (None, "formulas")


def seen_errors() -> dict[str, dict[str, list[tuple[str, float]]]]:
    """``{set: {counts: [(run, signed error), ...]}}`` on the seen new-shapes sets."""
    import json
    from pathlib import Path

    from gpusim.validation.heldout_shapes import configs_from_manifest, predict
    from gpusim.validation.new_shapes_heldout20 import heldout20_configs

    out: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for name, (folder, dataset, prof) in SEEN.items():
        manifest = Path(folder) / "manifest_configs.json"
        configs = configs_from_manifest(manifest) if manifest.exists() else heldout20_configs()
        records = json.loads((Path(folder) / dataset).read_text())["records"]
        measured = {r["id"]: r["median_s"] for r in records if r.get("status") == "ok"}
        configs = [c for c in configs if c.config_id in measured]
        for counts in COUNTS:
            pred = predict(prof, configs, counts=counts)["predictions"]
            out.setdefault(name, {})[counts or "sass-fit"] = [
                (c.config_id, pred[c.config_id]["predicted_s"] / measured[c.config_id] - 1)
                for c in configs
            ]
    return out


def seen_table(errs: dict[str, dict[str, list[tuple[str, float]]]]) -> str:
    lines = []
    pooled: dict[tuple[str, bool], list[float]] = {}
    for name, by_counts in errs.items():
        fit, form = by_counts["sass-fit"], by_counts["formulas"]
        for (run, a), (_, b) in zip(fit, form, strict=True):
            lines.append(f"set {name} {run}: sass-fit {a:+.3f} formulas {b:+.3f}")
            for counts, e in (("sass-fit", a), ("formulas", b)):
                pooled.setdefault((counts, "fp32" in run), []).append(e)
    for (counts, fp32), e in sorted(pooled.items()):
        lines.append(
            f"{counts} {'fp32 (ffma)' if fp32 else 'mma.sync'}: {len(e)} runs, MAPE "
            f"{100 * statistics.fmean(abs(x) for x in e):.2f} %, mean "
            f"{100 * statistics.fmean(e):+.2f} %"
        )
    return "\n".join(lines)


def tuning_table() -> str:
    """Mean Spearman and first choices of the inference-tuning sets 13 and 16 by counts."""
    from dataclasses import replace
    from pathlib import Path

    from gpusim.reporting.inference_tuning import rankings
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.validation import long_context_sweep
    from gpusim.validation.inference_tuning_heldout13 import heldout13_configs
    from gpusim.validation.inference_tuning_heldout16 import heldout16_configs

    lines = []
    for folder, configs in (
        ("data/h200/2026-12-04_inference_tuning_heldout13", heldout13_configs()),
        ("data/h200/2026-12-05_inference_tuning_heldout16", heldout16_configs()),
    ):
        measured = {r["id"]: r for r in long_context_sweep.records(Path(folder))}
        for counts in COUNTS:
            preds = {"by_config": {}}
            for c in configs:
                sched = c.schedule.model_copy(update={"instruction_counts": counts})
                preds["by_config"][c.config_id] = {
                    "h200-sxm": predict_one(replace(c, schedule=sched), "h200-sxm")
                }
            ws = rankings(configs, measured, preds, "h200-sxm")
            sp = [w["spearman"] for w in ws if w["spearman"] is not None]
            firsts = sum(w["first_choice"] == w["best"] for w in ws)
            each = ", ".join(f"{w['spearman']:.2f}" for w in ws)
            lines.append(
                f"{Path(folder).name} {counts or 'sass-fit'}: mean Spearman "
                f"{statistics.fmean(sp):.3f}, first choice the best in {firsts} of {len(ws)}: "
                f"{each}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", choices=("sass-fit", "formulas"), default=None)
    ap.add_argument("--profile", default="h200-sxm-core")
    ap.add_argument("--seen", action="store_true")
    ap.add_argument("--tuning", action="store_true")
    a = ap.parse_args(argv)
    if a.seen:
        print(seen_table(seen_errors()))
        return 0
    if a.tuning:
        print(tuning_table())
        return 0
    print(f"# counts: {a.counts or 'the default (sass-fit)'}; profile {a.profile}")
    print(table(rows(a.counts, a.profile)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
