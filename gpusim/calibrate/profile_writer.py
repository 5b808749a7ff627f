"""Turns recorded calibration results into a hardware profile.

Measured values replace the base profile's, each with its measured source; every
other value is kept from the base profile with its own source. The record benchmarks'
fields (:mod:`gpusim.calibrate.recorded`) are derived from the raw records the results
hold; a recorded stand-alone run passed as a file (``--simt-mm`` and the like) overrides
the suite's own. The result is
validated against :class:`gpusim.profiles.schema.HardwareProfile`. Needs no GPU.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpusim import atomic
from gpusim.calibrate import recorded
from gpusim.errors import GpusimError
from gpusim.profiles.loader import profile_path
from gpusim.profiles.schema import HardwareProfile


@dataclass(frozen=True)
class FieldSource:
    """Where one profile field comes from in the results: benchmark, value key, integer or not."""

    field: tuple[str, ...]
    bench: str
    key: str
    integer: bool = False


FIELDS = (
    FieldSource(("sm_count",), "device", "sm_count", integer=True),
    FieldSource(("smem_per_sm_bytes",), "device", "smem_per_sm_bytes", integer=True),
    FieldSource(("smem_per_block_bytes",), "device", "smem_per_block_bytes", integer=True),
    FieldSource(
        ("smem_reserved_per_block_bytes",), "device", "smem_reserved_per_block_bytes", True
    ),
    FieldSource(("registers_per_sm",), "device", "registers_per_sm", integer=True),
    FieldSource(("max_warps_per_sm",), "device", "max_warps_per_sm", integer=True),
    FieldSource(("max_threads_per_block",), "device", "max_threads_per_block", integer=True),
    FieldSource(("max_blocks_per_sm",), "device", "max_blocks_per_sm", integer=True),
    FieldSource(("l2_bytes",), "device", "l2_bytes", integer=True),
    FieldSource(("dram_bytes",), "device", "dram_bytes", integer=True),
    FieldSource(
        ("smem_bandwidth_bytes_per_clk_per_sm",), "smem", "lds128_bytes_per_clk_per_sm", True
    ),
    FieldSource(("l2_bandwidth_bytes_per_s",), "l2", "read_bandwidth_bytes_per_s"),
    FieldSource(("l2_latency_s",), "latency", "l2_latency_s"),
    FieldSource(("dram_bandwidth_bytes_per_s",), "dram", "copy_bandwidth_bytes_per_s"),
    FieldSource(("dram_latency_s",), "latency", "dram_latency_s"),
    FieldSource(
        ("mma_sync_flops_per_clk_per_sm", "fp16"), "tensor", "mma_sync_fp16_flops_per_clk_per_sm"
    ),
    FieldSource(
        ("mma_sync_flops_per_clk_per_sm", "bf16"), "tensor", "mma_sync_bf16_flops_per_clk_per_sm"
    ),
    FieldSource(
        ("mma_sync_flops_per_clk_per_sm", "tf32"), "tensor", "mma_sync_tf32_flops_per_clk_per_sm"
    ),
    FieldSource(("fp32_flops_per_clk_per_sm",), "fp32", "ffma_flops_per_clk_per_sm"),
    FieldSource(("sfu_exp_per_clk_per_sm",), "sfu", "ex2_per_clk_per_sm"),
    FieldSource(("kernel_launch_overhead_s",), "launch", "event_single_launch_s"),
    FieldSource(("kernel_queued_launch_s",), "launch", "queued_second_launch_s"),
)
# The SM clock depends on the load (data/h200/2026-11-30_calibration/README.md: 1.80-1.81 GHz
# under mma.sync, 1.98 GHz in every other benchmark): sm_clock_hz is the clock of the
# non-tensor pipe benchmarks (then what the device reports), sm_clock_tensor_load_hz the
# tensor-core run's.
TENSOR_CLOCK_SOURCES = (("tensor", "mma_fp16_sm_clock_hz"),)
CLOCK_SOURCES = (
    ("fp32", "fp32_sm_clock_hz"),
    ("sfu", "ex2_sm_clock_hz"),
    ("smem", "smem_sm_clock_hz"),
    ("device", "sm_clock_reported_hz"),
)


def load_results(path: Path) -> dict[str, Any]:
    """A results JSON written by ``gpusim calibrate``."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise GpusimError(f"cannot read calibration results {path}: {exc}") from exc
    if doc.get("format") != "gpusim-calibration-results":
        raise GpusimError(f"{path} is not a gpusim calibration results file (no 'format' key)")
    return doc


def load_record(path: Path, what: str = "simt_mm", key: str = "rows") -> dict[str, Any]:
    """A recorded run of a benchmark outside the suite (``python -m gpusim.calibrate.<what>``),
    which holds its measurements under ``key``."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise GpusimError(f"cannot read the {what} record {path}: {exc}") from exc
    if not isinstance(doc, dict) or not doc.get(key):
        raise GpusimError(f"{path} is not a {what} record (no '{key}')")
    return doc


def load_simt_mm(path: Path) -> dict[str, Any]:
    """A recorded ``python -m gpusim.calibrate.simt_mm`` run."""
    return load_record(path, "simt_mm")


def base_profile_path(name_or_path: str) -> Path:
    """The YAML file of a shipped profile name or a path (the profile loader's rules)."""
    return profile_path(name_or_path)


def _value(results: dict[str, Any], bench: str, key: str) -> dict[str, Any] | None:
    rec = results.get("benchmarks", {}).get(bench)
    if not rec or rec.get("status") != "ok":
        return None
    return rec.get("values", {}).get(key)


def _note(val: dict[str, Any]) -> str:
    parts = []
    if "median" in val and "count" in val and val.get("count", 1) > 1:
        parts.append(
            f"median of {val['count']}, min {val['min']:.6g}, max {val['max']:.6g} "
            f"{val.get('unit', '')}"
        )
    if "sm_clock_hz" in val:
        parts.append(f"per-clock at the measured SM clock {val['sm_clock_hz'] / 1e6:.0f} MHz")
    if val.get("method"):
        parts.append(str(val["method"]))
    return "; ".join(parts)


def _set(profile: dict[str, Any], path: tuple[str, ...], entry: dict[str, Any]) -> None:
    node = profile
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = entry


def _put(profile: dict[str, Any], replaced: list[str], entries: dict[str, Any]) -> None:
    """Set each top-level ``field: entry`` of a stand-alone benchmark; note it as replaced."""
    for field, entry in entries.items():
        _set(profile, (field,), entry)
        if field not in replaced:
            replaced.append(field)


def build_profile(
    results: dict[str, Any],
    base: dict[str, Any],
    name: str | None = None,
    simt_mm: dict[str, Any] | None = None,
    smem_overlap: dict[str, Any] | None = None,
    smem_fill: dict[str, Any] | None = None,
    l2_survive: list[tuple[str, dict[str, Any]]] | None = None,
    cta_scatter: dict[str, Any] | None = None,
    dram_mlp: dict[str, Any] | None = None,
    sass_timing: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """The calibrated profile (a validated plain dict) and the dotted names it replaced.

    ``simt_mm``: a recorded ``python -m gpusim.calibrate.simt_mm`` run, for the rate of
    fp32 products from shared memory; ``smem_overlap``: a recorded ``python -m
    gpusim.calibrate.smem_overlap`` run, for the step efficiency with few warps (both
    benchmarks outside the suite); ``smem_fill``: a recorded ``python -m
    gpusim.calibrate.smem_fill`` run, for what a tile fill costs shared-memory reads;
    ``l2_survive``: ``(path, record)`` of ``python -m gpusim.calibrate.l2_bytes --fine``
    and ``--writes`` runs, for the L2's loss curve; ``cta_scatter``: a ``python -m
    gpusim.calibrate.cta_scatter`` run, for how identical CTAs' durations scatter;
    ``dram_mlp``: a ``python -m gpusim.calibrate.dram_mlp`` run, for the DRAM bandwidth
    reached with few bytes in flight; ``sass_timing``: a ``python -m
    gpusim.calibrate.sass_timing`` run, for the SM core's cycles.
    """
    profile = json.loads(json.dumps(base))  # deep copy of plain data
    replaced: list[str] = []
    _put(profile, replaced, recorded.profile_fields(results))
    if simt_mm is not None:
        from gpusim.calibrate.simt_mm import profile_entry

        _put(profile, replaced, {"simt_mma_flops_per_clk_per_sm": profile_entry(simt_mm)})
    if smem_overlap is not None:
        from gpusim.calibrate.smem_overlap import profile_entries

        _put(profile, replaced, profile_entries(smem_overlap))
    if smem_fill is not None:
        from gpusim.calibrate.smem_fill import profile_entries as fill_entries

        try:
            entries = fill_entries(smem_fill)
        except (KeyError, ValueError) as exc:
            raise GpusimError(f"the smem_fill record gives no fill cost: {exc}") from exc
        _put(profile, replaced, entries)
    if l2_survive:
        from gpusim.calibrate.l2_loss import profile_entry as loss_entry

        docs, paths = [d for _p, d in l2_survive], [p for p, _d in l2_survive]
        entry = _entry("l2_survive", lambda: loss_entry(docs, paths))
        _put(profile, replaced, {"l2_loss_by_depth": entry})
    if cta_scatter is not None:
        from gpusim.calibrate.cta_scatter import profile_entry as scatter_entry

        entry = _entry("cta_scatter", lambda: scatter_entry(cta_scatter))
        _put(profile, replaced, {"cta_duration_scatter": entry})
    if dram_mlp is not None:
        from gpusim.calibrate.dram_mlp import profile_entry as mlp_entry

        entry = _entry("dram_mlp", lambda: mlp_entry(dram_mlp))
        _put(profile, replaced, {"dram_share_by_inflight": entry})
    if sass_timing is not None:
        from gpusim.calibrate.sass_timing import profile_entry as core_entry

        entry = _entry("sass_timing", lambda: core_entry(sass_timing))
        _put(profile, replaced, {"sass_core_cycles": entry})
    for fs in FIELDS:
        val = _value(results, fs.bench, fs.key)
        if val is None:
            continue
        number = round(val["value"]) if fs.integer else float(val["value"])
        if number <= 0:
            raise GpusimError(
                f"measured {fs.bench}.{fs.key} is {val['value']:.4g}, not a positive "
                f"{'integer' if fs.integer else 'number'}; the benchmark misbehaved"
            )
        _set(profile, fs.field, {"value": number, "source": val["source"], "note": _note(val)})
        replaced.append(".".join(fs.field))
    for field, sources in (
        ("sm_clock_hz", CLOCK_SOURCES),
        ("sm_clock_tensor_load_hz", TENSOR_CLOCK_SOURCES),
    ):
        for bench, key in sources:
            val = _value(results, bench, key)
            if val is not None:
                note = f"SM clock during the {bench} benchmark; " + _note(val)
                _set(
                    profile,
                    (field,),
                    {"value": float(val["value"]), "source": val["source"], "note": note},
                )
                replaced.append(field)
                break
    prov = results.get("provenance", {})
    gpu, date = prov.get("gpu_name", "GPU"), str(prov.get("date_utc", ""))[:10]
    profile["name"] = name or f"{base['name']}-calibrated"
    profile["display_name"] = f"{gpu} (calibrated {date})"
    profile["note"] = (
        f"Calibrated by gpusim calibrate on {gpu} on {date} "
        f"(commit {prov.get('git_commit', '?')}): "
        f"{len(replaced)} measured values replace those of the base profile {base['name']}; "
        "the others keep the base profile's values and sources (see each field's source)."
    )
    try:
        HardwareProfile.model_validate(profile)
    except ValueError as exc:
        first = str(exc).splitlines()
        raise GpusimError(f"calibrated profile is not valid: {' '.join(first[:3])}") from exc
    return profile, replaced


def _entry(what: str, make: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A stand-alone benchmark's profile entry; a record that gives none is a one-line error."""
    try:
        return make()
    except (KeyError, ValueError) as exc:
        raise GpusimError(f"the {what} record gives no profile value: {exc}") from exc


def profile_yaml(
    profile: dict[str, Any],
    results_path: str | None,
    results: dict[str, Any],
    simt_mm_path: str | None = None,
    smem_overlap_path: str | None = None,
    smem_fill_path: str | None = None,
    extra_headers: list[str] | None = None,
) -> str:
    """The profile as YAML text, with a header saying where it came from."""
    prov = results.get("provenance", {})
    header = [
        "# Written by `gpusim calibrate`; do not edit by hand: re-run calibration instead.",
        f"# Measured on {prov.get('gpu_name', '?')} at {prov.get('date_utc', '?')},"
        f" driver {prov.get('driver_version', '?')}, commit {prov.get('git_commit', '?')}.",
    ]
    if results_path:
        header.append(f"# Raw results: {results_path}")
    kept = [n for n, r in results.get("benchmarks", {}).items() if r.get("record") is not None]
    if kept:
        header.append(f"# Raw records in them (benchmarks.<name>.record): {', '.join(kept)}")
    if simt_mm_path:
        header.append(f"# fp32 products from shared memory: {simt_mm_path}")
    if smem_overlap_path:
        header.append(f"# step efficiency with few warps: {smem_overlap_path}")
    if smem_fill_path:
        header.append(f"# tile fills against shared-memory reads: {smem_fill_path}")
    header.extend(f"# {h}" for h in extra_headers or [])
    body = yaml.safe_dump(profile, sort_keys=False, width=100, allow_unicode=True)
    return "\n".join(header) + "\n" + body


def write_profile(
    results: dict[str, Any],
    base_name: str,
    out: Path,
    results_path: str | None,
    name: str | None = None,
    simt_mm_path: Path | None = None,
    smem_overlap_path: Path | None = None,
    smem_fill_path: Path | None = None,
    l2_survive_paths: list[Path] | None = None,
    cta_scatter_path: Path | None = None,
    dram_mlp_path: Path | None = None,
    sass_timing_path: Path | None = None,
) -> list[str]:
    """Build the calibrated profile from ``results`` over the base profile; write it to ``out``."""
    base_path = base_profile_path(base_name)
    base = yaml.safe_load(base_path.read_text())
    simt_mm = load_simt_mm(simt_mm_path) if simt_mm_path is not None else None
    overlap = load_record(smem_overlap_path, "smem_overlap") if smem_overlap_path else None
    fill = load_record(smem_fill_path, "smem_fill") if smem_fill_path else None
    l2 = [(str(p), load_record(p, "l2_bytes", "records")) for p in l2_survive_paths or []]
    scatter = load_record(cta_scatter_path, "cta_scatter", "launches") if cta_scatter_path else None
    mlp = load_record(dram_mlp_path, "dram_mlp") if dram_mlp_path else None
    core = load_record(sass_timing_path, "sass_timing", "rows") if sass_timing_path else None
    profile, replaced = build_profile(
        results, base, name, simt_mm, overlap, fill, l2 or None, scatter, mlp, core
    )
    extra = []
    if l2:
        extra.append("L2 loss by depth: " + ", ".join(p for p, _d in l2))
    if cta_scatter_path:
        extra.append(f"CTA time scatter: {cta_scatter_path}")
    if dram_mlp_path:
        extra.append(f"DRAM bandwidth by bytes in flight: {dram_mlp_path}")
    if sass_timing_path:
        extra.append(f"SM core cycles: {sass_timing_path}")
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(
        out,
        profile_yaml(
            profile,
            results_path,
            results,
            str(simt_mm_path) if simt_mm_path else None,
            str(smem_overlap_path) if smem_overlap_path else None,
            str(smem_fill_path) if smem_fill_path else None,
            extra,
        ),
    )
    return replaced
