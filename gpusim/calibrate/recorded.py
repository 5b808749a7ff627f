"""The suite's benchmarks that keep a raw record: the profile values are derived from it.

The pipe and memory benchmarks of the suite give their profile values directly; these
eight (barrier cost, fp32 products from shared memory, step efficiency, tile-fill cost, CTA
scatter, DRAM bandwidth by bytes in flight, the L2's loss of a set and its padded-copy
fetch, the clock under an attention step's load) record what they measured (rows, launches,
ncu counts) and the profile's fields are derived from that record by the module that
measures it, each time a profile is written (so ``gpusim calibrate --from RESULTS``
re-derives them). Each also has a quick variant:
the benchmark module's ``ctx.quick`` path. :func:`entries` gives each field its value,
note and the low/high bracket of the repeats behind it (:mod:`gpusim.calibrate.spreads`).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from gpusim.calibrate import spreads
from gpusim.calibrate.context import BenchContext


@dataclass(frozen=True)
class RecordBenchmark:
    """One benchmark of the suite that keeps its raw record."""

    name: str
    module: str  # gpusim.calibrate.<module>: measures and derives
    fields: tuple[str, ...]  # the profile fields it gives
    what: str  # what it runs, for the plan
    quick: str  # what --quick changes
    note: str | None = None  # appended to every field's note (e.g. shared kernel code)


RECORD_BENCHMARKS = {
    b.name: b
    for b in (
        RecordBenchmark(
            "barrier", "barrier_cost", ("barrier_base_cycles", "barrier_cycles_per_warp"),
            "a dependent FFMA loop with and without __syncthreads(), 1-16 warps per CTA, one "
            "CTA per SM, best of 5 launches",
            "2000 iterations per launch instead of 20000",
        ),
        RecordBenchmark(
            "simt_mm", "simt_mm", ("simt_mma_flops_per_clk_per_sm",),
            "S = Q K^T and P V of one fp32 tile from shared memory, 7 tile shapes x 1-4 CTAs/SM",
            "3 launches of about 0.5 ms per configuration instead of 15 of 5 ms",
            note="shares code with an attention kernel: kernels/simt_mm.cu copies the product "
            "loop of gpusim/kernels/flash2_simt.cu (issue 17 asks that it include it)",
        ),
        RecordBenchmark(
            "smem_overlap", "smem_overlap",
            ("step_efficiency_1_warp_per_scheduler", "step_efficiency_2_warps_per_scheduler",
             "smem_sched_release_share"),
            "9 ldmatrix / mma.sync / softmax loops at 1, 2 and 4 warps per scheduler",
            "only the 2 load-product-softmax loops the step efficiencies use, and the 3 "
            "ldmatrix / softmax loops of the shared-memory release at 2 and 4 CTAs; 3 short "
            "launches each",
        ),
        RecordBenchmark(
            "smem_fill", "smem_fill", ("smem_fill_cost_per_byte",),
            "6 ldmatrix / cp.async loops at 1, 2 and 4 warps per scheduler",
            "3 short launches per configuration",
        ),
        RecordBenchmark(
            "cta_scatter", "cta_scatter", ("cta_duration_scatter",),
            "4 loops x 3 launches of 8 waves of identical CTAs, per-CTA SM and globaltimer stamps",
            "only the tile-load-and-product loop the profile uses",
        ),
        RecordBenchmark(
            "dram_mlp", "dram_mlp", ("dram_share_by_inflight",),
            "read and copy loops, 1-8 16-byte loads in flight per thread x 1-16 CTAs/SM",
            "3 launches per shape instead of 7",
        ),
        RecordBenchmark(
            "l2_cache", "l2_bytes",
            ("l2_loss_by_depth", "l2_fetch_bytes_per_byte_padded_row_copy"),
            "one Nsight Compute run (ncu on PATH): 6 padded and unpadded cp.async tile copies, "
            "a 2-MiB set re-read after 8-96 MiB written or 8-60 MiB read once (DRAM bytes)",
            "every fourth depth",
        ),
        RecordBenchmark(
            "load_clock", "load_clock", ("sm_clock_stream_load_hz",),
            "ldmatrix-fed mma.sync, a softmax and 32-KiB tiles streamed from the L2, 2 CTAs per "
            "SM: the clock of 2-ms and 60-ms launches, each after a 256 MB L2 flush",
            "the same (about 4 s)",
        ),
    )
}  # fmt: skip
#: seconds the ncu run may take (its launches take about half a second each)
NCU_TIMEOUT_S = 400


def measure(ctx: BenchContext, name: str) -> dict[str, Any]:
    """Run one record benchmark: its raw record."""
    if name == "barrier":
        from gpusim.calibrate.barrier_cost import measure as barrier

        return barrier(ctx.cp, ctx.quick)
    if name == "l2_cache":
        return _l2_under_ncu(ctx)
    module = importlib.import_module(f"gpusim.calibrate.{RECORD_BENCHMARKS[name].module}")
    return module.measure(ctx)


def _l2_under_ncu(ctx: BenchContext) -> dict[str, Any]:
    from gpusim.calibrate import l2_bytes
    from gpusim.ncu import find_ncu

    ncu = find_ncu()
    if ncu is None:
        raise RuntimeError("ncu (Nsight Compute) not found: l2_cache counts DRAM bytes with it")
    ctx.cp.get_default_memory_pool().free_all_blocks()  # the driver process needs the memory
    doc = l2_bytes.record(ncu, ["--suite"] + ["--quick"] * ctx.quick, timeout_s=NCU_TIMEOUT_S)
    doc["plan"] = l2_bytes.suite_plan(ctx.quick)
    if not doc["records"] or doc["profiled_kernels"] != doc["planned_launches"]:
        last = (doc["log_tail"].strip().splitlines() or ["(no log)"])[-1]
        raise RuntimeError(
            f"ncu profiled {doc['profiled_kernels']} of {doc['planned_launches']} launches "
            f"(exit {doc['exit_code']}): {last}"
        )
    return doc


def run(ctx: BenchContext, name: str) -> dict[str, Any]:
    """The suite's record of one record benchmark: derived values, the raw record, kernels."""
    record = measure(ctx, name)
    values = values_of(name, record)
    for field, val in values.items():
        ctx.log(f"{name} {field}: {_short(val['value'])}")
    return {"values": values, "record": record, "kernels": record.get("kernels", {})}


def values_of(name: str, record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The results' ``values`` of a record benchmark: each field's value, bracket and note
    (as ``method``)."""
    return {
        field: {k: v for k, v in entry.items() if k != "note"} | {"method": entry["note"]}
        for field, entry in entries(name, record).items()
    }


def _short(value: Any) -> str:
    if isinstance(value, list):
        return f"curve of {len(value)} points, last {value[-1]}"
    return f"{value:.4g}"


def entries(name: str, record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``field -> {value, note, low, high, spread}`` derived from one benchmark's record.

    ``low``/``high`` bracket the value by the repeats behind it (curves: per point);
    ``spread`` says how. A record that gives no value raises ``ValueError``/``KeyError``.
    """
    bench = RECORD_BENCHMARKS[name]
    derived = spreads.DERIVE[name](record)
    if bench.note:
        for entry in derived.values():
            entry["note"] = f"{entry['note']}; {bench.note}"
    return derived


def profile_entry(entry: dict[str, Any], source: str) -> dict[str, Any]:
    """The profile's ``{value, source, note}`` of one derived entry."""
    return {"value": entry["value"], "source": source, "note": entry["note"]}


def plan(quick: bool) -> dict[str, dict[str, Any]]:
    """What each record benchmark runs and gives, for ``gpusim calibrate --plan``."""
    from gpusim.calibrate import l2_bytes

    out = {}
    for b in RECORD_BENCHMARKS.values():
        out[b.name] = {"fields": list(b.fields), "runs": b.what}
        if quick:
            out[b.name]["quick"] = b.quick
        if b.note:
            out[b.name]["note"] = b.note
    out["l2_cache"]["launches"] = l2_bytes.suite_plan(quick)
    return out


def profile_fields(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every profile field the results' record benchmarks give, ``{value, source, note}``,
    derived afresh from their raw records; failed benchmarks give none. A record that gives
    no value is a one-line :class:`GpusimError`."""
    from gpusim.errors import GpusimError

    out: dict[str, dict[str, Any]] = {}
    for name, rec in results.get("benchmarks", {}).items():
        if name not in RECORD_BENCHMARKS or rec.get("status") != "ok":
            continue
        if "record" not in rec:
            raise GpusimError(f"the results' {name} benchmark kept no raw record")
        try:
            derived = entries(name, rec["record"])
        except (KeyError, ValueError, TypeError) as exc:
            raise GpusimError(f"the {name} record gives no profile value: {exc}") from exc
        for field, entry in derived.items():
            out[field] = profile_entry(entry, rec["source"])
    return out
