"""``gpusim tune``: rank the schedules of a workload by predicted runtime for an SRAM size."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated

import typer

from gpusim.cli.app import app
from gpusim.cli.options import (
    SEARCHED,
    FootprintsOption,
    JsonOption,
    Residency,
    SmCountOption,
    VerboseOption,
    WarpSplit,
    WorkloadOptions,
    build_inputs,
    searched,
    workload_options,
)
from gpusim.cli.output import debug, emit, log, progress_bar, set_verbose, shows_progress
from gpusim.errors import GpusimError
from gpusim.schedule import BWD_FIELDS

SramOption = Annotated[
    float | None,
    typer.Option(
        "--sram-kib",
        help="Shared memory one CTA may use, in KiB (default: the profile's); the SM gets "
        "just enough for one such CTA, so occupancy follows it too.",
    ),
]
PlotOption = Annotated[
    Path | None,
    typer.Option("--plot", help="Write a Br x Bc heatmap of predicted runtime (PNG, SVG, PDF)."),
]


TileSpaceOption = Annotated[
    str | None,
    typer.Option(
        "--tile-space",
        help="With --mma wgmma: your kernel's tile space to rank, e.g. "
        "'block_m=64,128;block_n=64,128;warps=4,8;stages=2,3' (each list left out: the "
        "default wgmma grid's).",
    ),
]

#: Schedule options that pin a dimension of the search instead of choosing a schedule (the
#: long-context ones too: a value the space does not have is refused, never ignored).
PINNABLE = ("block_m", "block_n", "warps", "stages", "kv_splits", "kv_order", "q_order", "pack_gqa")


#: Schedule options as tune takes them: each left out is searched, each given pins it.
SEARCHED_OPTIONS = {
    "block_m": searched("--block-m", "Br: query rows per tile."),
    "block_n": searched("--block-n", "Bc: key rows per tile."),
    "warps": searched("--warps", "Warps per CTA."),
    "stages": searched("--stages", "Shared-memory K/V buffers."),
    "warp_split": Annotated[
        WarpSplit | None,
        typer.Option(
            "--warp-split",
            help="Not searched: the space fixes it (split-q; split-k for flash1).",
            rich_help_panel=SEARCHED,
        ),
    ],
    "residency": Annotated[
        Residency | None,
        typer.Option(
            "--residency",
            help="Not searched: the space fixes it (registers).",
            rich_help_panel=SEARCHED,
        ),
    ],
}


@app.command()
@workload_options(overrides=SEARCHED_OPTIONS)
def tune(
    opts: WorkloadOptions,
    sram_kib: SramOption = None,
    plot: PlotOption = None,
    footprints: FootprintsOption = "compiled",
    sm_count: SmCountOption = None,
    verbose: VerboseOption = False,
    json_out: JsonOption = False,
    tile_space: TileSpaceOption = None,
) -> None:
    """Rank every schedule the kernel supports by predicted runtime; reject those that do not
    fit (with the reason); show what the paper's and seed 000's block-size rules pick.

    --block-m/--block-n/--warps/--stages, when given, pin that parameter and tune the rest.
    """
    from gpusim.api import tune as run_tune
    from gpusim.tuning.space import SINGLE_QUERY_ALGORITHMS

    if verbose:
        set_verbose(True)
    if any(getattr(opts, f) is not None for f in BWD_FIELDS):
        raise GpusimError(
            "tune --pass fwd+bwd searches every backward tile behind the forward's best; "
            "--bwd-block-m and the other --bwd-* options are simulate's and count's"
        )
    fixed = {k: getattr(opts, k) for k in PINNABLE if getattr(opts, k) is not None}
    # Validate workload, algorithm and profile with the shared rules; the schedule is a placeholder.
    placeholder = dict(
        block_m=1 if opts.algorithm in SINGLE_QUERY_ALGORITHMS else 64,
        block_n=64,
        warps=4,
        stages=1,
    )
    inputs = build_inputs(
        **(dataclasses.asdict(opts) | placeholder), check=False, sm_count=sm_count
    )
    if plot is not None:
        from gpusim.tuning.plot import check_plot_path

        check_plot_path(plot)
    space = None
    if tile_space is not None:
        from gpusim.tuning.wgmma_space import parse_tile_space

        space = parse_tile_space(tile_space)
    with progress_bar("tune", shows_progress(json_out)) as update:
        result = run_tune(
            inputs.workload,
            inputs.profile,
            algorithm=opts.algorithm,
            sram_kib=sram_kib,
            fixed=fixed,
            jobs=None,
            footprints=footprints,
            on_done=update,
            kernel_class={
                k: getattr(opts, k)
                for k in ("mma", "tile_copy", "producer_warps", "instruction_counts", "o_store")
            },
            tile_space=space,
        )
    stats = result.stats
    debug(
        f"tune: {stats.get('simulated', 0)} candidates simulated in "
        f"{stats.get('simulate_s', 0):.2f} s, checks {stats.get('check_s', 0):.2f} s"
    )
    out = result.to_dict()
    out["sm_count_overridden"] = sm_count is not None
    if plot is not None:
        out["plot"] = str(written := _plot(result, plot))
        log(f"wrote {written}")
    if json_out:
        emit(out, True)
    else:
        from gpusim.tuning.render import render_text

        sys.stdout.write(render_text(result) + "\n")


def _plot(result, path: Path) -> Path:
    from gpusim.tuning.plot import heatmap
    from gpusim.tuning.space import search_space

    w = result.workload
    title = (
        f"{result.algorithm} on {result.profile}, {result.sram_bytes // 1024} KiB SRAM per CTA: "
        f"B{w.batch} H{w.heads} N{w.seq_len_q}x{w.seq_len_k} d{w.head_dim} {w.dtype}"
        + (" causal" if w.causal else "")
        + (f" pass {w.pass_}" if w.backward else "")
    )
    return heatmap(
        [(c.schedule, c.runtime_s) for c in result.candidates],
        search_space(result.algorithm, w).schedules,
        path,
        title,
    )
