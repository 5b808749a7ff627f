"""Figure 2's data: HBM accesses fall with the block size, the knee, tiles that do not fit."""

from __future__ import annotations

from gpusim.reporting.fig_block_size import BlockSize, knee_of, short_reason

from .helpers import simulate_json


def test_hbm_accesses_fall_as_blocks_grow(small):
    fig, results = small["BlockSize"]
    data = fig.build(results)
    for alg in fig.algorithms:
        rows = [r for r in data.rows if r["algorithm"] == alg and r["fits"]]
        assert len(rows) >= 2
        glob = [r["global_bytes"] for r in rows]
        assert glob == sorted(glob, reverse=True) and glob[0] > glob[-1]
        # Doubling the tile roughly halves the re-reads (K/V for flash2, Q/O/l/m for flash1).
        assert glob[0] / glob[1] > 1.4
    s = data.summary["h200-sxm-datasheet"]["flash2"]
    assert s["blocks"] == [
        r["block"] for r in data.rows if r["algorithm"] == "flash2" and r["fits"]
    ]
    assert s["global_ratio"] == s["global_bytes"][0] / s["global_bytes"][-1]


def test_row_matches_gpusim_simulate(small, capsys):
    fig, results = small["BlockSize"]
    data = fig.build(results)
    row = next(r for r in data.rows if r["algorithm"] == "flash2" and r["block"] == 32)
    point = next(p for p in fig.points() if p.algorithm == "flash2" and p.block_m == 32)
    sim = simulate_json(point, capsys)
    assert row["global_bytes"] == sim["global_read_bytes"] + sim["global_write_bytes"]
    assert row["dram_bytes"] == sim["dram_read_bytes"] + sim["dram_write_bytes"]
    assert row["runtime_s"] == sim["runtime_s"]
    assert row["bound"] == sim["bound"]
    assert (row["warps"], row["stages"]) == (sim["schedule"]["warps"], sim["schedule"]["stages"])


def test_knee_is_the_first_compute_bound_size():
    series = [
        {"block": b, "bound": x}
        for b, x in ((16, "dram"), (32, "smem"), (64, "tensor"), (128, "sfu"))
    ]
    assert knee_of(series) == 64
    assert knee_of(series[:2]) is None
    assert knee_of([{"block": 16, "bound": "latency"}]) is None


def test_a_tile_too_big_for_the_sm_has_a_reason():
    fig = BlockSize(
        profiles=("a100-sxm4-80gb",),
        algorithms=("flash1",),
        blocks=(512,),
        batch=1,
        heads=1,
        seq_len=512,
    )
    assert fig.points() == []
    data = fig.build({})
    [row] = data.rows
    assert row["fits"] is False
    assert "shared memory" in row["reason"] or "registers" in row["reason"]
    assert data.table_rows[0][-1].startswith("does not fit")
    assert (
        short_reason("schedule needs 1 bytes of shared memory per CTA")
        == "does not fit: shared memory"
    )
