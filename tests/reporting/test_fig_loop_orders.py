"""Figure 3's data: the five loop orders on the same tiles; who moves what."""

from __future__ import annotations

from gpusim.reporting.fig_loop_orders import HBM_STATE, LOOP_ORDERS

from .helpers import simulate_json


def test_flash2_moves_least_and_the_hbm_state_orders_write_their_state(small):
    fig, results = small["LoopOrders"]
    data = fig.build(results)
    by = {r["algorithm"]: r for r in data.rows}
    assert set(by) == set(LOOP_ORDERS)
    s = data.summary["h200-sxm-datasheet"]
    assert s["order_by_global_bytes"][0] == "flash2"
    o_bytes = fig.batch * fig.heads * fig.seq_len * fig.head_dim * 2  # O once, fp16
    assert by["flash2"]["global_write_bytes"] == o_bytes
    for alg in HBM_STATE:
        # m, l and O (or Oacc) go back to HBM at every K/V step: far more than O once.
        assert by[alg]["global_write_bytes"] > 2 * o_bytes
    # The single-query order reads all of K and V once per query.
    kv = 2 * fig.batch * fig.heads * fig.seq_len * fig.seq_len * fig.head_dim * 2
    assert by["flash-naive-qkv"]["global_read_bytes"] >= kv
    assert by["flash-naive-qkv"]["block_m"] == 1
    assert all(by[a]["block_n"] == fig.block for a in LOOP_ORDERS)


def test_row_matches_gpusim_simulate(small, capsys):
    fig, results = small["LoopOrders"]
    data = fig.build(results)
    row = next(r for r in data.rows if r["algorithm"] == "flash1")
    point = next(p for p in fig.points() if p.algorithm == "flash1")
    sim = simulate_json(point, capsys)
    for key in ("global_read_bytes", "global_write_bytes", "runtime_s", "bound", "ctas_per_sm"):
        assert row[key] == sim[key], key
    assert row["dram_bytes"] == sim["dram_read_bytes"] + sim["dram_write_bytes"]


def test_description_ranks_by_runtime(small):
    fig, results = small["LoopOrders"]
    data = fig.build(results)
    text = fig.describe(data)
    ranked = data.summary["h200-sxm-datasheet"]["order_by_runtime"]
    assert "Ranked by predicted runtime: " + ranked[0] in text
