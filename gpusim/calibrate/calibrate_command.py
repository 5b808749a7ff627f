"""``gpusim calibrate``: run the microbenchmarks, write the raw results and a calibrated profile.

The CLI layers (``gpusim.cli.commands.calibrate`` and ``python -m gpusim.calibrate``)
only parse options and print; everything they do is here.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import yaml

from gpusim import atomic
from gpusim.calibrate import completeness, profile_writer, recorded, records_stage
from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.suite import plan, run_suite, select
from gpusim.errors import GpusimError


def default_paths(base_profile: str, out: Path | None, results: Path | None) -> tuple[Path, Path]:
    """Profile and results paths: ``<base>-calibrated.yaml`` and a ``.results.json`` beside it."""
    stem = Path(base_profile).stem
    out = out or Path(f"{stem}-calibrated.yaml")
    results = results or out.with_name(out.stem + ".results.json")
    return out, results


def calibrate(
    out: Path | None = None,
    base_profile: str = "h200-sxm-datasheet",
    results_path: Path | None = None,
    from_results: Path | None = None,
    only: str | None = None,
    quick: bool = False,
    write_profile: bool = True,
    name: str | None = None,
    argv: list[str] | None = None,
    simt_mm: Path | None = None,
    smem_overlap: Path | None = None,
    smem_fill: Path | None = None,
    l2_survive: list[Path] | None = None,
    cta_scatter: Path | None = None,
    dram_mlp: Path | None = None,
    sass_timing: Path | None = None,
    plan_only: bool = False,
    records: bool = True,
) -> dict[str, Any]:
    """Run (or, with ``from_results``, replay) a calibration; the command's JSON object.

    ``plan_only``: what would run and which fields each benchmark gives; no GPU needed.
    ``records``: after a run of every benchmark (no ``only``), also the stand-alone
    microbenchmarks a complete profile takes (:mod:`gpusim.calibrate.records_stage`), their
    records in a folder beside the results; a replay applies that folder where it exists.
    """
    if write_profile:
        # An unknown base fails before any GPU work, and a plan of a run that would fail so.
        profile_writer.base_profile_path(base_profile)
    if plan_only:
        doc = plan(select(only), quick)
        doc["records"] = records_stage.plan(quick) if records and only is None else {}
        return doc
    out, results_path = default_paths(base_profile, out, results_path)
    t0 = time.monotonic()
    wall: dict[str, Any] = {}
    if from_results is not None:
        results = profile_writer.load_results(from_results)
        results_path = from_results
        record_status: dict[str, str] = {}
    else:
        names = select(only)
        cp = import_cupy()
        ctx = make_context(cp, quick=quick)
        with_records = records and only is None
        folder = records_stage.records_folder(results_path)
        with records_stage.CubinBuild(folder) as build:
            results = run_suite(ctx, names, argv or [], _start_after_launch(build, with_records))
            results_path.parent.mkdir(parents=True, exist_ok=True)
            atomic.write_text(results_path, json.dumps(results, indent=1, default=_plain) + "\n")
            record_status = {}
            wall["suite"] = results.get("suite_wall_s")
            if with_records:
                wall["records"] = {}
                record_status = records_stage.run_records(
                    folder, quick, ctx.log, build, wall["records"]
                )
    summary = summarise(results)
    replaced: list[str] = []
    profile: str | None = None
    checks: dict[str, Any] = {}
    if write_profile:
        if not summary["measured"]:
            raise GpusimError(f"every benchmark failed ({results_path}); no profile written")
        replaced = profile_writer.write_profile(
            results,
            base_profile,
            out,
            str(results_path),
            name,
            simt_mm,
            smem_overlap,
            smem_fill,
            l2_survive,
            cta_scatter,
            dram_mlp,
            sass_timing,
        )
        profile = str(out)
        rec = _apply_records(out, results_path, record_status, base_profile)
        checks = _checks(results, base_profile, out, replaced)
        checks["warnings"] += rec.pop("warnings")
    else:
        rec = {"status": record_status}
    if from_results is None:  # what the command's time went to (a replay measures nothing)
        wall["total"] = time.monotonic() - t0
    return {
        "profile": profile,
        "results": str(results_path),
        "replaced": replaced,
        "records": rec,
        **checks,
        **summary,
        **({"wall_s": wall} if wall else {}),
    }


def _start_after_launch(build: records_stage.CubinBuild, wanted: bool):
    """The suite's ``after`` hook: once ``launch`` (host timings, best alone) is done, the
    wgmma records' cubin starts building beside the rest of the suite."""

    def after(name: str) -> None:
        if wanted and name == "launch":
            build.start()

    return after


def _apply_records(out: Path, results_path: Path, status: dict[str, str], base: str) -> dict:
    """Set the records' fields on the written profile; what was applied, and a warning for
    each record absent (its fields keep the base profile's values)."""
    folder = records_stage.records_folder(results_path)
    if not folder.is_dir():
        return {"folder": None, "status": status, "applied": [], "warnings": []}
    text, applied, absent = records_stage.apply_records(out.read_text(), folder, str)
    atomic.write_text(out, text)
    warnings = [
        f"{name}: {why} ({status.get(name, 'not run here')}); its fields keep {base}'s values"
        for name, why in absent.items()
    ]
    return {"folder": str(folder), "status": status, "applied": applied, "warnings": warnings}


def _checks(results: dict[str, Any], base_name: str, out: Path, replaced: list[str]) -> dict:
    """What the written profile lacks, what it kept of another measurement, and warnings."""
    written = yaml.safe_load(out.read_text())
    base = yaml.safe_load(profile_writer.base_profile_path(base_name).read_text())
    warning = completeness.architecture_warning(results, base)
    return {
        "missing": completeness.missing(written),
        "kept_measured_elsewhere": completeness.borrowed(written, replaced),
        "warnings": [warning] if warning else [],
    }


def _plain(obj: Any) -> Any:
    # NumPy scalars and arrays that slip into a record must not cost the whole run's results.
    if hasattr(obj, "tolist"):
        return obj.tolist()
    return str(obj)


def summarise(results: dict[str, Any]) -> dict[str, Any]:
    """GPU, measured values (``bench.key`` -> value and spread) and failures of a results doc."""
    measured: dict[str, Any] = {}
    failed: dict[str, str] = {}
    for bench, rec in results.get("benchmarks", {}).items():
        if rec.get("status") != "ok":
            failed[bench] = rec.get("error", "unknown error")
            continue
        values = rec.get("values", {})
        if bench in recorded.RECORD_BENCHMARKS and "record" in rec:
            try:  # as the profile writer derives them
                values = recorded.values_of(bench, rec["record"])
            except (KeyError, ValueError, TypeError) as exc:
                failed[bench] = f"its record gives no profile value: {exc}"
                continue
        for key, val in values.items():
            measured[f"{bench}.{key}"] = {
                k: val[k]
                for k in ("value", "unit", "min", "median", "max", "count", "low", "high")
                if k in val
            }
    prov = results.get("provenance", {})
    return {
        "gpu": prov.get("gpu_name"),
        "date_utc": prov.get("date_utc"),
        "measured": measured,
        "failed": failed,
    }


def format_table(doc: dict[str, Any]) -> str:
    """A plain-text table of the measured values, for people (``--json`` prints JSON)."""
    lines = [f"GPU: {doc.get('gpu')}  ({doc.get('date_utc')})"]
    for key, val in doc["measured"].items():
        if isinstance(val["value"], list):
            last = val["value"][-1]
            lines.append(f"  {key:<48} curve of {len(val['value'])} points, last {last}")
            continue
        spread = ""
        if "min" in val and val.get("count", 1) > 1:
            spread = f"  [min {val['min']:.4g}, max {val['max']:.4g}, n={val['count']}]"
        elif "low" in val:
            spread = f"  [repeats {val['low']:.4g} .. {val['high']:.4g}]"
        lines.append(f"  {key:<48} {val['value']:>14.6g} {val.get('unit', '')}{spread}")
    for bench, err in doc["failed"].items():
        lines.append(f"  {bench}: FAILED: {err}")
    for field in doc.get("missing", []):
        lines.append(f"  MISSING from the profile: {field}")
    for line in doc.get("kept_measured_elsewhere", []):
        lines.append(f"  kept from the base profile, measured elsewhere: {line}")
    for line in doc.get("warnings", []):
        lines.append(f"  warning: {line}")
    if wall := doc.get("wall_s"):
        lines.append(_wall_line(wall))
    lines.append(f"results: {doc['results']}")
    lines.append(f"profile: {doc['profile'] or '(not written)'}")
    return "\n".join(lines)


def _wall_line(wall: dict[str, Any]) -> str:
    """Where the command's time went: the suite, the records (and the cubin's wait), in all."""
    parts = [f"suite {wall['suite']:.0f} s"] if wall.get("suite") is not None else []
    if "records" in wall:
        rec = dict(wall["records"])
        wait = rec.pop("cubin_wait", None)
        waited = f" (the wgmma cubin waited for {wait:.0f} s)" if wait is not None else ""
        parts.append(f"records {sum(rec.values()):.0f} s{waited}")
    if "total" in wall:
        parts.append(f"in all {wall['total']:.0f} s")
    return "wall: " + ", ".join(parts)


def format_plan(doc: dict[str, Any]) -> str:
    """The plan as text: each benchmark, what it runs (quick: what changes), what it gives."""
    lines = [f"gpusim calibrate{' --quick' if doc['quick'] else ''} runs, in this order:"]
    for name, step in doc["benchmarks"].items():
        lines.append(f"  {name}: {step['runs']}")
        if "quick" in step:
            lines.append(f"      quick: {step['quick']}")
        lines.append(f"      gives: {', '.join(step['fields'])}")
        if "note" in step:
            lines.append(f"      note: {step['note']}")
    if doc.get("records"):
        lines.append("then, each in its own process, its record beside the results:")
        for name, step in doc["records"].items():
            only = " (Hopper only)" if step["hopper_only"] else ""
            lines.append(f"  {name}: {step['runs']} -> {step['record']}{only}")
    return "\n".join(lines)
