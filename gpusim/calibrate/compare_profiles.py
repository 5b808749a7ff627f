"""Two calibrated profiles field by field: the ratio, and whether it exceeds the repeats' spread.

    python -m gpusim.calibrate.compare_profiles NEW.yaml OLD.yaml --results NEW.results.json \
        --out DIR

``NEW`` is a profile ``gpusim calibrate`` wrote, ``--results`` the raw results it was written
from (their repeats give each value's low..high bracket), ``OLD`` the profile to check it
against. A field *differs* when the old value lies outside the new run's bracket (a curve:
at any of the old curve's points, the new curve and its bracket read there). The bracket is
the scatter of the repeats within one run, which understates the scatter between runs; a
field that differs is a question for the README, not a verdict. Writes ``comparison.json``
and ``comparison.md`` into ``DIR`` (never into a data folder's files: give a fresh one).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml

from gpusim import atomic
from gpusim.calibrate import completeness, profile_writer, recorded
from gpusim.curves import share_at
from gpusim.errors import GpusimError

#: The profile's curves: compared at the old curve's points.
CURVES = ("l2_loss_by_depth", "dram_share_by_inflight")


def brackets(results: dict[str, Any]) -> dict[str, tuple[float, float, str]]:
    """``dotted field -> (low, high, how)`` of every value the results bracket."""
    out: dict[str, tuple[float, float, str]] = {}
    benches = results.get("benchmarks", {})

    def value(bench: str, key: str) -> dict[str, Any] | None:
        rec = benches.get(bench, {})
        return rec.get("values", {}).get(key) if rec.get("status") == "ok" else None

    for fs in profile_writer.FIELDS:
        v = value(fs.bench, fs.key)
        if v and "min" in v and v.get("count", 1) > 1:
            out[".".join(fs.field)] = (v["min"], v["max"], f"min..max of {v['count']} repeats")
    for field, sources in (
        ("sm_clock_hz", profile_writer.CLOCK_SOURCES),
        ("sm_clock_tensor_load_hz", profile_writer.TENSOR_CLOCK_SOURCES),
    ):
        for bench, key in sources:
            v = value(bench, key)
            if v and "min" in v:
                out[field] = (v["min"], v["max"], f"min..max over the {bench} run's SMs")
                break
    for name, rec in benches.items():
        if rec.get("status") != "ok" or name not in recorded.RECORD_BENCHMARKS:
            continue
        # Derived afresh from the raw record, as the profile writer derives the values.
        for field, v in recorded.entries(name, rec["record"]).items():
            out[field] = (v["low"], v["high"], v["spread"])
    return out


def _scalar_row(field: str, new: Any, old: Any, bracket: tuple | None) -> dict[str, Any]:
    row: dict[str, Any] = {"field": field, "new": new, "old": old}
    if new is None or old is None:
        row["status"] = "only in new" if old is None else "only in old"
        return row
    row["ratio"] = new / old if old else None
    if bracket is None:
        row["status"] = "same" if new == old else "differs (no repeats)"
        return row
    lo, hi, how = bracket
    row.update(low=lo, high=hi, spread=how)
    row["status"] = "same" if new == old else ("within" if lo <= old <= hi else "differs")
    return row


def _interp(xs: list[float], ys: list[float], x: float) -> float:
    return share_at(list(zip(xs, ys, strict=True)), x)


def _curve_row(field: str, new: dict, old: dict, bracket: tuple | None) -> dict[str, Any]:
    new_pts, old_pts = new["value"], old["value"]
    xs = [float(x) for x, _v in new_pts]
    rows = []
    for x, v_old in old_pts:
        v_new = share_at([(float(a), b) for a, b in new_pts], float(x))
        point = {"x": x, "old": v_old, "new": round(v_new, 4)}
        if bracket is not None:
            point["low"] = round(_interp(xs, list(bracket[0]), float(x)), 4)
            point["high"] = round(_interp(xs, list(bracket[1]), float(x)), 4)
            point["outside"] = not point["low"] - 1e-9 <= v_old <= point["high"] + 1e-9
        rows.append(point)
    worst = max(rows, key=lambda p: abs(p["new"] - p["old"]))
    outside = [p for p in rows if p.get("outside")]
    return {
        "field": field,
        "curve": True,
        "points": rows,
        "max_abs_diff": round(abs(worst["new"] - worst["old"]), 4),
        "at_x": worst["x"],
        "points_outside": len(outside),
        "spread": bracket[2] if bracket else "no repeats",
        "status": "differs" if outside else ("within" if bracket else "no repeats"),
    }


def compare(new: dict, old: dict, results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per field (per dtype for the tensor rates) of the two profiles."""
    br = brackets(results)
    fields = [f for f in (*completeness.EXPECTED, *completeness.NOT_CALIBRATED)
              if f in new or f in old]  # fmt: skip
    rows = []
    for field in fields:
        a, b = new.get(field), old.get(field)
        if (isinstance(a, dict) and "value" not in a) or (isinstance(b, dict) and "value" not in b):
            for sub in sorted(set(a or {}) | set(b or {})):
                va = (a or {}).get(sub, {}).get("value")
                vb = (b or {}).get(sub, {}).get("value")
                rows.append(_scalar_row(f"{field}.{sub}", va, vb, br.get(f"{field}.{sub}")))
        elif field in CURVES and a and b:
            rows.append(_curve_row(field, a, b, br.get(field)))
        elif isinstance((a or b)["value"], (list, dict)):  # a table (wgmma rates by N)
            va, vb = (a or {}).get("value"), (b or {}).get("value")
            rows.append({"field": field, "new": va, "old": vb,
                         "status": "same" if va == vb else "differs (no repeats)"})  # fmt: skip
        else:
            rows.append(_scalar_row(field, (a or {}).get("value"), (b or {}).get("value"),
                                    br.get(field)))  # fmt: skip
    return rows


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, list):
        return f"{len(x)} entries"
    if isinstance(x, dict):
        return f"{len(x)} tables"
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def _bytes(x: float) -> str:
    return f"{x / 2**20:.1f} MiB" if x >= 2**20 else f"{x / 1024:.0f} KiB"


def markdown(rows: list[dict[str, Any]], new_name: str, old_name: str) -> str:
    """The comparison as a Markdown table, curves summarised by their worst point."""
    lines = [
        f"New: `{new_name}`; old: `{old_name}`. Ratio = new / old. *differs*: the old value "
        "lies outside the new run's bracket of repeats (curves: at any old point).",
        "",
        "| field | new | old | ratio | new run's bracket | status |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.get("curve"):
            lines.append(
                f"| {r['field']} | curve | curve | max abs diff {r['max_abs_diff']:.3f} at "
                f"{_bytes(r['at_x'])} | {r['spread']} | {r['status']} "
                f"({r['points_outside']} of {len(r['points'])} points outside) |"
            )
            continue
        bracket = f"{_num(r['low'])} .. {_num(r['high'])}" if "low" in r else "-"
        ratio = f"{r['ratio']:.4f}" if r.get("ratio") is not None else "-"
        lines.append(
            f"| {r['field']} | {_num(r['new'])} | {_num(r['old'])} | {ratio} | {bracket} | "
            f"{r['status']} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("new", type=Path)
    ap.add_argument("old", type=Path)
    ap.add_argument("--results", type=Path, required=True, help="the new profile's raw results")
    ap.add_argument("--out", type=Path, required=True, help="folder for comparison.{json,md}")
    a = ap.parse_args(argv)
    try:
        new, old = (yaml.safe_load(p.read_text()) for p in (a.new, a.old))
        results = profile_writer.load_results(a.results)
    except (OSError, yaml.YAMLError, GpusimError) as exc:
        print(f"gpusim: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    rows = compare(new, old, results)
    a.out.mkdir(parents=True, exist_ok=True)
    doc = {"new": str(a.new), "old": str(a.old), "results": str(a.results), "rows": rows}
    atomic.write_text(a.out / "comparison.json", json.dumps(doc, indent=1) + "\n")
    atomic.write_text(a.out / "comparison.md", markdown(rows, str(a.new), str(a.old)))
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    print(f"wrote {a.out}/comparison.md: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
