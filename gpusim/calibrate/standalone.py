"""The command line of a microbenchmark outside the calibration suite: ``--out FILE [--quick]``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from gpusim import atomic


def main(doc: str | None, run: Callable[[bool], dict[str, Any]], argv: list[str] | None) -> int:
    """Parse ``--out``/``--quick``, run the benchmark and write its JSON (in full or not at all)."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    res = run(a.quick)
    atomic.write_text(a.out, json.dumps(res, indent=1))
    print(f"wrote {a.out}", file=sys.stderr)
    return 0
