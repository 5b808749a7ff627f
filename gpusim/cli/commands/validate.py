"""``gpusim validate``: predicted against measured on a real GPU, or from a recorded dataset.

All the work is in :mod:`gpusim.validation.validate_command`; this module only declares options.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption, VerboseOption, check_profile
from gpusim.cli.output import emit, log, set_verbose, shows_progress, status
from gpusim.validation.validate_command import DEFAULT_PROFILE
from gpusim.validation.validate_command import validate as run_validate


@app.command()
def validate(
    from_path: Annotated[
        list[Path] | None,
        typer.Option(
            "--from",
            help="Recorded dataset JSON: recompute the comparison, no GPU. Repeat to merge "
            "datasets (a later one's re-measurement of a config replaces the earlier).",
        ),
    ] = None,
    profile: Annotated[
        str,
        typer.Option(
            "--profile", "-p", help="Profile judged (name or file).", callback=check_profile
        ),
    ] = DEFAULT_PROFILE,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Report folder (default: a fresh temporary one with --from; else a new "
            "gpusim-validation-<date>). Never the dataset's own folder unless given.",
        ),
    ] = None,
    cubin_dir: Annotated[
        Path | None, typer.Option("--cubin-dir", help="Prebuilt kernel cubins (GPU path).")
    ] = None,
    no_ncu: Annotated[
        bool, typer.Option("--no-ncu", help="Timing only: skip Nsight Compute.")
    ] = False,
    only: Annotated[
        str | None, typer.Option("--only", help="Comma-separated parts of config ids to run.")
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", min=1, help="Timed launches.")] = 10,
    jobs: Annotated[
        int | None, typer.Option("--jobs", min=1, help="Processes simulating (default: cores).")
    ] = None,
    verbose: VerboseOption = False,
    json_out: JsonOption = False,
) -> None:
    """Run the CuPy kernels, measure, compare with simulate; or recompute from a dataset."""
    if verbose:
        set_verbose(True)
    what = "recomputing the comparison" if from_path else "measuring on the GPU"
    with status(f"validate: {what}", shows_progress(json_out)) as update:

        def log_line(message: str) -> None:
            update(f"validate: {message}")
            log(message)

        doc = run_validate(
            from_path,
            profile_name=profile,
            out_dir=out,
            cubin_dir=cubin_dir,
            use_ncu=not no_ncu,
            only=only,
            repeats=repeats,
            jobs=jobs,
            log=log_line,
        )
    if json_out:
        emit(doc, True)
        return
    brief = {k: v for k, v in doc.items() if k not in ("by_class", "targets", "worst")}
    emit(brief | {"worst": doc["worst"]}, False, title="gpusim validate")
