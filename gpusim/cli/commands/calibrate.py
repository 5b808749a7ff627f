"""``gpusim calibrate``: microbenchmarks on the GPU at hand, written as a profile and raw results.

All the work is in :mod:`gpusim.calibrate.calibrate_command`; this module only declares options.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from gpusim.calibrate.calibrate_command import calibrate as run_calibrate
from gpusim.calibrate.calibrate_command import format_plan, format_table
from gpusim.calibrate.suite import BENCHMARKS
from gpusim.cli.app import app
from gpusim.cli.options import JsonOption
from gpusim.cli.output import emit


@app.command()
def calibrate(
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Profile YAML to write (default: <base>-calibrated.yaml)."),
    ] = None,
    base_profile: Annotated[
        str,
        typer.Option("--base-profile", help="Profile whose unmeasured values are kept."),
    ] = "h200-sxm-datasheet",
    results: Annotated[
        Path | None,
        typer.Option("--results", help="Raw results JSON (default: beside --out)."),
    ] = None,
    from_results: Annotated[
        Path | None,
        typer.Option("--from", help="Rebuild the profile from recorded results; no GPU needed."),
    ] = None,
    only: Annotated[
        str | None,
        typer.Option("--only", help=f"Comma-separated benchmarks ({', '.join(BENCHMARKS)})."),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick",
            help="Every benchmark's quick variant (fewer, shorter launches): the whole "
            "profile in well under 2 minutes, noisier.",
        ),
    ] = False,
    plan: Annotated[
        bool,
        typer.Option("--plan", help="Say what would run and what each benchmark gives; no GPU."),
    ] = False,
    no_profile: Annotated[
        bool, typer.Option("--no-profile", help="Write only the raw results JSON.")
    ] = False,
    name: Annotated[str | None, typer.Option("--name", help="Name of the written profile.")] = None,
    simt_mm: Annotated[
        Path | None,
        typer.Option(
            "--simt-mm",
            help="Instead of the suite's own simt_mm: a recorded `python -m "
            "gpusim.calibrate.simt_mm` run: the fp32 product rate.",
        ),
    ] = None,
    smem_overlap: Annotated[
        Path | None,
        typer.Option(
            "--smem-overlap",
            help="Instead of the suite's own smem_overlap: a recorded `python -m "
            "gpusim.calibrate.smem_overlap` run: step efficiency "
            "with few warps.",
        ),
    ] = None,
    smem_fill: Annotated[
        Path | None,
        typer.Option(
            "--smem-fill",
            help="Instead of the suite's own smem_fill: a recorded `python -m "
            "gpusim.calibrate.smem_fill` run: what a tile fill "
            "costs shared-memory reads.",
        ),
    ] = None,
    l2_survive: Annotated[
        list[Path] | None,
        typer.Option(
            "--l2-survive",
            help="Instead of the suite's own l2_cache: recorded `python -m "
            "gpusim.calibrate.l2_bytes --fine` / `--writes` runs (repeat the option): the "
            "L2's loss of a shared set by depth.",
        ),
    ] = None,
    cta_scatter: Annotated[
        Path | None,
        typer.Option(
            "--cta-scatter",
            help="Instead of the suite's own cta_scatter: a recorded `python -m "
            "gpusim.calibrate.cta_scatter` run: how identical "
            "CTAs' durations scatter.",
        ),
    ] = None,
    dram_mlp: Annotated[
        Path | None,
        typer.Option(
            "--dram-mlp",
            help="Instead of the suite's own dram_mlp: a recorded `python -m "
            "gpusim.calibrate.dram_mlp` run: DRAM bandwidth by "
            "bytes in flight.",
        ),
    ] = None,
    sass_timing: Annotated[
        Path | None,
        typer.Option(
            "--sass-timing",
            help="A recorded `python -m gpusim.calibrate.sass_timing` run: the SM core's "
            "latencies and pipe cycles.",
        ),
    ] = None,
    records: Annotated[
        bool,
        typer.Option(
            "--records/--no-records",
            help="After a run of every benchmark, also the stand-alone microbenchmarks a "
            "complete profile takes (wgmma on Hopper, CTA stores, DRAM reads, L2 aging and "
            "SM-mates' drift under Nsight Compute), each in its own process.",
        ),
    ] = True,
    json_out: JsonOption = False,
) -> None:
    """Measure this GPU's bandwidths, latencies, pipe rates, launch and barrier cost, step
    efficiency, tile-fill cost, CTA scatter, L2 loss, DRAM bandwidth by bytes in flight and
    the clock under an attention step's load; write a complete profile (every field with its
    source) and the raw results beside it."""
    doc = run_calibrate(
        out=out,
        base_profile=base_profile,
        results_path=results,
        from_results=from_results,
        only=only,
        quick=quick,
        write_profile=not no_profile,
        name=name,
        argv=sys.argv[2:],
        simt_mm=simt_mm,
        smem_overlap=smem_overlap,
        smem_fill=smem_fill,
        l2_survive=l2_survive,
        cta_scatter=cta_scatter,
        dram_mlp=dram_mlp,
        sass_timing=sass_timing,
        plan_only=plan,
        records=records,
    )
    if json_out:
        emit(doc, True)
    else:
        typer.echo(format_plan(doc) if plan else format_table(doc))
