"""Output for every command: one JSON object on stdout with ``--json``, rich tables otherwise.

Logs and progress go to standard error (:func:`log`), so stdout stays parseable. Tables
show quantities in units (:mod:`gpusim.cli.units`) and fit the terminal: a list too wide
for columns prints one key/value table per record, and a number never wraps.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpusim.cli.units import fmt_quantity, label_of
from gpusim.jsonable import jsonable

_stderr = Console(stderr=True, highlight=False)
#: Whether ``--verbose`` was given: internal timing lines go to standard error only then.
_verbose = False


def log(message: str) -> None:
    """Print a progress or log line to standard error."""
    _stderr.print(message, markup=False, soft_wrap=True)


def set_verbose(on: bool) -> None:
    """Turn :func:`debug` lines on or off (the root ``--verbose`` option)."""
    global _verbose
    _verbose = on


def debug(message: str) -> None:
    """Print an internal line (timings, event counts) to standard error with ``--verbose``."""
    if _verbose:
        log(message)


def warn(message: str) -> None:
    """Print a ``gpusim: warning: ...`` line to standard error."""
    log(f"gpusim: warning: {message}")


def shows_progress(json_out: bool) -> bool:
    """Whether progress displays: standard error is a terminal and the output is not JSON."""
    return not json_out and sys.stderr.isatty()


@contextmanager
def status(text: str, enabled: bool) -> Iterator[Callable[[str], None]]:
    """A spinner with ``text`` on standard error while the block runs (nothing if not
    ``enabled``); yields a function that replaces the text."""
    if not enabled:
        yield lambda _text: None
        return
    with _stderr.status(text) as spinner:
        yield lambda new: spinner.update(new)


@contextmanager
def progress_bar(label: str, enabled: bool) -> Iterator[Callable[[int, int], None]]:
    """A bar on standard error while the block runs; yields ``update(done, total)``."""
    if not enabled:
        yield lambda _done, _total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    bar = Progress(
        f"[bold]{label}[/bold]",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_stderr,
        transient=True,
    )
    task = bar.add_task(label, total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)


def emit(
    obj: Mapping[str, Any],
    as_json: bool,
    *,
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Write a command's result: exactly one JSON object, or tables for a person.

    ``headers`` renames the columns of record lists (key -> header) for the tables.
    """
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
        table = _records_table(key, flat, headers or {})
        if max(len(r) for r in flat) <= MAX_TABLE_COLUMNS and fits(console, table):
            console.print(table)
            continue
        # Too wide for columns: one key/value table per record.
        for i, r in enumerate(flat):
            label = r.get("name", r.get("algorithm", i))
            console.print(_pairs_table(f"{key}[{i}]: {label}", r))


#: Lists of records wider than this print as one key/value table per record.
MAX_TABLE_COLUMNS = 9


def fits(console: Console, table: Table) -> bool:
    """Whether ``table`` prints within the console's width without wrapping a cell."""
    return console.measure(table).maximum <= console.width


def _pairs_table(title: str | None, pairs: Mapping[str, Any]) -> Table:
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column(overflow="fold")  # long paths in sources break, not vanish
    for key, value in pairs.items():
        table.add_row(Text(key), _cell(value, key))
    return table


def _flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _records_table(title: str, flat: list[dict[str, Any]], headers: Mapping[str, str]) -> Table:
    columns: list[str] = []
    for r in flat:
        columns += [k for k in r if k not in columns]
    table = Table(title=title, title_justify="left")
    for c in columns:
        table.add_column(headers.get(c) or label_of(c), overflow="fold")
    for r in flat:
        table.add_row(*(_cell(r.get(c, ""), c) for c in columns))
    return table


def _cell(value: Any, key: str = "") -> Text:
    # Text, not a markup string: values such as "[source]" must print as they are.
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    text = fmt_quantity(key, value) or format_value(value)
    # A number and its unit stay on one line: the table is laid out around them instead.
    return Text(text, justify="right" if numeric else "left", no_wrap=numeric)


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
