"""Output for every command: one JSON object on stdout with ``--json``, rich tables otherwise.

Logs and progress go to standard error (:func:`log`), so stdout stays parseable.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpusim.jsonable import jsonable

_stderr = Console(stderr=True, highlight=False)


def log(message: str) -> None:
    """Print a progress or log line to standard error."""
    _stderr.print(message, markup=False)


def emit(obj: Mapping[str, Any], as_json: bool, *, title: str | None = None) -> None:
    """Write a command's result: exactly one JSON object, or tables for a person."""
    data = jsonable(obj)
    if as_json:
        sys.stdout.write(json.dumps(data, allow_nan=False) + "\n")
        sys.stdout.flush()
        return
    console = Console(highlight=False)
    scalars: dict[str, Any] = {}
    records: dict[str, list[dict[str, Any]]] = {}
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            records[key] = value
        elif isinstance(value, dict):
            scalars.update(_flatten(value, f"{key}."))
        else:
            scalars[key] = value
    if scalars:
        console.print(_pairs_table(title, scalars))
    for key, rows in records.items():
        flat = [_flatten(r) for r in rows]
        if max(len(r) for r in flat) <= MAX_TABLE_COLUMNS:
            console.print(_records_table(key, flat))
            continue
        # Too wide for columns: one key/value table per record.
        for i, r in enumerate(flat):
            label = r.get("name", r.get("algorithm", i))
            console.print(_pairs_table(f"{key}[{i}]: {label}", r))


#: Lists of records wider than this print as one key/value table per record.
MAX_TABLE_COLUMNS = 9


def _pairs_table(title: str | None, pairs: Mapping[str, Any]) -> Table:
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key, value in pairs.items():
        table.add_row(Text(key), _cell(value))
    return table


def _flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _records_table(title: str, flat: list[dict[str, Any]]) -> Table:
    columns: list[str] = []
    for r in flat:
        columns += [k for k in r if k not in columns]
    table = Table(title=title, title_justify="left")
    for c in columns:
        table.add_column(c, overflow="fold")
    for r in flat:
        table.add_row(*(_cell(r.get(c, "")) for c in columns))
    return table


def _cell(value: Any) -> Text:
    # Text, not a markup string: values such as "[source]" must print as they are.
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    return Text(format_value(value), justify="right" if numeric else "left")


def format_value(value: Any) -> str:
    """A number or value as a person reads it: thousands separators, 4 significant digits."""
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e6:
            return f"{value:.4g}"
        return f"{value:.3e}"
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value)
    return str(value)
