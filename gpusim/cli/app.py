"""The Typer application that every command module registers on with ``@app.command()``."""

from __future__ import annotations

from typing import Annotated

import typer

import gpusim

app = typer.Typer(
    name="gpusim",
    help=(
        "Predict how attention algorithms behave on a GPU: counts, a discrete-event "
        "simulation, block-size tuning, and validation on a real GPU. Every command "
        "takes --json and then prints exactly one JSON object on standard output."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,  # main() turns errors into one line; no tracebacks
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpusim {gpusim.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Internal lines (timings, event counts) on standard error."
        ),
    ] = False,
) -> None:
    """Predict how attention algorithms behave on a GPU."""
    from gpusim.cli.output import set_verbose

    set_verbose(verbose)
