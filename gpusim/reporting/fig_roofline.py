"""Figure 4: a roofline per profile with every algorithm placed on it.

x is arithmetic intensity, model FLOPs (4·B·H·Nq·Nk·d) per byte, y the achieved
FLOP/s (model FLOPs over predicted runtime). Filled markers use DRAM bytes,
hollow ones SM↔L2 bytes; the roofs are the tensor-core peak (``mma.sync`` at
the storage type) and the DRAM and L2 bandwidths, as the engine takes them from
the profile. A point far below both roofs is limited by something else (shared
memory, exp, latency, too few CTAs), which the CSV's ``bound`` column names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpusim.profiles import load_profile
from gpusim.reporting.figure import Figure, FigureData, Results, workload_dict, workload_text
from gpusim.reporting.files import save_figure
from gpusim.reporting.plotting import ALGORITHM_MARKERS, colour, pyplot
from gpusim.reporting.points import Point

COLUMNS = (
    "profile",
    "algorithm",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "flops",
    "dram_bytes",
    "global_bytes",
    "dram_intensity_flop_per_byte",
    "l2_intensity_flop_per_byte",
    "runtime_s",
    "achieved_flop_per_s",
    "roof_flop_per_s",
    "fraction_of_roof",
    "bound",
)


def roofs(profile_name: str, dtype: str) -> dict[str, float]:
    """Peak compute (FLOP/s) and DRAM/L2 bandwidth (B/s) of a profile, as the engine uses them."""
    from gpusim.engine.rates import rates_for

    r = rates_for(load_profile(profile_name), dtype)
    peak = r.peak_per_s("tensor") if r.mma_pipe == "tensor" else 2 * r.peak_per_s("fp32")
    return {
        "peak_flop_per_s": peak,
        "dram_bytes_per_s": r.dram_bytes_per_s,
        "l2_bytes_per_s": r.l2_bytes_per_s,
    }


@dataclass
class Roofline(Figure):
    """Every algorithm on each profile's roofline, at one workload with default schedules."""

    profiles: tuple[str, ...] = ("a100-sxm4-80gb", "h100-sxm5", "h200-sxm")
    algorithms: tuple[str, ...] = ()  # empty: every algorithm gpusim knows
    batch: int = 8
    heads: int = 32
    seq_len: int = 2048
    head_dim: int = 128
    dtype: str = "fp16"

    name = "fig4_roofline"
    title = "4. Roofline: every algorithm on each profile"

    def algorithm_names(self) -> tuple[str, ...]:
        """The algorithms placed (all of them unless configured)."""
        from algorithms import ALGORITHMS

        return self.algorithms or tuple(ALGORITHMS)

    def _point(self, prof: str, alg: str) -> Point:
        return Point(alg, prof, self.batch, self.heads, self.seq_len, self.head_dim, self.dtype)

    def points(self) -> list[Point]:
        return [self._point(p, a) for p in self.profiles for a in self.algorithm_names()]

    def build(self, results: Results) -> FigureData:
        rows = []
        summary: dict = {"workload": workload_dict(self)}
        for prof in self.profiles:
            rf = roofs(prof, self.dtype)
            summary[prof] = {"roofs": rf, "algorithms": {}}
            for alg in self.algorithm_names():
                r = results[self._point(prof, alg)]
                dram = r["dram_read_bytes"] + r["dram_write_bytes"]
                glob = r["global_read_bytes"] + r["global_write_bytes"]
                ai = r["flops"] / dram if dram else float("inf")
                achieved = r["flops"] / r["runtime_s"]
                roof = min(rf["peak_flop_per_s"], ai * rf["dram_bytes_per_s"])
                row = {k: r[k] for k in ("block_m", "block_n", "warps", "stages", "flops")}
                row |= {
                    "profile": prof,
                    "algorithm": alg,
                    "dram_bytes": dram,
                    "global_bytes": glob,
                    "dram_intensity_flop_per_byte": ai,
                    "l2_intensity_flop_per_byte": r["flops"] / glob if glob else float("inf"),
                    "runtime_s": r["runtime_s"],
                    "achieved_flop_per_s": achieved,
                    "roof_flop_per_s": roof,
                    "fraction_of_roof": achieved / roof,
                    "bound": r["bound"],
                }
                rows.append(row)
                summary[prof]["algorithms"][alg] = {
                    k: row[k]
                    for k in (
                        "dram_intensity_flop_per_byte",
                        "achieved_flop_per_s",
                        "fraction_of_roof",
                        "bound",
                    )
                }
        data = FigureData(rows, COLUMNS, summary=summary)
        data.table_header = [
            "profile",
            "algorithm",
            "FLOP/DRAM byte",
            "FLOP/L2 byte",
            "achieved TFLOP/s",
            "roof TFLOP/s",
            "of roof",
            "bound",
        ]
        for r in rows:
            data.table_rows.append(
                [
                    r["profile"],
                    r["algorithm"],
                    f"{r['dram_intensity_flop_per_byte']:.0f}",
                    f"{r['l2_intensity_flop_per_byte']:.0f}",
                    f"{r['achieved_flop_per_s'] / 1e12:.1f}",
                    f"{r['roof_flop_per_s'] / 1e12:.0f}",
                    f"{100 * r['fraction_of_roof']:.0f}%",
                    r["bound"],
                ]
            )
        return data

    def draw(self, data: FigureData, path: Path) -> None:
        import numpy as np

        plt = pyplot()
        n = len(self.profiles)
        fig, axes = plt.subplots(1, n, figsize=(5 * n, 4.6), layout="constrained", squeeze=False)
        xs = [r["dram_intensity_flop_per_byte"] for r in data.rows]
        xs += [r["l2_intensity_flop_per_byte"] for r in data.rows]
        lo, hi = 10 ** np.floor(np.log10(min(xs) / 2)), 10 ** np.ceil(np.log10(max(xs) * 2))
        grid = np.logspace(np.log10(lo), np.log10(hi), 200)
        for ax, prof in zip(axes[0], self.profiles, strict=True):
            rf = data.summary[prof]["roofs"]
            peak = rf["peak_flop_per_s"] / 1e12
            ax.plot(
                grid,
                np.minimum(peak, grid * rf["dram_bytes_per_s"] / 1e12),
                "k-",
                lw=1.5,
                label="DRAM roof",
            )
            ax.plot(
                grid,
                np.minimum(peak, grid * rf["l2_bytes_per_s"] / 1e12),
                "k--",
                lw=1,
                label="L2 roof",
            )
            for r in (r for r in data.rows if r["profile"] == prof):
                a = r["algorithm"]
                y = r["achieved_flop_per_s"] / 1e12
                m = ALGORITHM_MARKERS.get(a, "o")
                ax.plot(r["dram_intensity_flop_per_byte"], y, m, c=colour(a), ms=7, label=a)
                ax.plot(r["l2_intensity_flop_per_byte"], y, m, c=colour(a), ms=7, mfc="none")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(lo, hi)
            ax.set_ylim(peak / 1e3, peak * 2)
            ax.set_xlabel("arithmetic intensity (model FLOPs per byte)")
            ax.set_ylabel("achieved TFLOP/s")
            ax.set_title(
                f"{prof}: peak {peak:.0f} TFLOP/s, DRAM {rf['dram_bytes_per_s'] / 1e12:.2f} TB/s"
            )
        axes[0][0].legend(loc="lower right", ncol=2, fontsize=7)
        fig.suptitle(
            f"Roofline (filled: per DRAM byte, hollow: per SM↔L2 byte): {workload_text(self)}, "
            "default tiles"
        )
        save_figure(fig, path)

    def describe(self, data: FigureData) -> str:
        prof = self.profiles[-1]
        algs = data.summary[prof]["algorithms"]
        best = max(algs, key=lambda a: (algs[a]["achieved_flop_per_s"], a))
        low = min(algs, key=lambda a: (algs[a]["dram_intensity_flop_per_byte"], a))
        b, lw = algs[best], algs[low]
        return (
            f"On {prof}, {best} reaches {b['achieved_flop_per_s'] / 1e12:.0f} TFLOP/s, "
            f"{100 * b['fraction_of_roof']:.0f}% of its roof (bound: {b['bound']}), while "
            f"{low} has the lowest intensity ({lw['dram_intensity_flop_per_byte']:.0f} FLOP per "
            f"DRAM byte) and reaches {lw['achieved_flop_per_s'] / 1e12:.1f} TFLOP/s. Points well "
            f"below both roofs are limited by something the roofline does not draw (shared "
            f"memory, exp throughput, latency or too few CTAs), which the CSV's bound column names."
        )
