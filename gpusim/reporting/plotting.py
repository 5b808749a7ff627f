"""Shared look of the report figures: the Agg backend, fixed style, colours and unit labels."""

from __future__ import annotations

from typing import Any

#: One colour per profile and per algorithm, the same in every figure.
PROFILE_COLOURS = {
    "a100-sxm4-80gb": "#1f77b4",
    "h100-sxm5": "#2ca02c",
    "h200-sxm": "#d62728",
    "h200-sxm-datasheet": "#9467bd",
    "h200-sxm-core": "#ff7f0e",
    "l40s": "#8c564b",
    "rtx-4090": "#e377c2",
}
ALGORITHM_COLOURS = {
    "softmax-3pass": "#8c564b",
    "softmax-online": "#e377c2",
    "standard": "#7f7f7f",
    "flash-naive-qkv": "#bcbd22",
    "flash-naive-kvq": "#17becf",
    "flash1": "#ff7f0e",
    "flash2": "#1f77b4",
    "flash2-kvq": "#9467bd",
}
ALGORITHM_MARKERS = {
    "softmax-3pass": "v",
    "softmax-online": "^",
    "standard": "s",
    "flash-naive-qkv": "P",
    "flash-naive-kvq": "X",
    "flash1": "D",
    "flash2": "o",
    "flash2-kvq": "*",
}

#: rcParams every figure is drawn with, so that no user matplotlibrc changes the bytes.
STYLE: dict[str, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "path.simplify": False,
}


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend (files only) with :data:`STYLE` applied."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcdefaults()
    plt.rcParams.update(STYLE)
    return plt


def colour(name: str) -> str:
    """The colour of a profile or algorithm (grey for one not listed)."""
    return PROFILE_COLOURS.get(name) or ALGORITHM_COLOURS.get(name) or "#333333"


def gb(n: float) -> float:
    """Bytes to GB (10^9), the unit of the traffic axes."""
    return n / 1e9


def ms(t_s: float) -> float:
    """Seconds to milliseconds, the unit of the runtime axes."""
    return t_s * 1e3


def fmt_bytes(n: float) -> str:
    """Bytes for a person: ``1.23 GB``, ``45.6 MB``."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_time(t_s: float) -> str:
    """Seconds for a person: ``1.23 ms``, ``456 µs``."""
    if t_s >= 1:
        return f"{t_s:.3g} s"
    if t_s >= 1e-3:
        return f"{t_s * 1e3:.3g} ms"
    return f"{t_s * 1e6:.3g} µs"
