"""The long-context options on the command line: split-KV, GQA, packing, K/V order."""

from __future__ import annotations

import pytest

DECODE = ["--seq-len", "1", "--seq-len-k", "4096", "--batch", "1", "--heads", "8"]
TILE = ["--block-m", "64", "--block-n", "64", "--warps", "4", "--stages", "2"]


def test_count_shows_both_kernels_of_a_split(gpusim):
    d = gpusim("count", "-a", "flash2", "--kv-splits", "8", *DECODE, *TILE, "--json").json()
    split, combine = d["kernels"]
    assert (split["name"], combine["name"]) == ("flash2_split", "flash2_combine")
    assert split["bytes_by_tensor"]["Opart"]["write_bytes"] == 8 * 8 * 128 * 4
    assert combine["bytes_by_tensor"]["Opart"]["read_bytes"] == 8 * 8 * 128 * 4
    assert d["global_read_bytes"] == split["global_read_bytes"] + combine["global_read_bytes"]
    assert d["executed_per_useful_flop"] == 64


def test_simulate_runs_two_kernels_and_names_the_split_cuda_instance(gpusim):
    r = gpusim("simulate", "-a", "flash2", "--kv-splits", "4", *DECODE, *TILE, "--json")
    d = r.json()
    assert [k["name"] for k in d["kernels"]] == ["flash2_split", "flash2_combine"]
    assert d["cuda_instance"] == "tc_fp16_d128_m64_n64_w4_s2_split"
    assert "modelled only" not in r.err


def test_packed_heads_name_their_cuda_instance(gpusim):
    args = ["simulate", "-a", "flash2", *DECODE, *TILE, "--heads-kv", "2", "--pack-gqa"]
    r = gpusim(*args, "--json")
    assert r.json()["cuda_instance"] == "tc_fp16_d128_m64_n64_w4_s2_gqa_pack"
    assert "modelled only" not in r.err


def test_packed_heads_in_fp32_say_there_is_no_cuda_instance(gpusim):
    tile = ["--block-m", "64", "--block-n", "64", "--warps", "8", "--stages", "2"]
    args = ["simulate", "-a", "flash2", *DECODE, *tile, "--heads-kv", "2", "--pack-gqa"]
    r = gpusim(*args, "--dtype", "fp32", "--head-dim", "64", "--json")
    assert r.json()["cuda_instance"] is None and "--pack-gqa" in r.json()["cuda_instance_missing"]
    assert "modelled only" in r.err


def test_simulate_table_shows_useful_and_executed_flops(gpusim):
    out = gpusim("simulate", "-a", "flash2", *DECODE, *TILE).out
    assert "FLOPs useful" in out and "FLOPs executed" in out and "(64x)" in out


def test_gqa_and_packing(gpusim):
    base = ["simulate", "-a", "flash2", *DECODE, *TILE, "--heads-kv", "2", "--json"]
    plain, packed = gpusim(*base, "--no-pack-gqa").json(), gpusim(*base, "--pack-gqa").json()
    assert packed["kernels"][0]["ctas"] == plain["kernels"][0]["ctas"] // 4
    assert packed["global_read_bytes"] < plain["global_read_bytes"]
    assert packed["workload"]["heads_kv"] == 2 and packed["schedule"]["pack_gqa"]
    # left out, a decode step with grouped heads packs them (as FlashAttention-2 does), and
    # the JSON says the default chose it
    default = gpusim(*base).json()
    assert default["schedule"]["pack_gqa"] and default["defaults_used"]["pack_gqa"] is True
    assert default["runtime_s"] == packed["runtime_s"]
    prefill = gpusim("simulate", "-a", "flash2", "--heads", "8", "--heads-kv", "2",
                     "--seq-len", "256", "--json").json()  # fmt: skip
    assert not prefill["schedule"]["pack_gqa"] and "pack_gqa" not in prefill["defaults_used"]


def test_tune_pins_and_lists_splits(gpusim):
    d = gpusim("tune", *DECODE, *TILE, "--dtype", "bf16", "--json").json()
    # 8 CTAs on 132 SMs, 64 key blocks: every power of two up to 32 (2 CTAs per SM: 33)
    assert {c["kv_splits"] for c in d["candidates"]} == {1, 2, 4, 8, 16, 32}
    assert d["candidates"][0]["kv_splits"] > 1
    pinned = gpusim("tune", *DECODE, *TILE, "--dtype", "bf16", "--kv-splits", "4", "--json")
    assert [c["kv_splits"] for c in pinned.json()["candidates"]] == [4]


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["count", *DECODE, "--block-n", "1024", "--kv-splits", "8"], ["--kv-splits 8", "4 key"]),
        (["simulate", *DECODE, "-a", "flash2", "--pack-gqa"], ["--pack-gqa needs grouped"]),
        (["count", "--heads", "6", "--heads-kv", "4"], ["not a multiple"]),
        (["count", "-a", "flash1", "--kv-splits", "2"], ["flash1", "--kv-splits 2"]),
        (["count", "--kv-order", "sideways"], ["--kv-order"]),
        (["tune", *DECODE, *TILE, "--kv-splits", "3"], ["--kv-splits 3 is not in the search"]),
        (["tune", *DECODE, "--kv-order", "backward"], ["--kv-order backward is not in"]),
        (["simulate", "-a", "flash2", "--seq-len", "100000000"], ["733,902 waves", "of 10,000"]),
    ],
)
def test_bad_long_context_input_is_one_line(gpusim, argv, fragments):
    r = gpusim(*argv)
    assert r.code == 2 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpusim: error: ")
    for f in fragments:
        assert f in lines[0], lines[0]


PREFILL = ["--seq-len", "16384", "--batch", "1", "--heads", "4", "--dtype", "bf16"]


def test_dram_model_kv_trace_replaces_the_dram_bytes_and_keeps_the_tile_l2s(gpusim):
    args = ["simulate", "-a", "flash2", *PREFILL, *TILE]
    tile = gpusim(*args, "--json").json()
    kv = gpusim(*args, "--dram-model", "kv-trace", "--json").json()
    assert tile["dram_model"] == "tile-l2" and "dram_model_detail" not in tile
    assert kv["dram_model"] == "kv-trace" and kv["runtime_s"] == tile["runtime_s"]
    detail = kv["dram_model_detail"]
    assert detail["tile_l2_dram_read_bytes"] == tile["dram_read_bytes"]
    assert 0 < detail["sm_mate_priority"] <= 1 and detail["l2_shared_aging"] > 1
    # 16k x 4 heads fits the L2: each of Q, K, V read once, O written once
    assert kv["dram_read_bytes"] == pytest.approx(3 * 16384 * 4 * 128 * 2, rel=0.02)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "flash2 only"),
        (["-a", "flash2", "--kv-splits", "2"], "2 kernels"),
        (["-a", "flash2", "--profile", "a100-sxm4-80gb"], "sm_mate_priority"),
        (["-a", "flash2", "--dram-model", "lru"], "'lru' is not one of"),
    ],
)
def test_dram_model_kv_trace_refuses_what_it_does_not_model(gpusim, extra, message):
    args = ["simulate", *PREFILL, *TILE]
    if "--dram-model" not in extra:
        extra = [*extra, "--dram-model", "kv-trace"]
    r = gpusim(*args, *extra)
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1
