"""torch_profile: what a measurement keeps of the profiler's kernel events (no torch needed)."""

from __future__ import annotations

from gpusim.validation.torch_profile import kernel_events, kernel_record


def test_kernel_events_in_launch_order_and_their_record():
    events = [
        {"cat": "kernel", "ts": 20, "name": "b" * 50, "dur": 3.5, "args": {"grid": [4, 1, 1]}},
        {"cat": "cpu_op", "ts": 5, "name": "aten::mm"},
        {"cat": "kernel", "ts": 10, "name": "a", "dur": 1.0,
         "args": {"grid": [1, 2, 3], "block": [128, 1, 1], "registers per thread": 96,
                  "shared memory": 1024}},
    ]  # fmt: skip
    ks = kernel_events(events)
    assert [e["name"][:1] for e in ks] == ["a", "b"]
    rec = kernel_record(ks[0], 10)
    assert rec["name"] == "a" and rec["grid"] == [1, 2, 3] and rec["block"] == [128, 1, 1]
    assert (rec["registers_per_thread"], rec["shared_memory_bytes"]) == (96, 1024)
    assert rec["duration_us"] == 1.0
    assert kernel_record(ks[1], 10)["name"] == "b" * 10
