"""The SM-mates' priority look: its summary per group of runs (the runs themselves are
simulated by ``python -m gpusim.reporting.mate_priority_look``, minutes; not here)."""

from __future__ import annotations

from gpusim.reporting.mate_priority_look import summary


def test_summary_groups_runs_by_head_dim_and_mask():
    table = [
        ("s", "project_prefill_b1h8kv8_q131072k131072_c0_m128n64w4s2_sp1_fwd_lf",
         [("record", -0.2), ("0.9", -0.02)]),
        ("s", "project_prefill_b1h8kv8_q131072k131072_c1_m128n64w4s2_sp1_fwd_lf",
         [("record", 0.1), ("0.9", 0.0)]),
        ("s", "project_prefill_b1h16kv16_q65536k65536_c0_m128n64w4s2_sp1_fwd_lf_d64",
         [("record", 0.2), ("0.9", 0.2)]),
    ]  # fmt: skip
    lines = summary(table)
    assert lines[0] == "| runs | n | record | 0.9 |"
    by = {line.split(" | ")[0].lstrip("| "): line for line in lines[2:]}
    assert by["all"].startswith("| all | 3 | 16.7% / +3.3% | 7.3% / +6.0% |")
    assert by["d128 unmasked"] == "| d128 unmasked | 1 | 20.0% / -20.0% | 2.0% / -2.0% |"
    assert "| d64 | 1 |" in by["d64"]
