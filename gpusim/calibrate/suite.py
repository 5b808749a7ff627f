"""Runs the benchmarks in turn and gathers their results with provenance.

A benchmark that raises is recorded as failed, with its error, and the suite
goes on with the next one.
"""

from __future__ import annotations

import importlib
import time
import traceback
from typing import Any

from gpusim.calibrate import calibration_provenance as provenance
from gpusim.calibrate.clocks import SmiSampler, smi_static
from gpusim.calibrate.context import BenchContext
from gpusim.errors import GpusimError

RESULTS_FORMAT = "gpusim-calibration-results"
RESULTS_FORMAT_VERSION = 1
# Cheap, robust ones first; the long pipe-throughput runs last.
BENCHMARKS = ("device", "launch", "dram", "l2", "latency", "smem", "fp32", "sfu", "tensor")


def select(only: str | None) -> tuple[str, ...]:
    """The benchmarks named in a comma-separated list (all when ``None``), in suite order."""
    if not only:
        return BENCHMARKS
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in BENCHMARKS]
    if unknown:
        raise GpusimError(f"unknown benchmark {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    return tuple(b for b in BENCHMARKS if b in wanted)


def run_one(ctx: BenchContext, name: str, sampler: SmiSampler | None = None) -> dict[str, Any]:
    """One benchmark's record: status, values (each with its source), details, timing."""
    module = importlib.import_module(f"gpusim.calibrate.{name}")
    record: dict[str, Any] = {"source": ctx.source(name)}
    t0 = time.monotonic()
    try:
        out = module.run(ctx)
        ctx.cp.cuda.get_current_stream().synchronize()
        record.update(status="ok", **out)
        for value in record["values"].values():
            value["source"] = record["source"]
    except Exception as exc:  # any failure is data: record it and go on
        record.update(
            status="failed", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()
        )
        ctx.log(f"{name} FAILED: {record['error']}")
        try:
            ctx.cp.get_default_memory_pool().free_all_blocks()
        except Exception as cleanup_exc:  # a broken context shows up in the next benchmark too
            record["cleanup_error"] = f"{type(cleanup_exc).__name__}: {cleanup_exc}"
    t1 = time.monotonic()
    record["wall_s"] = t1 - t0
    if sampler is not None:
        record["nvidia_smi_during"] = sampler.window(t0, t1)
    return record


def run_suite(ctx: BenchContext, names: tuple[str, ...], argv: list[str]) -> dict[str, Any]:
    """Run ``names`` on the GPU of ``ctx``; the raw results document (JSON-ready)."""
    results: dict[str, Any] = {
        "format": RESULTS_FORMAT,
        "format_version": RESULTS_FORMAT_VERSION,
        "provenance": provenance.collect(ctx.cp, ctx.gpu_name, argv),
        "quick": ctx.quick,
        "benchmarks": {},
    }
    t0 = time.monotonic()
    with SmiSampler() as sampler:
        for name in names:
            ctx.log(f"running {name}")
            results["benchmarks"][name] = run_one(ctx, name, sampler)
    results["suite_wall_s"] = time.monotonic() - t0
    results["nvidia_smi_after"] = smi_static()
    results["nvidia_smi_sampler"] = {
        "period_ms": sampler.period_ms,
        "samples": len(sampler.samples),
        "fields": list(sampler.fields),
        "error": sampler.error,
        "whole_run": sampler.window(t0, time.monotonic()),
    }
    return results
