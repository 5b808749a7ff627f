"""The counts look's table: each set's two models, MAPE, mean signed error and worst run."""

from __future__ import annotations

from gpusim.reporting.torch_counts_look import H100_SETS, issue_table, table
from tests.validation.conftest import ROOT


def test_the_table_gives_each_set_both_models():
    rows = [
        {"set": "a", "id": "1", "measured": 1.0, "fit": 0.9, "counts": 1.05},
        {"set": "a", "id": "2", "measured": 2.0, "fit": 1.6, "counts": 2.0},
    ]
    lines = table(rows).splitlines()
    assert lines[2] == "| a | 2 | fit | 15.0 % | -15.0 % | -20.0 % |"
    assert lines[3] == "| a | 2 | counts | 2.5 % | +2.5 % | +5.0 % |"


def test_the_seen_sets_are_committed():
    assert all((ROOT / path).is_file() for path in H100_SETS.values())


def test_the_issue_table_reads_each_instance_against_the_fit():
    lines = issue_table().splitlines()
    assert len(lines) == 2 + 8
    assert "| d64 128 x 128 w4 | False | True | 1308 | 891 |" in lines
