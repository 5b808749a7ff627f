"""``--table FILE`` of the calibration modules: a recorded run's table, or one line why not."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def print_table(path: Path, table: Callable[[dict[str, Any]], str], what: str) -> int:
    """Print ``table`` of the JSON record at ``path``: 0, or a one-line error on standard
    error and 2 when it cannot be read or is not a ``what`` record."""
    try:
        print(table(json.loads(Path(path).read_text())))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{what}: error: {path} is not a recorded run: {exc}", file=sys.stderr)
        return 2
    return 0
