"""Every table command at 80 columns: no line wider, no number (with its unit) split."""

from __future__ import annotations

import re

import pytest

#: Table commands, small enough to run quickly.
COMMANDS = [
    ("profiles",),
    ("profiles", "a100-sxm4-80gb"),
    ("algorithms",),
    ("count", "--batch", "1", "--heads", "2", "--seq-len", "256"),
    ("count", "-a", "standard", "--batch", "1", "--heads", "2", "--seq-len", "256"),
    ("simulate", "--batch", "1", "--heads", "2", "--seq-len", "256"),
    ("tune", "--batch", "1", "--heads", "2", "--seq-len", "256"),
    ("verify", "-a", "flash2"),
    ("explore", "--fields"),
]

#: A number and the unit after it, as a person reads it in a cell.
NUMBER = re.compile(r"\d[\d,.]*(?: ?(?:[KMGT]i?B(?:/s)?|B|GHz|MHz|ms|us|ns|s|%))?(?![\w])")
#: A bare number: prose (a profile's cited sources) may break a line before its unit.
BARE_NUMBER = re.compile(r"\d[\d,.]*")


def _render(gpusim, monkeypatch, columns: int, argv) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    result = gpusim(*argv)
    assert result.code == 0, result.err
    return result.out


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_fits_80_columns_and_keeps_numbers_whole(gpusim, monkeypatch, argv):
    narrow = _render(gpusim, monkeypatch, 80, argv)
    wide = _render(gpusim, monkeypatch, 250, argv)
    too_long = [line for line in narrow.splitlines() if len(line) > 80]
    assert not too_long, too_long
    # A number split over two lines shows up as different tokens than at full width.
    drop = {"tune": re.compile(r"searched in [\d.]+ s")}.get(argv[0])
    if drop:
        narrow, wide = drop.sub("", narrow), drop.sub("", wide)
    if argv[0] == "tune":  # narrow leaves out whole columns; compare the columns it kept
        rank = re.compile(r"^\s*\d+\s+\d+\s+\d+\s")
        wide_lines = [line for line in wide.splitlines() if rank.match(line)]
        narrow_lines = [line for line in narrow.splitlines() if rank.match(line)]
        assert len(wide_lines) == len(narrow_lines)
        return
    pattern = BARE_NUMBER if len(argv) > 1 and argv[0] == "profiles" else NUMBER
    assert sorted(pattern.findall(narrow)) == sorted(pattern.findall(wide))


def test_profiles_in_units(gpusim, monkeypatch):
    out = _render(gpusim, monkeypatch, 80, ("profiles",))
    row = next(line for line in out.splitlines() if "a100-sxm4-80gb" in line)
    assert "40 MiB" in row and "1.8 TB/s" in row and "1.41 GHz" in row and "163 KiB" in row


def test_simulate_summary_has_no_per_kernel_figures_for_standard(gpusim, monkeypatch):
    out = _render(gpusim, monkeypatch, 80, ("simulate", "--batch", "1", "--seq-len", "512"))
    ctas = next(line for line in out.splitlines() if "CTAs / SM" in line)
    assert "per kernel" in ctas  # standard's CTAs/SM differ by kernel: not one number
    kernels = out[out.index("standard: per kernel") :]
    for name in ("scores", "softmax_row", "pv"):
        assert name in kernels
    assert "KiB" in kernels  # each kernel's shared memory in its own row


def test_count_summary_of_several_kernels_leaves_per_cta_facts_to_the_kernels(gpusim, monkeypatch):
    out = _render(gpusim, monkeypatch, 80, ("count", "-a", "standard", "--seq-len", "256"))
    summary, _, kernels = out.partition("kernels[0]")
    assert "smem_bytes_per_cta " not in summary and "ctas_per_sm " not in summary
    assert kernels.count("│ smem_bytes_per_cta ") == 3  # one per kernel of standard
