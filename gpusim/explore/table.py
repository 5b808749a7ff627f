"""The sweep's table: one row per point of the plan that has a result, in the plan's order
(so the bytes do not depend on which executor finished which point first).

Rows come from the journal (``points.jsonl``, :mod:`gpusim.resumable_sweep`), the latest
record of each point; the columns are the point's JSON object flattened with dots
(``params.sm_count``, ``workload.seq_len_q``, ``schedule.block_m``, ``runtime_s`` ...), with
fixed Arrow types, so a failed point is a row of nulls beside its ``error``. The table is
written as Parquet and as CSV, each atomically (:mod:`gpusim.atomic`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import numpy as np
import pyarrow as pa

from gpusim.atomic import atomic_path
from gpusim.explore.fields import variable_fields
from gpusim.explore.sweep_plan import Plan
from gpusim.resumable_sweep import OK, iter_records
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: The column that orders rows as the plan does; kept in memory, never written.
ORDINAL = "_ordinal"
#: Rows turned into Arrow at a time (bounds the Python objects alive while reading).
BATCH_ROWS = 512

#: What the tuner's best candidate gives each point, with its Arrow type.
RESULT_COLUMNS: dict[str, pa.DataType] = {
    "schedule.smem_bytes_per_cta": pa.int64(),
    "schedule.regs_per_thread": pa.int64(),
    "runtime_s": pa.float64(),
    "tflops": pa.float64(),
    "bound": pa.string(),
    "dram_read_bytes": pa.int64(),
    "dram_write_bytes": pa.int64(),
    "global_bytes": pa.int64(),
    "ctas_per_sm": pa.int64(),
    "ctas_per_sm_max": pa.int64(),
    "sram_bytes": pa.int64(),
    "candidates": pa.int64(),
    "notes": pa.string(),  # numbers derived from the varied ones (gpusim.explore.coupled)
    "sim_wall_s": pa.float64(),
}


def _arrow_type(annotation: Any) -> pa.DataType:
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) is Literal or annotation is str:
        return pa.string()
    if args and all(get_origin(a) is Literal or a is str for a in args):  # optional strings
        return pa.string()
    if annotation is bool:
        return pa.bool_()
    if annotation is int or (args and all(a is int for a in args)):
        return pa.int64()
    if annotation is float or (args and all(a is float for a in args)):
        return pa.float64()
    raise TypeError(f"no Arrow type for {annotation!r}")  # a new model field: add it here


def schema(plan: Plan) -> pa.Schema:
    """The table's columns for ``plan``: identity, status, then the result."""
    kinds = variable_fields()
    cols: list[tuple[str, pa.DataType]] = [("algorithm", pa.string())]
    cols += [(f"params.{k}", pa.int64() if kinds[k] is int else pa.float64()) for k in plan.vary]
    # a field under the name its records use (``pass``, whose field is ``pass_``)
    cols += [
        (f"workload.{f.alias or k}", _arrow_type(f.annotation))
        for k, f in Workload.model_fields.items()
    ]
    cols += [("status", pa.string()), ("error", pa.string())]
    cols += [(f"schedule.{k}", _arrow_type(f.annotation)) for k, f in Schedule.model_fields.items()]
    cols += list(RESULT_COLUMNS.items())
    return pa.schema(cols)


def flatten(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` as ``{"a.b": 1}`` (one level per dot)."""
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out |= flatten(v, f"{prefix}{k}.")
        else:
            out[f"{prefix}{k}"] = v
    return out


def unflatten(row: dict[str, Any]) -> dict[str, Any]:
    """A table row as the point's JSON object (``params.x`` back under ``params``)."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        head, sep, rest = k.partition(".")
        if sep:
            out.setdefault(head, {})[rest] = v
        else:
            out[k] = v
    return out


def point_object(record: dict[str, Any]) -> dict[str, Any]:
    """A journal record as the point's JSON object (``gpusim explore --json``'s ``points``)."""
    point = record["point"]
    out = {
        "algorithm": point["algorithm"],
        "params": point["params"],
        # a forward's record leaves its pass out; the table names it
        "workload": {"pass": "fwd"} | point["workload"],
        "status": record["status"],
        "error": record.get("error"),
    }
    return out | (record.get("result") or {}) | {"sim_wall_s": record.get("wall_s")}


def _latest_lines(plan: Plan, journal: Path) -> np.ndarray:
    """For each point of the plan (by ordinal), its latest record's line in the journal
    (-1: none); 8 bytes per point, not a map of keys."""
    latest = np.full(plan.n_points, -1, dtype=np.int64)
    for i, rec in enumerate(iter_records(journal)):
        ordinal = plan.ordinal(rec.get("point") or {})
        if ordinal is not None:
            latest[ordinal] = i
    return latest


def read_table(plan: Plan, journal: Path) -> pa.Table:
    """The plan's points that have a record in ``journal``, in plan order, with the ordinal."""
    latest = _latest_lines(plan, journal)
    full = schema(plan)
    with_ordinal = full.append(pa.field(ORDINAL, pa.int64()))
    batches: list[pa.RecordBatch] = []
    rows: list[dict[str, Any]] = []
    for i, rec in enumerate(iter_records(journal)):
        ordinal = plan.ordinal(rec.get("point") or {})
        if ordinal is None or latest[ordinal] != i:
            continue  # an older record of a point run again (--retry-failed), or not planned
        row = flatten(point_object(rec))
        row[ORDINAL] = ordinal
        rows.append(row)
        if len(rows) == BATCH_ROWS:
            batches.append(pa.RecordBatch.from_pylist(rows, schema=with_ordinal))
            rows = []
    if rows:
        batches.append(pa.RecordBatch.from_pylist(rows, schema=with_ordinal))
    table = pa.Table.from_batches(batches, schema=with_ordinal)
    return table.sort_by(ORDINAL)


def write_table(table: pa.Table, out: Path) -> list[Path]:
    """``points.parquet`` and ``points.csv`` under ``out``, atomically (without the ordinal)."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    table = table.drop_columns([ORDINAL]) if ORDINAL in table.column_names else table
    parquet, csv = out / "points.parquet", out / "points.csv"
    with atomic_path(parquet) as tmp:
        pq.write_table(table, tmp)
    with atomic_path(csv) as tmp:
        pcsv.write_csv(table, tmp)
    return [parquet, csv]


def _row_object(row: dict[str, Any]) -> dict[str, Any]:
    row.pop(ORDINAL, None)
    obj = {"params": {}} | unflatten(row)  # a sweep that varies nothing has no params.* column
    if obj["status"] != OK:
        obj["schedule"] = None  # no schedule ran, rather than one of nulls
    return obj


def point_object_of_row(table: pa.Table, i: int) -> dict[str, Any]:
    """Row ``i`` of ``table`` as its point's JSON object."""
    return _row_object(table.slice(i, 1).to_pylist()[0])


def iter_point_json(table: pa.Table) -> Iterator[str]:
    """Each row as its point's JSON object text, in table order (a batch at a time)."""
    for batch in table.to_batches(max_chunksize=BATCH_ROWS):
        for row in batch.to_pylist():
            yield json.dumps(_row_object(row), allow_nan=False)
