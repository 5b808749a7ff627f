"""Figure 1's second row: measured runs of standard and flash2 against N, beside the model.

The validation sweep measures the FlashAttention-2 paper's benchmark shape (batch
x length constant, heads x head dim constant), not the seed's example, so its
points get their own row: for each measured run, the model's prediction of that
very run (its workload, schedule and real kernel footprint) and the measurement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpusim.api.device_memory import algorithm_footprint_bytes
from gpusim.reporting.measured import MeasuredRun
from gpusim.reporting.plotting import gb, ms

PANEL = "measured-shape"
COLOURS = {"standard": "#7f7f7f", "flash2": "#1f77b4"}


def select_runs(
    runs: Sequence[MeasuredRun], algorithms: Sequence[str], head_dim: int
) -> list[MeasuredRun]:
    """Non-causal 16-bit runs at ``head_dim`` with equal lengths, one per (algorithm, N): of a
    schedule sweep at one length, the schedule measured at the most lengths (the length sweep's)."""
    keep = [
        r
        for r in runs
        if r.algorithm in algorithms
        and not r.workload.causal
        and r.workload.head_dim == head_dim
        and r.workload.dtype in ("fp16", "bf16")
        and r.workload.seq_len_q == r.workload.seq_len_k
    ]

    def family(r: MeasuredRun) -> tuple:
        return (r.algorithm, r.workload.dtype, r.schedule)

    lengths: dict[tuple, set[int]] = {}
    for r in keep:
        lengths.setdefault(family(r), set()).add(r.workload.seq_len_q)
    chosen: dict[tuple[str, int], MeasuredRun] = {}
    for r in sorted(keep, key=lambda r: r.config_id):
        slot = (r.algorithm, r.workload.seq_len_q)
        best = chosen.get(slot)
        if best is None or len(lengths[family(r)]) > len(lengths[family(best)]):
            chosen[slot] = r
    return [chosen[k] for k in sorted(chosen)]


def shape_rows(runs: Sequence[MeasuredRun]) -> list[dict[str, Any]]:
    """Two CSV rows per run: the model's prediction (``simulated``) and the measurement."""
    rows = []
    for run in runs:
        w, sch = run.workload, run.schedule
        base = {
            "panel": PANEL,
            "profile": run.profile,
            "algorithm": run.algorithm,
            "seq_len_q": w.seq_len_q,
            "batch": w.batch,
            "heads": w.heads,
            "head_dim": w.head_dim,
            "dtype": w.dtype,
            "block_m": sch.block_m,
            "block_n": sch.block_n,
            "warps": sch.warps,
            "stages": sch.stages,
            "fits_hbm": True,
            "hbm_footprint_bytes": algorithm_footprint_bytes(run.algorithm, w),
        }
        flops = w.model_flops()
        rows.append(
            base
            | {
                "source": "simulated",
                "runtime_s": run.predicted_runtime_s,
                "dram_bytes": run.predicted_dram_bytes,
                "global_bytes": run.predicted_global_bytes,
                "tflops": flops / run.predicted_runtime_s / 1e12,
                "bound": run.bound,
            }
        )
        rows.append(
            base
            | {
                "source": f"measured on {run.gpu}",
                "runtime_s": run.runtime_s,
                "dram_bytes": run.dram_bytes,
                "global_bytes": run.global_bytes,
                "tflops": flops / run.runtime_s / 1e12,
            }
        )
    return rows


def shape_summary(runs: Sequence[MeasuredRun]) -> dict[str, Any]:
    """Per algorithm: runs and the mean and largest |predicted / measured - 1| of runtime."""
    out: dict[str, Any] = {}
    for alg in sorted({r.algorithm for r in runs}):
        errs = [abs(r.predicted_runtime_s / r.runtime_s - 1) for r in runs if r.algorithm == alg]
        out[alg] = {"n": len(errs), "mape": sum(errs) / len(errs), "max_abs_err": max(errs)}
    return out


def _family(rows: list[dict[str, Any]]) -> str:
    tokens = {r["batch"] * r["seq_len_q"] for r in rows}
    hidden = {r["heads"] * r["head_dim"] for r in rows}
    if len(tokens) == 1 and len(hidden) == 1:
        return f"B·N = {tokens.pop():,} tokens, H·d = {hidden.pop()}"
    return "the measured workloads"


def draw_shape(axes, rows: list[dict[str, Any]], algorithms: Sequence[str]) -> None:
    """Runtime, DRAM bytes and TFLOP/s against N: lines predicted, hollow circles measured."""
    shape = [r for r in rows if r["panel"] == PANEL]
    metrics = (
        (lambda r: ms(r["runtime_s"]), "runtime_s"),
        (lambda r: gb(r["dram_bytes"]), "dram_bytes"),
        (lambda r: r["tflops"], "tflops"),
    )
    for alg in algorithms:
        mine = sorted((r for r in shape if r["algorithm"] == alg), key=lambda r: r["seq_len_q"])
        sim = [r for r in mine if r["source"] == "simulated"]
        meas = [r for r in mine if r["source"] != "simulated"]
        c = COLOURS.get(alg, "k")
        for ax, (value, key) in zip(axes, metrics, strict=True):
            p = [r for r in sim if r[key] is not None]
            m = [r for r in meas if r[key] is not None]
            ax.plot(
                [r["seq_len_q"] for r in p],
                [value(r) for r in p],
                ".-",
                c=c,
                label=f"{alg} predicted",
            )
            ax.plot(
                [r["seq_len_q"] for r in m],
                [value(r) for r in m],
                "o",
                mfc="none",
                c=c,
                label=f"{alg} measured",
            )
    prof = shape[0]["profile"]
    gpu = next(
        (r["source"][len("measured on ") :] for r in shape if r["source"] != "simulated"), ""
    )
    axes[0].set_title(f"runtime, {gpu} vs {prof}\n{_family(shape)}")
    axes[0].set_ylabel("ms")
    axes[1].set_title("DRAM bytes, same runs (measured: Nsight Compute)")
    axes[1].set_ylabel("GB")
    axes[2].set_title("achieved TFLOP/s (4·B·H·N²·d / time)")
    axes[2].set_ylabel("TFLOP/s")
    lens = sorted({r["seq_len_q"] for r in shape})
    for ax in axes:
        loglog_n(ax, lens, logy=ax is not axes[2])
        ax.set_xlabel("sequence length N")
        ax.legend(loc="best")


def loglog_n(ax, xs: list[int], logy: bool = True) -> None:
    """A log2 axis of sequence lengths ticked at ``xs`` (and a log y axis)."""
    from matplotlib.ticker import FixedLocator, NullLocator

    if not xs:
        return  # nothing drawn on this axis
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(xs))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticks(xs, [str(x) for x in xs])
    if logy:
        ax.set_yscale("log")
