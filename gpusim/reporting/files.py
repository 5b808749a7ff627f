"""Writing report files atomically and byte-for-byte reproducibly (PNG, CSV, Markdown, JSON).

Every file goes to a temporary name in the same folder and is renamed into place,
so a reader never sees half a file and an interrupted run leaves the old one.
PNGs carry no software version or date, CSV rows are sorted and numbers are
written with Python's shortest round-trip ``repr``, so two runs give the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gpusim import atomic

#: Resolution of every figure; fixed so that the PNG bytes do not depend on rcParams.
DPI = 110
#: PNG text chunks matplotlib would otherwise fill with its version (None removes a key).
PNG_METADATA: dict[str, Any] = {"Software": None}


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (``gpusim.atomic``), creating its folder."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    return atomic.write_bytes(out, data)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) atomically."""
    return write_bytes(path, text.encode("utf-8"))


def write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as indented JSON with sorted keys, atomically."""
    return write_text(path, json.dumps(obj, indent=1, sort_keys=True, allow_nan=False) + "\n")


def cell(value: Any) -> str:
    """One CSV cell: ints as they are, floats as their shortest round-trip form, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if value == value else "nan"
    return str(value)


def sort_key(row: Mapping[str, Any], columns: Sequence[str]) -> tuple:
    """Rows sort by their columns in order, numbers numerically and before strings."""
    key = []
    for c in columns:
        v = row.get(c)
        if v is None:
            key.append((2, 0, ""))
        elif isinstance(v, int | float) and not isinstance(v, bool):
            key.append((0, v, ""))
        else:
            key.append((1, 0, cell(v)))
    return tuple(key)


def csv_text(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """The rows as CSV text with a header, sorted (see :func:`sort_key`)."""
    ordered = sorted(rows, key=lambda r: sort_key(r, columns))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in ordered:
        w.writerow([cell(r.get(c)) for c in columns])
    return buf.getvalue()


def write_csv(path: str | Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> Path:
    """Write sorted rows as CSV atomically."""
    return write_text(path, csv_text(rows, columns))


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A GitHub Markdown table; numeric columns are right-aligned."""
    body = [[str(v) for v in r] for r in rows]

    def numeric(i: int) -> bool:
        vals = [r[i] for r in body if r[i] not in ("", "-")]
        return bool(vals) and all(_looks_numeric(v) for v in vals)

    align = ["---:" if numeric(i) else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n"


def _looks_numeric(text: str) -> bool:
    t = text.replace(",", "").replace("×", "").replace("%", "").strip()
    try:
        float(t)
    except ValueError:
        return False
    return True


def save_figure(fig: Any, path: str | Path) -> Path:
    """Save a matplotlib figure as a reproducible PNG (fixed dpi, no metadata) and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata=PNG_METADATA)
    plt.close(fig)
    return write_bytes(path, buf.getvalue())
