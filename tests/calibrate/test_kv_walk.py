"""kv_walk's arithmetic on records (the GPU run itself needs CuPy, ncu and a GPU)."""

from __future__ import annotations

import json

import numpy as np

from gpusim.calibrate import kv_walk


def _record(cps: int = 2, generations: int = 4, jitter_ns: float = 1e4, passes: float = 4.0):
    rng = np.random.default_rng(0)
    sms = 132
    grid = sms * cps * generations
    start = [max(0.0, (i // (sms * cps)) * 1e6 + rng.normal(0, jitter_ns)) for i in range(grid)]
    return {
        "head_mib": 64, "heads": 2, "waves_per_head": generations // 2, "ctas_per_sm": cps,
        "work": 370, "grid": grid, "sm_count": sms, "smid": [i % sms for i in range(grid)],
        "start_ns": [int(s) for s in start], "end_ns": [int(s + 1e6) for s in start],
        "metrics": {"dram__bytes_read.sum": passes * (64 << 20), "gpu__time_duration.sum": 4e6},
    }  # fmt: skip


def test_each_occupancy_gets_its_own_shared_memory_size():
    per_sm = 233472  # the H200's shared memory per SM
    for cps in (1, 2, 3):
        dyn = kv_walk.dynamic_smem(per_sm, cps)
        assert dyn >= 2 * kv_walk.TILE_BYTES
        assert per_sm // (dyn + kv_walk.RESERVED_BYTES) == cps


def test_passes_per_wave():
    p = kv_walk.passes(_record(cps=2, generations=4, passes=6.0))
    assert p["waves"] == 4 and p["passes"] == 6.0 and p["per_wave"] == 1.5


def test_drift_sees_generations_that_start_apart():
    tight = kv_walk.drift(_record(jitter_ns=1e3))
    loose = kv_walk.drift(_record(jitter_ns=1e5))
    assert tight["spread"] < 0.01 < loose["spread"]
    assert 0.9 < tight["life_ms"] < 1.1


def test_table_refuses_what_is_not_a_record(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"kind": "something else"}))
    assert kv_walk.main(["--table", str(bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    good = tmp_path / "y.json"
    good.write_text(json.dumps({"kind": "gpusim.kv_walk", "records": [_record()]}))
    assert kv_walk.main(["--table", str(good)]) == 0
    assert "| 64 | 2 |" in capsys.readouterr().out
