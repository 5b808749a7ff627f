"""``gpusim report``: rebuild the figures and tables under ``reports/`` with a progress bar."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption, VerboseOption
from gpusim.cli.output import debug, emit, log, set_verbose, shows_progress

OutOption = Annotated[
    Path, typer.Option("--out", help="Folder the figures, tables and README.md are written to.")
]
DataOption = Annotated[
    Path | None,
    typer.Option(
        "--data",
        help="Folder of the recorded measurements, searched at any depth "
        "(default: the repository's data/).",
    ),
]
OnlyOption = Annotated[
    list[str] | None,
    typer.Option(
        "--only",
        help="Rebuild only this figure (fig1 ... fig6b, or its full name; repeatable); "
        "README.md and summary.json are then left as they are.",
    ),
]
JobsOption = Annotated[
    int | None,
    typer.Option("--jobs", min=1, help="Processes for the simulations (default: up to 2)."),
]


class _Bar:
    """A rich progress bar on standard error (stdout stays for the JSON object)."""

    def __init__(self, enabled: bool) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bar = Progress(
            TextColumn("[bold]report[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
            disable=not enabled,
        )
        self.task = self.bar.add_task("", total=0)

    def add(self, steps: int) -> None:
        total = self.bar.tasks[0].total or 0
        self.bar.update(self.task, total=total + steps)

    def advance(self, label: str) -> None:
        self.bar.update(self.task, advance=1, description=label)


@app.command()
def report(
    out: OutOption = Path("reports"),
    data: DataOption = None,
    only: OnlyOption = None,
    jobs: JobsOption = None,
    verbose: VerboseOption = False,
    json_out: JsonOption = False,
) -> None:
    """Regenerate the report's figures (PNG), tables (Markdown, CSV) and README.md from fresh
    simulations and the recorded measurements; two runs give the same bytes."""
    from gpusim.reporting.report_runner import build_report

    if verbose:
        set_verbose(True)
    bar = _Bar(shows_progress(json_out))
    with bar.bar:
        result = build_report(out, data, only=only, jobs=jobs, progress=bar)
    for note in result.notes:
        log(f"note: {note}")
    log(f"wrote {len(result.files)} files under {out}")
    debug(f"report: {result.wall_s:.1f} s")
    emit(
        {
            "files": [str(p) for p in result.files],
            "notes": result.notes,
            "wall_s": result.wall_s,
        },
        json_out,
    )
