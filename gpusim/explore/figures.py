"""The sweep's figures: runtime against each varied parameter with each curve's knee
marked, and a heatmap over the first two varied parameters.

Figures are drawn from the runtime grid (:func:`gpusim.explore.summary.runtime_grid`) with
the report's fixed style and written as reproducible PNGs (:mod:`gpusim.reporting`). Big
sweeps are cut to what a figure can show, and the title says how: the first
:data:`MAX_PANELS` workloads, and other parameters held at their largest value when their
combinations would make more than :data:`MAX_LINES` lines per algorithm.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.explore.summary import knee, workload_label
from gpusim.explore.sweep_plan import Plan
from gpusim.reporting.files import save_figure
from gpusim.reporting.plotting import ALGORITHM_MARKERS, colour, ms, pyplot

MAX_PANELS = 6
MAX_LINES = 6
#: Heatmap panels: workloads down, algorithms across.
MAX_HEATMAP_ROWS = 4
MAX_HEATMAP_COLS = 4


def fmt_param(name: str, value: float) -> str:
    """A parameter value in the unit its name says (``l2_bytes`` in MiB ...)."""
    if name.endswith("bytes_per_s"):
        return f"{value / 1e12:g} TB/s"
    if name.endswith("_bytes"):
        kib = value / 1024
        return f"{kib / 1024:g} MiB" if kib >= 1024 else f"{kib:g} KiB"
    if name.endswith("_hz"):
        return f"{value / 1e9:g} GHz"
    if name.endswith("_s"):
        return f"{value * 1e9:g} ns"
    return f"{value:g}"


def _file_stem(name: str) -> str:
    return name.replace(".", "_")


def _spans(values: np.ndarray, ratio: float) -> bool:
    finite = values[np.isfinite(values) & (values > 0)]
    return finite.size > 1 and finite.max() / finite.min() >= ratio


def _others(plan: Plan, name: str) -> tuple[list[str], list[tuple[int, ...]], bool]:
    """The other parameters, the index combinations drawn as lines, and whether they are
    held at their largest values (too many combinations)."""
    others = [k for k in plan.vary if k != name]
    combos = list(itertools.product(*(range(len(plan.vary[k])) for k in others)))
    if len(combos) <= MAX_LINES:
        return others, combos, False
    largest = tuple(int(np.argmax(plan.vary[k])) for k in others)
    return others, [largest], True


def runtime_figure(plan: Plan, grid: np.ndarray, name: str, path: Path) -> Path:
    """Runtime against ``name``: a panel per workload, a line per algorithm (and per
    combination of the other parameters), each line's knee a black star."""
    plt = pyplot()
    j = list(plan.vary).index(name)
    values = np.asarray(plan.vary[name], dtype=float)
    order = np.argsort(values)
    curves = np.moveaxis(grid, j, -1)  # (...others, W, A, values)
    others, combos, held = _others(plan, name)
    n_panels = min(len(plan.workloads), MAX_PANELS)
    cols = min(n_panels, 3)
    rows = -(-n_panels // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    tol = plan.spec.knee_tolerance
    for wi in range(n_panels):
        ax = axes[wi // cols][wi % cols]
        for ai, alg in enumerate(plan.algorithms):
            for ci, combo in enumerate(combos):
                curve = curves[(*combo, wi, ai)][order]
                ok = np.isfinite(curve)
                if not ok.any():
                    continue
                label = alg + "".join(
                    f", {o} {fmt_param(o, plan.vary[o][i])}"
                    for o, i in zip(others, combo, strict=True)
                )
                style = ["-", "--", ":", "-."][ci % 4]
                ax.plot(values[order][ok], ms(curve[ok]), style, color=colour(alg),
                        marker=ALGORITHM_MARKERS.get(alg, "o"), ms=4, label=label)  # fmt: skip
                k = knee(list(values[order]), curve, tol)
                if k is not None:
                    ax.plot([k], [ms(curve[list(values[order]).index(k)])], "*", color="black",
                            markersize=11, zorder=5)  # fmt: skip
        if _spans(values, 8):
            ax.set_xscale("log")
        if _spans(ms(curves[..., wi, :, :]), 10):
            ax.set_yscale("log")
        ax.set_xticks(values[order], [fmt_param(name, v) for v in values[order]], rotation=30)
        ax.minorticks_off()
        ax.set_title(workload_label(plan.workloads[wi].model_dump(mode="json")))
        ax.set_xlabel(name)
        ax.set_ylabel("predicted runtime, tuned (ms)")
        if wi == 0:
            ax.plot([], [], "*", color="black", markersize=11, label=f"knee (within {tol:.0%})")
            ax.legend(loc="best", fontsize="small")
    for k in range(n_panels, rows * cols):
        axes[k // cols][k % cols].axis("off")
    notes = []
    if n_panels < len(plan.workloads):
        notes.append(f"first {n_panels} of {len(plan.workloads)} workloads")
    if held:
        notes.append("other parameters at their largest values")
    suffix = f" ({'; '.join(notes)})" if notes else ""
    # Two lines: one panel is 4.2 inches wide, too narrow for the title on one.
    fig.suptitle(f"Tuned runtime against {name},\n{plan.base.name} otherwise{suffix}")
    fig.tight_layout()
    return save_figure(fig, path)


def heatmap_figure(plan: Plan, grid: np.ndarray, path: Path) -> Path:
    """Best runtime over the first two varied parameters: a panel per workload and
    algorithm, the other parameters at their largest values."""
    plt = pyplot()
    names = list(plan.vary)
    x_name, y_name = names[0], names[1]
    index: list[Any] = [slice(None), slice(None)]
    index += [int(np.argmax(plan.vary[k])) for k in names[2:]]
    sub = grid[tuple(index)]  # (x, y, W, A)
    xs, ys = np.argsort(plan.vary[x_name]), np.argsort(plan.vary[y_name])
    n_rows = min(len(plan.workloads), MAX_HEATMAP_ROWS)
    n_cols = min(len(plan.algorithms), MAX_HEATMAP_COLS)
    width_in = max(3.8 * n_cols, 6.0)  # room for the title with one algorithm
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(width_in, 3.2 * n_rows), squeeze=False)
    for wi, ai in itertools.product(range(n_rows), range(n_cols)):
        ax = axes[wi][ai]
        cells = ms(sub[:, :, wi, ai][np.ix_(xs, ys)].T)  # rows: y, columns: x
        shown = np.ma.masked_invalid(np.log10(np.where(cells > 0, cells, np.nan)))
        cmap = plt.get_cmap("viridis_r").copy()
        cmap.set_bad("#dddddd")
        image = ax.imshow(shown, cmap=cmap, aspect="auto", origin="lower")
        for (r, c), t in np.ndenumerate(cells):
            # Dark cells (the slow end of viridis_r) get white text.
            dark = np.isfinite(t) and image.norm(np.log10(t)) > 0.6
            ax.text(c, r, "fail" if not np.isfinite(t) else f"{t:.3g}", ha="center",
                    va="center", fontsize=7, color="white" if dark else "black")  # fmt: skip
        ax.set_xticks(range(len(xs)), [fmt_param(x_name, plan.vary[x_name][i]) for i in xs])
        ax.set_yticks(range(len(ys)), [fmt_param(y_name, plan.vary[y_name][i]) for i in ys])
        ax.tick_params(axis="x", rotation=30)
        ax.grid(False)
        w = workload_label(plan.workloads[wi].model_dump(mode="json"))
        ax.set_title(f"{plan.algorithms[ai]}: {w}", fontsize=8)
        ax.set_xlabel(x_name)
        ax.set_ylabel(y_name)
    held = f"; {', '.join(names[2:])} at their largest values" if names[2:] else ""
    fig.suptitle(f"Tuned runtime (ms), {plan.base.name} varied:\n{x_name} x {y_name}{held}")
    fig.tight_layout()
    return save_figure(fig, path)


def write_figures(plan: Plan, grid: np.ndarray, out: Path) -> list[Path]:
    """Every figure of the sweep under ``out``; none where no point has a runtime."""
    if not np.isfinite(grid).any():
        return []
    paths = [
        runtime_figure(plan, grid, name, out / f"runtime_vs_{_file_stem(name)}.png")
        for name in plan.vary
    ]
    if len(plan.vary) >= 2:
        a, b = (_file_stem(n) for n in list(plan.vary)[:2])
        paths.append(heatmap_figure(plan, grid, out / f"heatmap_{a}_{b}.png"))
    return paths
