"""What a sweep found, in a JSON summary: counts, failures by reason, the slowest points to
simulate, the best point of each workload and algorithm, and each parameter's knee.

The knee of a curve (runtime against one varied parameter, everything else fixed) is the
smallest value from which every larger value is within ``knee_tolerance`` of the curve's
best runtime: past it, more of the parameter buys less than that. It is meant for
parameters of which more is better (sizes, bandwidths, SM count, clocks); a curve whose
largest value is not within the tolerance of its best (runtime rises with the parameter,
as with a latency) has no knee (null).
"""

from __future__ import annotations

import heapq
import itertools
from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa

from gpusim.explore.sweep_plan import Plan
from gpusim.explore.table import ORDINAL, point_object_of_row
from gpusim.resumable_sweep import OK

#: Slowest points (wall time of their search) the summary lists.
SLOWEST = 10
#: Distinct failure reasons the summary lists (most frequent first; counts cover all).
FAILURE_REASONS = 20


def workload_label(w: dict[str, Any]) -> str:
    """A workload as one short line: ``B1 H16 N16384 d128 bf16 causal``."""
    n = f"N{w['seq_len_q']}" + (f"x{w['seq_len_k']}" if w["seq_len_k"] != w["seq_len_q"] else "")
    kv = f" Hkv{w['heads_kv']}" if w.get("heads_kv") else ""
    tail = (" causal" if w["causal"] else "") + (f" {w['pass']}" if w.get("pass") else "")
    return f"B{w['batch']} H{w['heads']}{kv} {n} d{w['head_dim']} {w['dtype']}{tail}"


def shape(plan: Plan) -> tuple[int, ...]:
    """The grid's axes: each varied parameter (spec order), then workloads, then algorithms."""
    return (*(len(v) for v in plan.vary.values()), len(plan.workloads), len(plan.algorithms))


def runtime_grid(plan: Plan, table: pa.Table) -> np.ndarray:
    """Each point's best runtime in seconds on the grid of :func:`shape` (NaN: failed or not
    run); the plan's point order is the grid's C order, so a point's ordinal indexes it."""
    grid = np.full(plan.n_points, np.nan)
    ok = np.asarray(table.column("status").to_pylist()) == OK
    ordinals = table.column(ORDINAL).to_numpy()
    runtimes = table.column("runtime_s").to_numpy(zero_copy_only=False)
    grid[ordinals[ok]] = runtimes[ok].astype(float)
    return grid.reshape(shape(plan))


def knee(values: list[float], runtimes: np.ndarray, tolerance: float) -> float | None:
    """The knee of one curve (see the module docstring); None without one."""
    pts = sorted((v, r) for v, r in zip(values, runtimes, strict=True) if np.isfinite(r))
    if len(pts) < 2:
        return None
    limit = min(r for _, r in pts) * (1 + tolerance)
    found = None
    for v, r in reversed(pts):
        if r > limit:
            break
        found = v
    return found


def knees(plan: Plan, grid: np.ndarray, tolerance: float) -> list[dict[str, Any]]:
    """The knee of every curve: per varied parameter, workload, algorithm and the other
    parameters' values."""
    names = list(plan.vary)
    labels = [workload_label(w.model_dump(mode="json")) for w in plan.workloads]
    out = []
    for j, name in enumerate(names):
        values = plan.vary[name]
        curves = np.moveaxis(grid, j, -1)  # (...others, W, A, values of name)
        others = [k for k in names if k != name]
        for index in itertools.product(*(range(n) for n in curves.shape[:-1])):
            curve = curves[index]
            if not np.isfinite(curve).any():
                continue
            *other_i, wi, ai = index
            best_i = int(np.nanargmin(curve))
            k = knee(values, curve, tolerance)
            out.append(
                {
                    "param": name,
                    "workload": labels[wi],
                    "algorithm": plan.algorithms[ai],
                    "fixed": {o: plan.vary[o][i] for o, i in zip(others, other_i, strict=True)},
                    "knee": k,
                    "runtime_at_knee_s": None if k is None else float(curve[values.index(k)]),
                    "best_at": values[best_i],
                    "best_runtime_s": float(curve[best_i]),
                }
            )
    return out


def _failures(table: pa.Table) -> tuple[int, list[dict[str, Any]]]:
    errors = [e for e in table.column("error").to_pylist() if e is not None]
    counts = Counter(errors)
    top = [{"error": e, "points": n} for e, n in counts.most_common(FAILURE_REASONS)]
    return len(counts), top


def _notes(table: pa.Table) -> list[dict[str, Any]]:
    """Each distinct line of what the model derived from varied fields, with its points."""
    counts: Counter[str] = Counter()
    for notes in table.column("notes").to_pylist():
        counts.update(notes.split("; ") if notes else ())
    return [{"note": n, "points": k} for n, k in sorted(counts.items())]


def _slowest(table: pa.Table) -> list[dict[str, Any]]:
    walls = table.column("sim_wall_s").to_pylist()
    top = heapq.nlargest(SLOWEST, range(len(walls)), key=lambda i: walls[i] or 0.0)
    rows = []
    for i in top:
        p = point_object_of_row(table, i)
        rows.append(
            {
                "algorithm": p["algorithm"],
                "params": p["params"],
                "workload": workload_label(p["workload"]),
                "status": p["status"],
                "sim_wall_s": p["sim_wall_s"],
            }
        )
    return rows


def _best(plan: Plan, grid: np.ndarray, table: pa.Table) -> list[dict[str, Any]]:
    """The fastest parameter values of each workload and algorithm, with its schedule."""
    row_of = {o: i for i, o in enumerate(table.column(ORDINAL).to_pylist())}
    flat = grid.reshape(-1, len(plan.workloads), len(plan.algorithms))
    out = []
    for wi, ai in itertools.product(range(len(plan.workloads)), range(len(plan.algorithms))):
        curve = flat[:, wi, ai]
        if not np.isfinite(curve).any():
            continue
        pi = int(np.nanargmin(curve))
        p = point_object_of_row(
            table, row_of[(pi * len(plan.workloads) + wi) * len(plan.algorithms) + ai]
        )
        out.append(
            {
                "workload": workload_label(p["workload"]),
                "algorithm": p["algorithm"],
                "params": p["params"],
                "runtime_s": p["runtime_s"],
                "bound": p["bound"],
                "schedule": p["schedule"],
            }
        )
    return out


def summarize(plan: Plan, table: pa.Table, *, interrupted: bool = False) -> dict[str, Any]:
    """The summary object (``summary.json``) of ``table``'s points of ``plan``."""
    grid = runtime_grid(plan, table)
    statuses = Counter(table.column("status").to_pylist())
    reasons, failures = _failures(table)
    done = table.num_rows
    walls = table.column("sim_wall_s").to_numpy(zero_copy_only=False)
    return {
        "base_profile": plan.base.name,
        "base_fingerprint": plan.base_fingerprint,
        "vary": plan.vary,
        "workloads": [workload_label(w.model_dump(mode="json")) for w in plan.workloads],
        "algorithms": plan.algorithms,
        "footprints": plan.spec.footprints,
        "points": plan.n_points,
        "done": done,
        "ok": statuses.get(OK, 0),
        "failed": done - statuses.get(OK, 0),
        "not_run": plan.n_points - done,
        "complete": done == plan.n_points and not interrupted,
        "sim_wall_s_total": float(np.nansum(walls.astype(float))) if done else 0.0,
        "failure_reasons": reasons,
        "failures": failures,
        "notes": _notes(table),
        "slowest": _slowest(table),
        "best": _best(plan, grid, table),
        "knee_tolerance": plan.spec.knee_tolerance,
        "knees": knees(plan, grid, plan.spec.knee_tolerance),
    }
