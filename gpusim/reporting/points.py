"""Simulation points: one (algorithm, workload, schedule, profile) a figure needs, and its row.

A :class:`Point` names a simulation the way the command line does (schedule
fields left as None are chosen by the tuner's default rule, as ``gpusim
simulate`` does). :func:`simulate_point` runs it and returns a flat row whose
keys are those of ``gpusim simulate --json``, so a figure's CSV can be checked
against the command. :func:`run_points` runs many, on several processes, each once.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, fields
from typing import Any

from gpusim.api.device_memory import hbm_footprint_bytes

#: The engine path the reports use: identical CTAs lumped, runs of steps merged (fast).
DETAIL = "aggregated"

#: Columns of a simulated row, in CSV order: the point, then what ``gpusim simulate --json`` says.
ROW_COLUMNS = (
    "algorithm",
    "profile",
    "batch",
    "heads",
    "seq_len_q",
    "seq_len_k",
    "head_dim",
    "dtype",
    "causal",
    "block_m",
    "block_n",
    "warps",
    "stages",
    "warp_split",
    "residency",
    "detail",
    "runtime_s",
    "tflops",
    "flops",
    "executed_mma_flops",
    "global_read_bytes",
    "global_write_bytes",
    "dram_read_bytes",
    "dram_write_bytes",
    "l2_hit_rate",
    "smem_bytes_per_cta",
    "ctas_per_sm",
    "waves",
    "bound",
    "hbm_footprint_bytes",
)


@dataclass(frozen=True)
class Point:
    """One simulation as the command line would name it (None: the default rule chooses)."""

    algorithm: str
    profile: str
    batch: int
    heads: int
    seq_len: int
    head_dim: int
    dtype: str = "fp16"
    causal: bool = False
    block_m: int | None = None
    block_n: int | None = None
    warps: int | None = None
    stages: int | None = None
    warp_split: str | None = None
    detail: str = DETAIL

    def options(self) -> dict[str, Any]:
        """Keyword arguments of :func:`gpusim.api.build_inputs`."""
        d = asdict(self)
        d.pop("detail")
        return d

    def cli_args(self) -> list[str]:
        """The ``gpusim simulate`` options that name this point."""
        args = []
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None or f.name == "detail":
                continue
            flag = "--" + f.name.replace("_", "-")
            if isinstance(v, bool):
                args += [flag] if v else []
            else:
                args += [flag, str(v)]
        return args

    def sort_key(self) -> tuple:
        """A total order over points (None sorts first)."""
        return tuple((v is not None, v if v is not None else 0) for v in asdict(self).values())


def simulate_point(point: Point) -> dict[str, Any]:
    """Simulate ``point`` with the engine and return its row (keys: :data:`ROW_COLUMNS`, plus
    ``util_<resource>`` for each resource's share of its peak)."""
    from gpusim.api import build_inputs, simulate

    workload, schedule, profile, _ = build_inputs(**point.options())
    res = simulate(point.algorithm, workload, schedule, profile, detail=point.detail)
    j = res.to_json_dict()
    row: dict[str, Any] = {"algorithm": point.algorithm, "profile": profile.name}
    row.update(j["workload"])
    row.update({k: v for k, v in j["schedule"].items() if k != "algorithm"})
    for key in ROW_COLUMNS:
        if key not in row and key in j:
            row[key] = j[key]
    tensors = sorted(j.get("bytes_by_tensor", {}))
    row["hbm_footprint_bytes"] = hbm_footprint_bytes(workload, tensors)
    for name, u in sorted(j["utilisation"].items()):
        row[f"util_{name}"] = u
    return row


def _cost(point: Point) -> int:
    # Materialised algorithms trace and simulate N^2 tiles, the others ~N; longest first.
    n = point.seq_len
    quadratic = point.algorithm in ("standard", "softmax-3pass", "softmax-online")
    return n * n if quadratic else n * 64


Progress = Callable[[Point], None]


def run_points(
    points: Iterable[Point], *, jobs: int | None = None, on_done: Progress | None = None
) -> dict[Point, dict[str, Any]]:
    """Simulate each distinct point once; ``jobs`` processes (default: up to 2 CPUs)."""
    todo = sorted(set(points), key=lambda p: (-_cost(p), p.sort_key()))
    jobs = min(2, os.cpu_count() or 1) if jobs is None else jobs
    out: dict[Point, dict[str, Any]] = {}
    if jobs <= 1 or len(todo) <= 1:
        for p in todo:
            out[p] = simulate_point(p)
            if on_done:
                on_done(p)
        return out
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(simulate_point, p): p for p in todo}
        for fut in as_completed(futures):
            p = futures[fut]
            out[p] = fut.result()
            if on_done:
                on_done(p)
    return out


def rows_of(results: Mapping[Point, dict[str, Any]], points: Iterable[Point]) -> list[dict]:
    """The result rows of ``points``, in the order given."""
    return [results[p] for p in points]
