"""``gpusim verify``: each algorithm's numeric interpreter against a float64 reference."""

from __future__ import annotations

from typing import Annotated

import typer

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption, check_algorithm
from gpusim.cli.output import emit, log
from gpusim.verify_tolerance import FP64_TOLERANCE as DEFAULT_TOLERANCE


@app.command()
def verify(
    algorithm: Annotated[
        list[str] | None,
        typer.Option("--algorithm", "-a", help="Verify only this one (repeatable); default all."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the random inputs.")] = 0,
    tolerance: Annotated[
        float,
        typer.Option("--tolerance", min=0.0, help="Largest fp64 relative error that passes."),
    ] = DEFAULT_TOLERANCE,
    json_out: JsonOption = False,
) -> None:
    """Run every algorithm (or --algorithm) on awkward shapes and compare with float64.

    Exits 1 when an algorithm's fp64 error exceeds --tolerance or its output has NaNs.
    """
    from algorithms import get_algorithm
    from gpusim.numeric_verify import verify as run_verify

    names = [get_algorithm(check_algorithm(a)).name for a in algorithm] if algorithm else None
    log(f"verifying {', '.join(names) if names else 'all algorithms'} (seed {seed})")
    results = run_verify(names, seed=seed)
    for r in results:
        err = r["max_rel_err"]
        r["passed"] = bool(r.get("nan_free", True)) and err == err and err <= tolerance
    passed = all(r["passed"] for r in results)
    emit({"results": results, "tolerance": tolerance, "passed": passed}, json_out)
    if not passed:
        raise typer.Exit(1)
