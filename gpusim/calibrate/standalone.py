"""The command line of a microbenchmark outside the calibration suite: ``--out FILE [--quick]``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError


def main(doc: str | None, run: Callable[[bool], dict[str, Any]], argv: list[str] | None) -> int:
    """Parse ``--out``/``--quick``, run the benchmark and write its JSON (in full or not at all;
    a :class:`~gpusim.errors.GpusimError` is one line on standard error and exit 2)."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    try:
        res = run(a.quick)
    except GpusimError as exc:  # no CuPy, no GPU, a kernel that does not build: one line
        print(f"gpusim: error: {exc}", file=sys.stderr)
        return 2
    atomic.write_text(a.out, json.dumps(res, indent=1))
    print(f"wrote {a.out}", file=sys.stderr)
    return 0


def table_rows(
    doc: str, name: str, table: Callable[[dict[str, Any], Any], list[dict[str, Any]]],
    argv: list[str],
) -> list[dict[str, Any]] | None:  # fmt: skip
    """``--table FILE [--profile NAME]``: ``table(record, profile)`` of a recorded run, or None
    after a one-line error (an unreadable record or an unknown profile)."""
    from pathlib import Path

    from gpusim.profiles.loader import load_profile

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--profile", default="h200-sxm")
    a = ap.parse_args(argv)
    try:
        return table(json.loads(Path(a.table).read_text()), load_profile(a.profile))
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"{name}: error: {a.table}: {exc}", file=sys.stderr)
        return None
