"""``gpusim simulate``: run the discrete-event model and print what it predicts.

Without ``--algorithm`` it simulates ``standard`` and ``flash2`` side by side.
Its ``--json`` object then has the keys of ``flash2`` at the top level (the
same object ``--algorithm flash2`` prints, so scripts that read the contract's
keys see the default algorithm) and both full results, in the table's order,
in ``results``. With ``--algorithm X`` the top level is X's result.

``--trace FILE`` writes the timeline in the Chrome trace format; with two
algorithms FILE holds both, a process (track group in Perfetto) each.
"""

from __future__ import annotations

import dataclasses
import tempfile
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from gpusim.cli.app import app
from gpusim.cli.binary_options import (
    BinaryTimingOption,
    CubinOption,
    KernelOption,
    ResUsageOption,
    SassOption,
    binary_loop_of,
)
from gpusim.cli.notes import notes
from gpusim.cli.options import (
    FootprintsOption,
    JsonOption,
    SmCountOption,
    VerboseOption,
    WorkloadOptions,
    algorithm_names,
    build_inputs,
    check_algorithm,
    workload_options,
)
from gpusim.cli.output import debug, emit, log, set_verbose, shows_progress, status, warn
from gpusim.cli.units import fmt_bytes, fmt_time
from gpusim.errors import GpusimError

#: What ``gpusim simulate`` compares when no algorithm is named, in table order.
DEFAULT_PAIR = ("standard", "flash2")
#: The pair's result whose keys go to the top level of the JSON object.
TOP_LEVEL = "flash2"

Detail = Enum("Detail", {d: d for d in ("auto", "aggregated", "full")}, type=str)  # type: ignore[misc]

TraceOption = Annotated[
    Path | None,
    typer.Option("--trace", help="Write the simulated timeline (Chrome trace JSON, Perfetto)."),
]
DetailOption = Annotated[
    Detail,
    typer.Option(
        "--detail",
        help="full: every CTA and tile step; aggregated: identical CTAs and steps lumped; "
        "auto: full when cheap.",
    ),
]


DramModel = Enum("DramModel", {d: d for d in ("tile-l2", "kv-trace")}, type=str)  # type: ignore[misc]
DramModelOption = Annotated[
    DramModel,
    typer.Option(
        "--dram-model",
        help="tile-l2: DRAM bytes from the engine's tile L2; kv-trace: from the K/V trace "
        "(flash2 forward, one split; judged on long-context held-out set 5).",
    ),
]


def _trace_path(base: Path | None, algorithm: str, scratch: Path | None) -> Path | None:
    """Where one algorithm's trace goes: ``base`` itself, or a part combined into it later."""
    if base is None or scratch is None:
        return base
    return scratch / f"{algorithm}.json"


#: ``--algorithm`` as simulate takes it: left out, it compares two algorithms.
SIMULATE_ALGORITHM = Annotated[
    str,
    typer.Option(
        "--algorithm",
        "-a",
        help=f"One of: {algorithm_names()}. Left out: standard and flash2 side by side "
        "(the JSON's top level is flash2's).",
        show_default=False,
        callback=check_algorithm,
    ),
]


@app.command()
@workload_options(overrides={"algorithm": SIMULATE_ALGORITHM})
def simulate(
    opts: WorkloadOptions,
    ctx: typer.Context,
    trace: TraceOption = None,
    detail: DetailOption = Detail.auto,  # type: ignore[assignment]
    sm_count: SmCountOption = None,
    cubin: CubinOption = None,
    sass: SassOption = None,
    res_usage: ResUsageOption = None,
    kernel: KernelOption = None,
    binary_timing: BinaryTimingOption = "replay",
    dram_model: DramModelOption = DramModel["tile-l2"],  # type: ignore[assignment]
    footprints: FootprintsOption = "compiled",
    verbose: VerboseOption = False,
    json_out: JsonOption = False,
) -> None:
    """Predict runtime, DRAM and SM-to-L2 traffic, L2 hit rate, occupancy and the bound.

    Without --algorithm, compares standard attention and FlashAttention-2.
    """

    if verbose:
        set_verbose(True)
    source = ctx.get_parameter_source("algorithm")
    named = source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")
    algorithms = (opts.algorithm,) if named else DEFAULT_PAIR
    several = len(algorithms) > 1
    binary = binary_loop_of(cubin, sass, res_usage, kernel, algorithms)
    if binary is None and binary_timing != "replay":
        raise GpusimError("--binary-timing goes with --cubin/--sass FILE --kernel NAME")
    dram = getattr(dram_model, "value", dram_model)
    if dram == "kv-trace" and algorithms != ("flash2",):
        raise GpusimError("--dram-model kv-trace models flash2 only: add --algorithm flash2")
    with tempfile.TemporaryDirectory(prefix="gpusim-trace-") as tmp:
        scratch = Path(tmp) if several and trace is not None else None
        try:
            results = _run_all(
                opts, algorithms, trace, scratch, detail, json_out, sm_count, binary, dram,
                footprints, binary_timing,
            )  # fmt: skip
        except GpusimError as e:
            if several and str(e).startswith(f"algorithm {algorithms[0]!r} does not support"):
                # The user asked for an option of one algorithm without naming it.
                raise GpusimError(
                    f"{e} (without --algorithm, simulate compares {' and '.join(algorithms)}: "
                    "name --algorithm flash2 for its options)"
                ) from None
            raise
        if scratch is not None and trace is not None:
            from gpusim.engine.trace_export import write_combined

            parts = [(d["algorithm"], scratch / f"{d['algorithm']}.json") for d in results]
            write_combined(trace, parts)
            for d in results:
                d["trace"] = str(trace)
    if trace is not None:
        log(f"wrote {trace}")
    if json_out:
        top = next((d for d in results if d["algorithm"] == TOP_LEVEL), results[0])
        out = dict(top)
        if several:
            out["results"] = results
        emit(out, True)
        return
    _print_table(results)


def _run_all(
    opts: WorkloadOptions,
    algorithms: tuple[str, ...],
    trace: Path | None,
    scratch: Path | None,
    detail: Any,
    json_out: bool,
    sm_count: int | None = None,
    binary=None,
    dram_model: str = "tile-l2",
    footprints: str = "compiled",
    binary_timing: str = "replay",
) -> list[dict[str, Any]]:
    """Each algorithm's JSON dict, simulated in turn (on ``sm_count`` SMs when given), its
    DRAM bytes from ``dram_model`` (:mod:`gpusim.api.dram_model`)."""
    from gpusim.api.dram_model import apply_kv_trace, check_kv_trace
    from gpusim.engine import simulate as run_simulate
    from gpusim.kernel_catalog.compiled_chips import record_registers, simulation_chips

    results: list[dict[str, Any]] = []
    # Warnings wait until every algorithm has run: a later one's error stays the only line
    # on standard error, and a line two algorithms share (a profile's gaps) shows once.
    pending: dict[str, None] = {}
    for name in algorithms:
        inputs = build_inputs(**(dataclasses.asdict(opts) | {"algorithm": name}), sm_count=sm_count)
        path = _trace_path(trace, name, scratch)
        # A causal grid is the slow case (CTAs of many programs): say what is running.
        if dram_model == "kv-trace":
            try:
                check_kv_trace(name, inputs.schedule, inputs.profile)
            except ValueError as e:
                raise GpusimError(f"--dram-model kv-trace: {e}") from None
        spin = shows_progress(json_out) and inputs.workload.causal
        chips, regs_from = simulation_chips(
            name, inputs.workload, inputs.schedule, inputs.profile, footprints, binary
        )
        with status(f"simulating {name} (causal)", spin):
            r = run_simulate(
                name,
                inputs.workload,
                inputs.schedule,
                inputs.profile,
                trace_path=path,
                detail=getattr(detail, "value", detail),
                binary=binary,
                binary_timing=binary_timing,
                on_chip=chips or None,
            )
            record_registers(r, chips, regs_from)
            if dram_model == "kv-trace":
                try:
                    apply_kv_trace(r, inputs.workload, inputs.profile)
                except ValueError as e:
                    raise GpusimError(f"--dram-model kv-trace: {e}") from None
        d = r.to_json_dict()
        if d.get("executed_mma_flops"):  # as count's: simulate's JSON has everything count's has
            from gpusim.kernel_catalog.description import describe

            # the schedule the engine ran: a binary's counts (--binary-timing counts) are in it
            d["kernel_description"] = describe(inputs.workload, r.schedule).as_dict()
        d["defaults_used"] = inputs.filled
        d["sm_count_overridden"] = sm_count is not None
        keys, warnings = notes(name, inputs.workload, inputs.schedule, inputs.profile)
        d.update(keys)
        # In place: ``keys["warnings"]``, now in ``d``, is this list.
        warnings += [k["timing_note"] for k in d["kernels"] if k.get("timing_note")]
        warnings += described_backward_note(name, d["kernels"])
        pending.update(dict.fromkeys(warnings))
        for k in d["kernels"]:
            if k.get("timing_source"):
                log(f"{k['name']}: sass-replay of {k['timing_source'][:200]}")
        debug(
            f"{d['algorithm']}: {d['detail']} simulation, {d['events']:,} events in "
            f"{d['sim_wall_s']:.3f} s ({d['events_per_s']:,.0f} events/s)"
        )
        results.append(d)
    for line in pending:
        warn(line)
    return results


#: flash2's backward main kernel, whose described step has a measured bias (docs/limits.md).
BWD_KERNEL = "flash2_bwd"


def described_backward_note(algorithm: str, kernels: list[dict[str, Any]]) -> list[str]:
    """One warning where flash2's backward step was described rather than replayed: its
    measured bias against PyTorch's FlashAttention-2 backward (held-out set 41, an H100)."""
    if algorithm != "flash2" or not any(
        k["name"] == BWD_KERNEL and k.get("timing_model") != "sass-replay" for k in kernels
    ):
        return []
    return [
        "flash2's described backward step ran fast against PyTorch's FlashAttention-2 "
        "backward by 4-6 % on average, up to 14 % on short causal grids (held-out sets 41 "
        "and 42, an H100); replaying a compiled backward (--sass/--cubin FILE --kernel "
        "NAME, a -core profile) had a MAPE of 6.9 % on set 17 "
        "(docs/limits.md#the-backward-pass)"
    ]


#: Summary rows that describe one kernel; an algorithm of several kernels shows them per kernel.
PER_KERNEL = "per kernel"


def _per_kernel(d: dict[str, Any], text: str) -> str:
    return PER_KERNEL if len(d["kernels"]) > 1 else text


def _summary_table(results: list[dict[str, Any]]) -> Table:
    """Algorithms side by side: one column each, one row per whole-algorithm quantity."""
    table = Table()
    table.add_column("")
    for d in results:
        table.add_column(d["algorithm"], justify="right", no_wrap=True)
    rows = (
        ("Br x Bc", _tiles),
        ("runtime", lambda d: fmt_time(d["runtime_s"])),
        ("TFLOP/s", lambda d: f"{d['tflops']:.1f}"),
        # Useful: the workload's model FLOPs; executed: the tensor cores' (padded rows too).
        ("FLOPs useful", lambda d: f"{d['flops']:.3g}"),
        (
            "FLOPs executed",
            lambda d: f"{d['executed_mma_flops']:.3g} ({d['executed_per_useful_flop']:.3g}x)",
        ),
        ("DRAM read", lambda d: fmt_bytes(d["dram_read_bytes"])),
        ("DRAM write", lambda d: fmt_bytes(d["dram_write_bytes"])),
        ("DRAM model", lambda d: d["dram_model"]),
        ("SM-to-L2 read", lambda d: fmt_bytes(d["global_read_bytes"])),
        ("SM-to-L2 write", lambda d: fmt_bytes(d["global_write_bytes"])),
        ("L2 hit rate", lambda d: f"{100 * d['l2_hit_rate']:.1f}%"),
        (
            "smem / CTA",
            lambda d: _per_kernel(d, fmt_bytes(d["smem_bytes_per_cta"], binary=True)),
        ),
        ("CTAs / SM", lambda d: _per_kernel(d, str(d["ctas_per_sm"]))),
        ("waves", lambda d: _per_kernel(d, f"{d['waves']:.2f}")),
        ("bound", lambda d: d["bound"]),
    )
    for label, cell in rows:
        table.add_row(label, *(cell(d) for d in results))
    if len(results) == 2 and results[1]["runtime_s"] > 0:
        speedup = results[0]["runtime_s"] / results[1]["runtime_s"]
        table.caption = f"{results[1]['algorithm']} is {speedup:.2f}x faster"
    return table


def _kernels_table(d: dict[str, Any]) -> Table:
    """One row per kernel of a multi-kernel algorithm: what the summary cannot show as one."""
    # No borders: nine columns of numbers fit 80 characters only with two spaces between them.
    kt = Table(
        title=f"{d['algorithm']}: per kernel",
        title_justify="left",
        box=None,
        pad_edge=False,
        header_style="bold underline",
    )
    for c in ("kernel", "CTAs", "CTA/SM", "smem", "waves", "time", "DRAM rd", "DRAM wr"):
        kt.add_column(c, justify="left" if c == "kernel" else "right", no_wrap=c != "kernel")
    kt.add_column("bound")
    for k in d["kernels"]:
        kt.add_row(
            k["name"],
            f"{k['ctas']:,}",
            str(k["ctas_per_sm"]),
            fmt_bytes(k["smem_bytes_per_cta"], binary=True),
            f"{k['waves']:.1f}",
            fmt_time(k["duration_s"], digits=3),
            fmt_bytes(k["dram_read_bytes"]),
            fmt_bytes(k["dram_write_bytes"]),
            k["bound"],
        )
    return kt


def _print_table(results: list[dict[str, Any]]) -> None:
    first = results[0]
    w = first["workload"]
    sms = f" on {first['sm_count']} SMs" if first.get("sm_count_overridden") else ""
    title = (
        f"{first['profile']}{sms}: B{w['batch']} H{w['heads']} Nq{w['seq_len_q']} "
        f"Nk{w['seq_len_k']} d{w['head_dim']} {w['dtype']}{' causal' if w['causal'] else ''}"
        + (f" pass {w['pass']}" if "pass" in w else "")
    )
    console = Console(highlight=False)
    console.print(title, markup=False)
    console.print(_summary_table(results))
    for d in results:
        if len(d["kernels"]) > 1:
            console.print(_kernels_table(d))


def _tiles(d: dict) -> str:
    """The tile, and the backward's where a training step runs its own; split-KV and packed
    GQA heads beside it, as a decode step's default may choose them."""
    s = d["schedule"]
    text = f"{s['block_m']} x {s['block_n']}"
    if "bwd_block_m" in s or "bwd_block_n" in s:
        bm, bn = s.get("bwd_block_m", s["block_m"]), s.get("bwd_block_n", s["block_n"])
        text += f" (bwd {bm} x {bn})"
    if s.get("kv_splits", 1) > 1:
        text += f", {s['kv_splits']} splits"
    if s.get("pack_gqa"):
        text += ", packed GQA"
    return text
