"""What a report figure is: the simulations it needs, its data, its picture and its words.

A figure is built in three steps so that tests can check the data without pixels:
:meth:`Figure.points` lists the simulations, :meth:`Figure.build` turns their rows
(and any recorded measurements) into :class:`FigureData`, and :meth:`Figure.write`
writes the CSV, the Markdown table and the PNG.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpusim.reporting.files import markdown_table, write_csv, write_text
from gpusim.reporting.points import Point

Results = Mapping[Point, dict[str, Any]]


@dataclass
class FigureData:
    """A figure's numbers: CSV rows, the key figures for the README, and missing-data notes."""

    rows: list[dict[str, Any]]
    columns: Sequence[str]
    summary: dict[str, Any] = field(default_factory=dict)
    table_header: Sequence[str] = ()
    table_rows: list[Sequence[Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what is missing, said plainly
    drawable: bool = True  # False: nothing to draw (no data recorded yet)
    extra: dict[str, Any] = field(default_factory=dict)  # what only the drawing needs


class Figure(ABC):
    """One figure of the report; subclasses hold their configuration (sizes, profiles)."""

    #: File stem under the output folder, e.g. ``fig1_standard_vs_flash``.
    name: str = ""
    #: Heading in reports/README.md.
    title: str = ""

    def points(self) -> list[Point]:
        """The simulations this figure needs (run once each, shared between figures)."""
        return []

    @abstractmethod
    def build(self, results: Results) -> FigureData:
        """The figure's data from the simulated rows (and recorded measurements)."""

    @abstractmethod
    def draw(self, data: FigureData, path: Path) -> None:
        """Draw the PNG into ``path``."""

    @abstractmethod
    def describe(self, data: FigureData) -> str:
        """Two sentences on what the figure says, with its key numbers."""

    def write(self, data: FigureData, out_dir: str | Path) -> list[Path]:
        """Write ``<name>.csv``, ``<name>.md`` and (when there is data) ``<name>.png``."""
        out = Path(out_dir)
        files = [write_csv(out / f"{self.name}.csv", data.rows, data.columns)]
        if data.table_header:
            md = markdown_table(data.table_header, data.table_rows)
            files.append(write_text(out / f"{self.name}.md", f"# {self.title}\n\n{md}"))
        png = out / f"{self.name}.png"
        if data.drawable:
            self.draw(data, png)
            files.append(png)
        else:
            png.unlink(missing_ok=True)  # a stale picture would contradict the README
        return files


def workload_dict(figure: object) -> dict[str, Any]:
    """The fixed workload of a figure that sweeps something else (its batch, heads, seq_len,
    head_dim and dtype attributes)."""
    keys = ("batch", "heads", "seq_len", "head_dim", "dtype")
    return {k: getattr(figure, k) for k in keys}


def workload_text(figure: object) -> str:
    """``batch 64, heads 16, N 1024, head dim 64, fp16`` for a figure's title."""
    w = workload_dict(figure)
    return (
        f"batch {w['batch']}, heads {w['heads']}, N {w['seq_len']}, head dim {w['head_dim']}, "
        f"{w['dtype']}"
    )
