"""The README's Python section runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def python_block() -> str:
    """The first ``python`` code block under the README's "## Python" heading."""
    text = README.read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no python block in the README's Python section"
    return match.group(1)


@pytest.mark.slow
def test_the_readme_python_example_runs():
    scope: dict = {}
    exec(compile(python_block(), str(README), "exec"), scope)
    gpusim = scope["gpusim"]
    r = scope["r"]
    assert isinstance(r, gpusim.SimResult) and r.runtime_s > 0 and r.dram_read_bytes > 0
    assert r.schedule == gpusim.Schedule(block_m=128, block_n=64, warps=4, stages=2)
