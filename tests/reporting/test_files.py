"""Atomic, reproducible writing: CSV order and number format, Markdown tables, PNG bytes."""

from __future__ import annotations

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from gpusim.reporting.files import (
    cell,
    csv_text,
    markdown_table,
    save_figure,
    write_csv,
    write_text,
)
from gpusim.reporting.plotting import pyplot


def test_write_is_atomic_and_leaves_no_temporary(tmp_path):
    p = write_text(tmp_path / "sub" / "a.txt", "one\n")
    write_text(p, "two\n")
    assert p.read_text() == "two\n"
    assert [q.name for q in p.parent.iterdir()] == ["a.txt"]
    assert p.stat().st_mode & 0o777 == 0o644


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_cells_round_trip(x):
    assert float(cell(x)) == x


def test_cells():
    assert cell(None) == ""
    assert cell(True) == "true"
    assert cell(3) == "3"
    assert cell(float("nan")) == "nan"


@given(
    st.lists(
        st.fixed_dictionaries(
            {"a": st.sampled_from(["x", "y", None]), "b": st.integers(-5, 5) | st.none()}
        ),
        max_size=12,
    )
)
def test_csv_is_sorted_and_independent_of_input_order(rows):
    text = csv_text(rows, ["a", "b"])
    assert text == csv_text(list(reversed(rows)), ["a", "b"])
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed[0] == ["a", "b"]
    assert len(parsed) == len(rows) + 1


def test_csv_sorts_numbers_numerically(tmp_path):
    p = write_csv(tmp_path / "t.csv", [{"n": 10}, {"n": 9}, {"n": 100}], ["n"])
    assert p.read_text().split() == ["n", "9", "10", "100"]


def test_markdown_table_aligns_numbers_right():
    md = markdown_table(["name", "n"], [["a", "1,024"], ["b", "-"]])
    assert md.splitlines()[1] == "|---|---:|"
    assert md.splitlines()[2] == "| a | 1,024 |"


def _figure():
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([1, 2, 3], [3, 1, 2], "o-")
    ax.set_title("µs and ↔")
    return fig


def test_png_bytes_are_reproducible_and_carry_no_version(tmp_path):
    a = save_figure(_figure(), tmp_path / "a.png").read_bytes()
    b = save_figure(_figure(), tmp_path / "b.png").read_bytes()
    assert a == b
    assert a.startswith(b"\x89PNG")
    assert b"matplotlib" not in a.lower()
