"""``gpusim algorithms``: the algorithms the simulator knows, by command-line name."""

from __future__ import annotations

from gpusim.cli.app import app
from gpusim.cli.options import JsonOption
from gpusim.cli.output import emit


@app.command()
def algorithms(json_out: JsonOption = False) -> None:
    """List the algorithms (names for --algorithm)."""
    from algorithms import ALGORITHMS

    rows = [
        {
            "name": a.name,
            "description": a.description,
            "supports_causal": a.supports_causal,
            "default_residency": a.default_residency,
        }
        for a in ALGORITHMS.values()
    ]
    emit({"algorithms": rows}, json_out)
