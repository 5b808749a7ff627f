"""``--table FILE`` of the calibration modules: a recorded run's table, or one line why not;
and ``--out FILE``: measure, write the record, print its table."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic


def print_table(path: Path, table: Callable[[dict[str, Any]], str], what: str) -> int:
    """Print ``table`` of the JSON record at ``path``: 0, or a one-line error on standard
    error and 2 when it cannot be read or is not a ``what`` record."""
    try:
        print(table(json.loads(Path(path).read_text())))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{what}: error: {path} is not a recorded run: {exc}", file=sys.stderr)
        return 2
    return 0


def table_or_measure(
    table_path: Path | None,
    out: Path,
    measure: Callable[[], dict[str, Any]],
    table: Callable[[dict[str, Any]], str],
    what: str,
) -> int:
    """The end of a record command: with ``table_path`` print its table (:func:`print_table`),
    else measure on the GPU, write the record to ``out`` and print its table."""
    if table_path is not None:
        return print_table(table_path, table, what)
    doc = measure()
    atomic.write_text(out, json.dumps(doc))
    print(table(doc))
    return 0


def write_into_profile(
    record: Path, profile: Path, apply: Callable[[str, dict[str, Any], str], str], field: str
) -> int:
    """``--record R --profile P``: ``P`` rewritten by ``apply(P's text, R's record, R)``; 0, or
    a one-line error on standard error and 2 when either cannot be read or the record gives
    no value."""
    try:
        text = apply(profile.read_text(), json.loads(record.read_text()), str(record))
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    atomic.write_text(profile, text)
    print(f"wrote {field} into {profile}", file=sys.stderr)
    return 0


def record_main(
    argv: list[str] | None,
    description: str,
    measure: Callable[[], dict[str, Any]],
    table: Callable[[dict[str, Any]], str],
    what: str,
    apply: Callable[[str, dict[str, Any], str], str] | None = None,
    field: str = "",
) -> int:
    """A record command: ``--out FILE`` (measure) and ``--table FILE`` (print); with
    ``apply``, also ``--record R --profile P`` (:func:`write_into_profile` of ``field``)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    if apply is not None:
        ap.add_argument("--record", type=Path, help="a recorded run, to write into --profile")
        ap.add_argument("--profile", type=Path)
    a = ap.parse_args(argv)
    if apply is not None and (a.record is not None or a.profile is not None):
        if a.record is None or a.profile is None:
            ap.error("--record and --profile go together")
        return write_into_profile(a.record, a.profile, apply, field)
    if a.table is None and a.out is None:
        ap.error("--out or --table is required" + (" (or --record)" if apply else ""))
    return table_or_measure(a.table, a.out, measure, table, what)
