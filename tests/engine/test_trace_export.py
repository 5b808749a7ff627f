"""The Chrome trace: one track per SM and slot, kernel spans, bandwidth counters, atomic writes."""

from __future__ import annotations

import itertools
import json

import pytest

from gpusim.engine import simulate
from gpusim.engine.trace_export import write_atomic
from tests.engine.conftest import inputs


@pytest.fixture(scope="module")
def traced(small, tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "run.json"
    w, s = inputs("standard", batch=1, heads=3, seq_len=256)
    r = simulate("standard", w, s, small, trace_path=path)
    return r, path, json.loads(path.read_text())


def test_every_cta_is_a_span_on_its_sm_and_slot(traced, small):
    r, _path, doc = traced
    ctas = [e for e in doc["traceEvents"] if e.get("cat") == "cta"]
    assert len(ctas) == sum(k.ctas for k in r.kernels)
    sms = small.sm_count.value
    assert {e["pid"] for e in ctas} <= set(range(sms))
    assert max(e["tid"] for e in ctas) < max(k.ctas_per_sm for k in r.kernels)
    names = {e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "process_name"}
    assert {"GPU", "SM 0", f"SM {sms - 1}"} <= names
    # No two CTAs overlap on one slot.
    by_slot: dict[tuple, list] = {}
    for e in ctas:
        by_slot.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for spans in by_slot.values():
        spans.sort()
        for (_a0, a1), (b0, _b1) in itertools.pairwise(spans):
            assert b0 >= a1 - 1e-6


def test_kernels_and_bandwidth_counters_are_on_the_gpu_track(traced):
    r, _path, doc = traced
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    assert [k["name"] for k in kernels] == [k.name for k in r.kernels]
    counters = {e["name"] for e in doc["traceEvents"] if e["ph"] == "C"}
    assert counters == {"DRAM bandwidth", "L2 bandwidth"}
    peak = max(e["args"]["GB/s"] for e in doc["traceEvents"] if e["name"] == "DRAM bandwidth")
    assert 0 < peak <= 4.8e3 * 4 / 132 * 1.0001  # never above the (scaled) DRAM bandwidth
    assert doc["otherData"]["runtime_s"] == r.runtime_s


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path):
    target = tmp_path / "sub" / "t.json"
    write_atomic(target, "{}")
    write_atomic(target, '{"a": 1}')
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in target.parent.iterdir()] == ["t.json"]


def test_written_files_get_the_usual_permissions(tmp_path):
    import os

    target = tmp_path / "p.json"
    write_atomic(target, "{}")
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
