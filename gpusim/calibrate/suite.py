"""Runs the benchmarks in turn and gathers their results with provenance.

A benchmark that raises is recorded as failed, with its error, and the suite
goes on with the next one. The pipe and memory benchmarks give their values directly;
the record benchmarks (:mod:`gpusim.calibrate.recorded`) also keep their raw record, from
which the profile writer derives their fields.
"""

from __future__ import annotations

import importlib
import time
import traceback
from collections.abc import Callable
from typing import Any

from gpusim.calibrate import calibration_provenance as provenance
from gpusim.calibrate import recorded
from gpusim.calibrate.clocks import SmiSampler, smi_static
from gpusim.calibrate.context import BenchContext
from gpusim.errors import GpusimError

RESULTS_FORMAT = "gpusim-calibration-results"
RESULTS_FORMAT_VERSION = 1
# Cheap, robust ones first; the long pipe-throughput runs, then the record benchmarks, the
# one under Nsight Compute (a process of its own) last.
VALUE_BENCHMARKS = ("device", "launch", "dram", "l2", "latency", "smem", "fp32", "sfu", "tensor")
BENCHMARKS = (*VALUE_BENCHMARKS, *recorded.RECORD_BENCHMARKS)
#: what each value benchmark measures, for the plan
VALUE_WHAT = {
    "device": "the CUDA runtime's device attributes and nvidia-smi",
    "launch": "empty-kernel launches between CUDA events",
    "dram": "device-to-device copies, read and write kernels over 4 GiB",
    "l2": "reads of 8, 16 and 32 MiB buffers from every SM",
    "latency": "pointer chases through the L2 and the DRAM",
    "smem": "128-bit shared-memory loads",
    "fp32": "FFMA chains",
    "sfu": "ex2 and expf chains",
    "tensor": "mma.sync fp16, bf16 and tf32",
}
VALUE_QUICK = "fewer and shorter launches (DRAM buffers of 256 MiB instead of 1-2 GiB)"


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
    record: dict[str, Any] = {"source": ctx.source(name)}
    t0 = time.monotonic()
    try:
        if name in recorded.RECORD_BENCHMARKS:
            out = recorded.run(ctx, name)
        else:
            out = importlib.import_module(f"gpusim.calibrate.{name}").run(ctx)
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
    else:
        # The next benchmark (and ncu's driver process) get the memory back.
        ctx.cp.get_default_memory_pool().free_all_blocks()
    t1 = time.monotonic()
    record["wall_s"] = t1 - t0
    if sampler is not None:
        record["nvidia_smi_during"] = sampler.window(t0, t1)
    return record


def run_suite(
    ctx: BenchContext,
    names: tuple[str, ...],
    argv: list[str],
    after: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run ``names`` on the GPU of ``ctx``; the raw results document (JSON-ready).
    ``after(name)`` is called once each benchmark is done (the command starts its CPU-side
    work there, once the host-timing benchmarks are over)."""
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
            if after is not None:
                after(name)
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


def plan(names: tuple[str, ...], quick: bool) -> dict[str, Any]:
    """What a run of ``names`` would do and which profile fields each gives (no GPU)."""
    from gpusim.calibrate.profile_writer import CLOCK_SOURCES, FIELDS, TENSOR_CLOCK_SOURCES

    rec_plan = recorded.plan(quick)
    steps: dict[str, Any] = {}
    for name in names:
        if name in rec_plan:
            steps[name] = rec_plan[name]
            continue
        fields = [".".join(f.field) for f in FIELDS if f.bench == name]
        fields += [
            field
            for field, sources in (
                ("sm_clock_hz", CLOCK_SOURCES),
                ("sm_clock_tensor_load_hz", TENSOR_CLOCK_SOURCES),
            )
            if sources[0][0] == name
        ]
        steps[name] = {"fields": fields, "runs": VALUE_WHAT[name]}
        if quick:
            steps[name]["quick"] = VALUE_QUICK
    return {"quick": quick, "benchmarks": steps}
