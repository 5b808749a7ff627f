"""The tuner's picture: a Br x Bc heatmap of predicted runtime, one panel per stage count.

Each cell is the best predicted runtime over the warp counts for that tile and
stage count; a cell with no feasible schedule is grey and says "no fit". The overall
best schedule is outlined.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gpusim.atomic import atomic_path
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule

#: The formats the heatmap is written in, by the file's suffix.
FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: str | Path) -> Path:
    """``path`` if the heatmap can be written there (a known suffix, an existing folder), else a
    one-line error: checked before the search, so a bad name does not waste it."""
    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise GpusimError(
            f"--plot {path}: the file name must end in {', '.join(FORMATS)} (the format)"
        )
    if not out.parent.is_dir():
        raise GpusimError(f"--plot {path}: folder {out.parent} does not exist")
    return out


def heatmap(
    ranked: Sequence[tuple[Schedule, float]],
    space: Sequence[Schedule],
    path: str | Path,
    title: str,
) -> Path:
    """Draw ``ranked`` (schedule, runtime_s) over the tiles of ``space`` into ``path``."""
    import matplotlib

    matplotlib.use("Agg")  # files only; no display on servers and CI
    import matplotlib.pyplot as plt
    import numpy as np

    bms = sorted({s.block_m for s in space})
    bns = sorted({s.block_n for s in space})
    stages = sorted({s.stages for s in space})
    best: dict[tuple[int, int, int], float] = {}
    for s, t in ranked:
        k = (s.stages, s.block_m, s.block_n)
        best[k] = min(t, best.get(k, float("inf")))
    top = min(ranked, key=lambda p: p[1])[0] if ranked else None
    finite = list(best.values())
    vmin, vmax = (min(finite), max(finite)) if finite else (0.0, 1.0)

    fig, axes = plt.subplots(
        1, len(stages), figsize=(3.2 * len(stages) + 1.2, 0.6 * len(bms) + 2.2), squeeze=False
    )
    image = None
    for ax, st in zip(axes[0], stages, strict=True):
        grid = np.full((len(bms), len(bns)), np.nan)
        for i, bm in enumerate(bms):
            for j, bn in enumerate(bns):
                grid[i, j] = best.get((st, bm, bn), np.nan) * 1e6
        ax.set_facecolor("0.85")  # NaN cells (nothing fits) show the background
        image = ax.imshow(
            grid, cmap="viridis_r", vmin=vmin * 1e6, vmax=vmax * 1e6, aspect="auto", origin="lower"
        )
        for i in range(len(bms)):
            for j in range(len(bns)):
                v = grid[i, j]
                dark = not np.isnan(v) and (v - vmin * 1e6) > 0.6 * (vmax - vmin) * 1e6
                text = "no fit" if np.isnan(v) else f"{v:.0f}"
                color = "white" if dark else "black"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
        if top is not None and top.stages == st:
            i, j = bms.index(top.block_m), bns.index(top.block_n)
            ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=2.5))
        ax.set_xticks(range(len(bns)), [str(b) for b in bns])
        ax.set_yticks(range(len(bms)), [str(b) for b in bms])
        ax.set_xlabel("Bc (block_n)")
        if ax is axes[0][0]:
            ax.set_ylabel("Br (block_m)")
        ax.set_title(f"{st} stage{'s' if st > 1 else ''}")
    if image is not None:
        fig.colorbar(image, ax=axes[0].tolist(), label="predicted runtime (µs), best over warps")
    fig.suptitle(title, fontsize=10)
    out = check_plot_path(path)
    with atomic_path(out) as tmp:
        fig.savefig(tmp, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out
