"""Checks shared by the figure tests: a point's row against ``gpusim simulate --json``."""

from __future__ import annotations

import csv
import json
import math

from gpusim.cli.main import run
from gpusim.reporting.points import Point


def simulate_json(point: Point, capsys) -> dict:
    """What ``gpusim simulate --json`` prints for ``point`` (same engine path)."""
    capsys.readouterr()
    code = run(["simulate", "--json", "--detail", point.detail, *point.cli_args()])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def slope(xs: list[float], ys: list[float]) -> float:
    """Log-log slope between the last two points (2: quadratic, 1: linear)."""
    return math.log(ys[-1] / ys[-2]) / math.log(xs[-1] / xs[-2])


def read_csv(path) -> list[dict[str, str]]:
    """A written CSV as rows of strings."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
