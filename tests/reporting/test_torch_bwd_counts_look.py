"""The backward counts look: each instance's step (binary, formulas, compiled) and each seen
set's four models."""

from __future__ import annotations

from gpusim.reporting.torch_bwd_counts_look import MODELS, SETS, issue_table, table
from tests.validation.conftest import ROOT


def test_the_table_gives_each_set_every_model():
    rows = [
        {"set": "a", "id": "1", "measured": 1.0} | dict.fromkeys(MODELS, 0.8),
        {"set": "a", "id": "2", "measured": 2.0} | dict.fromkeys(MODELS, 2.2),
    ]
    lines = table(rows).splitlines()
    assert len(lines) == 2 + len(MODELS)
    assert lines[2] == "| a | 2 | formulas | 15.0 % | -5.0 % | -20.0 % |"


def test_the_seen_sets_are_committed():
    assert all((ROOT / path).is_file() for path, _profile in SETS.values())


def test_the_issue_table_reads_each_instance_against_both_formulas():
    lines = issue_table().splitlines()
    assert len(lines) == 2 + 12
    assert "| d64 128 x 128 w8 | False | True | 898 | 520 | 840 |" in lines
    assert "| d256 64 x 64 w8 | False | True | 540 | 334 | 526 |" in lines
