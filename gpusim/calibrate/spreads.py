"""Each record benchmark's profile values, and how far the repeats behind them reach.

The benchmark modules derive a value from their record (the median of the repeats of each
configuration); here it is derived again with the repeats at the ends that push it lowest
and highest, so that a comparison with another calibration can tell a real difference from
the benchmark's own scatter. This is the scatter *within* one run: a second run (another
boot, another clock state) may scatter more. Curves get a low/high per point.
"""

from __future__ import annotations

import copy
import statistics
from collections.abc import Callable
from typing import Any

from gpusim.calibrate import (
    barrier_cost,
    cta_scatter,
    dram_mlp,
    l2_bytes,
    l2_loss,
    load_clock,
    simt_mm,
    smem_fill,
    smem_overlap,
)

Entries = dict[str, dict[str, Any]]


def _at(record: dict[str, Any], pick: Callable[[dict[str, Any]], str]) -> dict[str, Any]:
    """A copy of a warp-loop record (``raw.per_clk_per_sm`` per row) with each row's rate at
    ``pick(row)`` (``"min"``, ``"median"`` or ``"max"``) and the cycles derived from it."""
    out = copy.deepcopy(record)
    for row in out["rows"]:
        raw = row["raw"]["per_clk_per_sm"]
        rate = raw[pick(row)]
        if "cycles_per_iteration_per_scheduler" in row:
            warps_per_sm = row["threads"] // 32 * row["ctas_per_sm"]
            row["cycles_per_iteration_per_scheduler"] = warps_per_sm / rate
        if "flops_per_clk_per_sm" in row:
            row["flops_per_clk_per_sm"] = rate
    return out


def _bracket(entry: dict[str, Any], lo: float, hi: float, how: str) -> dict[str, Any]:
    return entry | {"low": min(lo, hi), "high": max(lo, hi), "spread": how}


def simt(record: dict[str, Any]) -> Entries:
    entry = simt_mm.profile_entry(record)
    lo = simt_mm.profile_entry(_at(record, lambda r: "min"))["value"]
    hi = simt_mm.profile_entry(_at(record, lambda r: "max"))["value"]
    how = "the median over shapes with every shape at its slowest (fastest) repeat"
    return {"simt_mma_flops_per_clk_per_sm": _bracket(entry, lo, hi, how)}


def overlap(record: dict[str, Any]) -> Entries:
    out = smem_overlap.profile_entries(record)
    # Efficiency = cycles with 4 warps / cycles with fewer: lowest with the 4-warp rows fast.
    low = smem_overlap.profile_entries(
        _at(record, lambda r: "max" if r["warps_per_scheduler"] == 4 else "min")
    )
    high = smem_overlap.profile_entries(
        _at(record, lambda r: "min" if r["warps_per_scheduler"] == 4 else "max")
    )
    how = (
        "every 4-warp shape at its fastest (slowest) repeat, the others at their slowest (fastest)"
    )
    field = smem_overlap.RELEASE_FIELD
    steps = {f: _bracket(e, low[f]["value"], high[f]["value"], how) for f, e in out.items()
             if f != field}  # fmt: skip
    if field in out:
        # k = 1 - (both - softmax) / ldmatrix: lowest with the loop of both slow, the others fast
        def both(r: dict[str, Any]) -> bool:
            return r["nld"] > 0 and r["rounds"] > 0

        lo = smem_overlap.release_entry(_at(record, lambda r: "min" if both(r) else "max"))
        hi = smem_overlap.release_entry(_at(record, lambda r: "max" if both(r) else "min"))
        how_k = "the ldmatrix-and-softmax loop at its slowest (fastest) repeat, the others fastest"
        steps[field] = _bracket(out[field], lo["value"], hi["value"], how_k)
    return steps


def fill(record: dict[str, Any]) -> Entries:
    out = smem_fill.profile_entries(record)
    # Cost = loop with fills over loop without, less 1: highest with the fill loops slow.
    low = smem_fill.profile_entries(_at(record, lambda r: "min" if not r["nfill"] else "max"))
    high = smem_fill.profile_entries(_at(record, lambda r: "max" if not r["nfill"] else "min"))
    how = "loops with fills at their fastest (slowest) repeat, those without at their slowest"
    field = "smem_fill_cost_per_byte"
    return {field: _bracket(out[field], low[field]["value"], high[field]["value"], how)}


def barrier(record: dict[str, Any]) -> Entries:
    out = barrier_cost.profile_entries(record)
    rows = record["by_warps_per_cta"].values()
    if not all("repeats_with_barrier" in r for r in rows):  # a record from before they were kept
        how = "no repeats recorded"
        return {f: _bracket(e, e["value"], e["value"], how) for f, e in out.items()}
    fits = []
    for end in ("low", "high"):
        rec = copy.deepcopy(record)
        for row in rec["by_warps_per_cta"].values():
            with_b, without = row["repeats_with_barrier"], row["repeats_without_barrier"]
            if end == "low":
                row["barrier_cycles"] = min(with_b) - max(without)
            else:
                row["barrier_cycles"] = max(with_b) - min(without)
        fits.append(barrier_cost.fit(rec))
    how = (
        "the fits through every warp count's cost at its lowest and highest repeat difference, "
        "and the value (a line's intercept and slope need not move with the costs' ends)"
    )
    base, per_warp = out["barrier_base_cycles"], out["barrier_cycles_per_warp"]
    base_ends = [round(f[0], 2) for f in fits] + [base["value"]]
    slope_ends = [round(f[1], 3) for f in fits] + [per_warp["value"]]
    return {
        "barrier_base_cycles": _bracket(base, min(base_ends), max(base_ends), how),
        "barrier_cycles_per_warp": _bracket(per_warp, min(slope_ends), max(slope_ends), how),
    }


def scatter(record: dict[str, Any]) -> Entries:
    entry = cta_scatter.profile_entry(record)
    per_repeat = [
        cta_scatter.summary({"launches": [la]})[0]["within_sm_std"]
        for la in record["launches"]
        if la["loop"] == cta_scatter.STEP_LOOP
    ]
    how = f"the smallest (largest) of the {len(per_repeat)} launches' own scatter"
    lo, hi = round(min(per_repeat), 4), round(max(per_repeat), 4)  # rounded as the value
    return {"cta_duration_scatter": _bracket(entry, lo, hi, how)}


def dram(record: dict[str, Any]) -> Entries:
    entry = dram_mlp.profile_entry(record)
    best = _fitted(record, statistics.median)[-1]
    # Every launch at its longest (shortest) time, over the same best: the fit is monotone
    # in its input, so the median curve lies between.
    lows, highs = (
        [round(min(1.0, v / best), 4) for v in _fitted(record, end)] for end in (max, min)
    )
    how = "per point, every launch at its longest (shortest) time, over the median curve's best"
    return {"dram_share_by_inflight": entry | {"low": lows, "high": highs, "spread": how}}


def _fitted(record: dict[str, Any], time_of: Callable[[list[float]], float]) -> list[float]:
    """The copy mode's bandwidth by bytes in flight, each launch's time ``time_of`` its
    repeats, averaged per amount and made non-decreasing (as :func:`dram_mlp.share_curve`)."""
    by_x: dict[int, list[float]] = {}
    for r in record["rows"]:
        if r["copy"]:
            bw = r["bytes_moved"] / time_of(r["times_s"])
            by_x.setdefault(r["read_bytes_in_flight_per_sm"], []).append(bw)
    xs = sorted(by_x)
    means = [sum(by_x[x]) / len(by_x[x]) for x in xs]
    return l2_loss.isotonic(means, [float(len(by_x[x])) for x in xs])


def l2(record: dict[str, Any]) -> Entries:
    records = record["records"]
    loss = l2_loss.profile_entry([record], ["this run's l2_cache record"])
    loss.pop("source")
    curve = loss["value"]
    # One ncu count per launch, no repeats: the raw points' distance from the fitted curve.
    resid = [
        lost - l2_loss.lost_share([(d, v) for d, v in curve], depth)
        for depth, lost in l2_loss.loss_points(records)
    ]
    worst = max((abs(r) for r in resid), default=0.0)
    lows = [max(0.0, v - worst) for _d, v in curve]
    highs = [min(1.0, v + worst) for _d, v in curve]
    how = f"per point, the fitted share +- the worst raw point's distance from it ({worst:.3f})"
    factor = l2_bytes.padded_copy_factor(records)
    return {
        "l2_loss_by_depth": loss | {"low": lows, "high": highs, "spread": how},
        "l2_fetch_bytes_per_byte_padded_row_copy": {
            "value": factor["value"],
            "note": factor["note"],
            "low": factor["low"],
            "high": factor["high"],
            "spread": "the smallest (largest) of the padded copies' ratios (ncu counts, exact)",
        },
    }


def clock(record: dict[str, Any]) -> Entries:
    return {load_clock.FIELD: load_clock.suite_entry(record)}


DERIVE: dict[str, Callable[[dict[str, Any]], Entries]] = {
    "barrier": barrier,
    "simt_mm": simt,
    "smem_overlap": overlap,
    "smem_fill": fill,
    "cta_scatter": scatter,
    "dram_mlp": dram,
    "l2_cache": l2,
    "load_clock": clock,
}
