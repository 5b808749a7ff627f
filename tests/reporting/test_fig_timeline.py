"""Figure 5's data: occupancy read back from the Chrome trace, against the simulation."""

from __future__ import annotations

import json

from gpusim.reporting.fig_timeline import Timeline, occupancy_steps, read_trace


def test_occupancy_steps_count_resident_ctas_and_busy_sms():
    spans = [
        {"pid": 0, "tid": 0, "ts": 0.0, "dur": 10.0},
        {"pid": 0, "tid": 1, "ts": 0.0, "dur": 5.0},
        {"pid": 1, "tid": 0, "ts": 5.0, "dur": 10.0},
    ]
    steps = occupancy_steps(spans)
    assert [(s["t_us"], s["resident_ctas"], s["busy_sms"]) for s in steps] == [
        (0.0, 2, 1),
        (5.0, 2, 2),  # one ends and one starts at 5
        (10.0, 1, 1),
        (15.0, 0, 0),
    ]


def test_timeline_comes_from_the_trace_and_agrees_with_simulate(tmp_path):
    fig = Timeline(batch=2, heads=4, seq_len=1024, head_dim=64)
    data = fig.build({})
    s = data.summary
    files = fig.write(data, tmp_path)
    assert tmp_path / "fig5_timeline.trace.json" in files
    trace = read_trace(json.loads((tmp_path / "fig5_timeline.trace.json").read_text()))
    sim = fig.simulate(tmp_path / "again.json")  # the same run again: same numbers and trace
    assert (tmp_path / "again.json").read_bytes() == data.extra["trace_bytes"]
    assert s["runtime_s"] == sim["runtime_s"] == trace["other"]["runtime_s"]
    assert s["ctas"] == len(trace["spans"]) == trace["kernels"][0]["args"]["ctas"]
    assert s["ctas_per_sm"] == sim["ctas_per_sm"]
    assert s["waves"] == sim["waves"]
    slots = s["sm_count"] * s["ctas_per_sm"]
    assert max(r["resident_ctas"] for r in data.rows) <= slots
    assert data.rows[-1]["resident_ctas"] == 0
    assert 0 < s["mean_occupancy"] <= 1
    # Fewer CTAs than slots: never full, so the whole run is "tail".
    if s["ctas"] < slots:
        assert s["tail_fraction"] == 1.0


def test_waves_and_tail_on_a_grid_larger_than_the_gpu():
    fig = Timeline(batch=4, heads=8, seq_len=2048, head_dim=64)
    data = fig.build({})
    s = data.summary
    assert s["waves"] > 1
    slots = s["sm_count"] * s["ctas_per_sm"]
    assert max(r["resident_ctas"] for r in data.rows) == slots  # full while whole waves run
    assert 0 < s["tail_fraction"] < 1
    assert "waves" in fig.describe(data)
