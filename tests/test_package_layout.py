"""The package's layout rules (issue 17): small modules, names that tell modules apart, no
``sys.path`` edits outside the tests."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "gpusim"
MAX_LINES = 400


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_scan_finds_the_package():
    assert len(_modules()) > 100


def test_no_module_is_over_400_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert not long, long


def test_no_two_modules_share_a_name():
    """Outside ``gpusim/cli/commands/``, whose modules are named after their commands."""
    commands = PACKAGE / "cli" / "commands"
    names = Counter(
        p.stem
        for p in _modules()
        if p.stem not in ("__init__", "__main__") and commands not in p.parents
    )
    assert not [n for n, c in names.items() if c > 1], names.most_common(5)


def test_no_sys_path_edits_in_the_package():
    edits = [str(p) for p in _modules() if re.search(r"sys\.path\.(insert|append)", p.read_text())]
    assert not edits, edits
