"""Small sweeps for the explore tests: tiny flash2 workloads tune in a few hundredths of a
second each, so a real sweep of a few points costs about a second."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

#: Four points: two SM counts x two head counts of a tiny flash2 workload.
SMALL_SPEC = """
base_profile: h200-sxm
vary:
  sm_count: [66, 132]
workloads:
  - {batch: 1, heads: [1, 2], seq_len: 128, head_dim: 64}
algorithms: [flash2]
"""


def write_spec(folder: Path, text: str, name: str = "spec.yaml") -> Path:
    """``text`` (dedented) as a spec file in ``folder``."""
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.fixture
def small_spec(tmp_path) -> Path:
    """The four-point spec as a file."""
    return write_spec(tmp_path, SMALL_SPEC)
