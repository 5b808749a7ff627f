"""Counts against the closed forms in each algorithm's docstring."""

import pytest

import gpusim.counting as counting
from algorithms import ALGORITHMS
from gpusim.counting import count
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

FP32 = 4


def _ceil(a, b):
    return -(-a // b)


def _count(name, w, bm, bn, **kw):
    return count(name, w, Schedule(block_m=bm, block_n=bn, **kw))


def _rw(c, tensor):
    t = c.bytes_by_tensor.get(tensor, {"read_bytes": 0, "write_bytes": 0})
    return t["read_bytes"], t["write_bytes"]


# Ragged on purpose: neither length is a multiple of the blocks.
W = Workload(batch=2, heads=3, seq_len_q=300, seq_len_k=200, head_dim=64, dtype="fp16")
BM, BN = 64, 32
TR, TC = _ceil(300, BM), _ceil(200, BN)
E, BH, NQ, NK, D = 2, 6, 300, 200, 64


def test_flash2_reads_q_once_kv_once_per_q_block_writes_o_once():
    c = _count("flash2", W, BM, BN)
    assert _rw(c, "Q") == (BH * NQ * D * E, 0)
    assert _rw(c, "K") == (BH * TR * NK * D * E, 0)
    assert _rw(c, "V") == (BH * TR * NK * D * E, 0)
    assert _rw(c, "O") == (0, BH * NQ * D * E)
    assert set(c.bytes_by_tensor) == {"Q", "K", "V", "O"}


def test_flash1_moves_q_o_m_l_once_per_kv_block():
    c = _count("flash1", W, BM, BN, warp_split="split-k")
    assert _rw(c, "K") == (BH * NK * D * E, 0)
    assert _rw(c, "V") == (BH * NK * D * E, 0)
    assert _rw(c, "Q") == (BH * TC * NQ * D * E, 0)
    assert _rw(c, "Oacc") == (BH * (TC - 1) * NQ * D * FP32,) * 2
    assert _rw(c, "O") == (0, BH * NQ * D * E)
    for vec in ("m", "l"):
        assert _rw(c, vec) == (BH * (TC - 1) * NQ * FP32, BH * TC * NQ * FP32)


def test_flash2_kvq_state_in_hbm_and_final_normalisation():
    c = _count("flash2-kvq", W, BM, BN)
    assert _rw(c, "Q") == (BH * TC * NQ * D * E, 0)
    assert _rw(c, "K") == _rw(c, "V") == (BH * NK * D * E, 0)
    assert _rw(c, "Oacc") == (
        BH * (TC - 1) * NQ * D * FP32 + BH * NQ * D * FP32,
        BH * TC * NQ * D * FP32,
    )
    assert _rw(c, "m") == (BH * (TC - 1) * NQ * FP32, BH * TC * NQ * FP32)
    assert _rw(c, "l") == (BH * (TC - 1) * NQ * FP32 + BH * NQ * FP32, BH * TC * NQ * FP32)
    assert _rw(c, "O") == (0, BH * NQ * D * E)
    assert [k.name for k in c.kernels] == ["flash2_kvq_fwd", "normalise"]


def test_flash_naive_kvq_reads_and_writes_state_every_step():
    c = _count("flash-naive-kvq", W, BM, BN)
    assert _rw(c, "Q") == (BH * TC * NQ * D * E, 0)
    assert _rw(c, "Oacc") == (BH * (TC + 1) * NQ * D * FP32, BH * (TC + 1) * NQ * D * FP32)
    for vec in ("m", "l"):
        assert _rw(c, vec) == (BH * TC * NQ * FP32, BH * (TC + 1) * NQ * FP32)
    assert _rw(c, "O") == (0, BH * NQ * D * E)


def test_flash_naive_qkv_every_query_reads_all_keys():
    c = _count("flash-naive-qkv", W, 1, BN)
    assert _rw(c, "Q") == (BH * NQ * D * E, 0)
    assert _rw(c, "K") == _rw(c, "V") == (BH * NQ * NK * D * E, 0)
    assert _rw(c, "O") == (0, BH * NQ * D * E)


@pytest.mark.parametrize(
    ("name", "s_reads"), [("standard", 1), ("softmax-online", 2), ("softmax-3pass", 3)]
)
def test_materialised_s_and_p_traffic(name, s_reads):
    c = _count(name, W, BM, BN)
    assert _rw(c, "S") == (s_reads * BH * NQ * NK * E, BH * NQ * NK * E)
    assert _rw(c, "P") == (BH * NQ * NK * E, BH * NQ * NK * E)
    assert _rw(c, "Q") == (BH * NQ * D * E, 0)
    assert _rw(c, "K") == _rw(c, "V") == (BH * TR * NK * D * E, 0)
    assert _rw(c, "O") == (0, BH * NQ * D * E)


def test_standard_is_quadratic_in_n():
    small = _count("standard", Workload(seq_len_q=1024, seq_len_k=1024), 128, 64)
    big = _count("standard", Workload(seq_len_q=2048, seq_len_k=2048), 128, 64)
    ratio = (big.global_read_bytes + big.global_write_bytes) / (
        small.global_read_bytes + small.global_write_bytes
    )
    assert 3.7 < ratio <= 4.0


def test_causal_skipping_roughly_halves_flash2_kv_reads():
    full = _count("flash2", Workload(), 128, 64)
    causal = _count("flash2", Workload(causal=True), 128, 64)
    ratio = _rw(causal, "K")[0] / _rw(full, "K")[0]
    # Tr = 16 blocks of 128 rows, tiles of 64 keys: sum_i (2i + 2) / (16 * 32) = 17/32.
    assert ratio == pytest.approx(17 / 32)
    assert causal.flops == full.flops // 2
    assert full.flops < causal.executed_mma_flops * 2 < 1.1 * full.flops


def test_seed_001_shared_memory_example():
    # Br = Bc = 64, d = 128, fp32, everything in shared memory, one stage: Q, K, V, O
    # 32 KiB each, S 16 KiB, m and l 0.5 KiB: 147,968 B, which the seed rounds to "~145 KB".
    w = Workload(batch=1, heads=1, seq_len_q=256, seq_len_k=256, head_dim=128, dtype="fp32")
    c = _count("flash2", w, 64, 64, stages=1, residency="smem")
    assert c.smem_bytes_per_cta == 147_968
    assert c.smem_bytes_per_cta / 1024 == pytest.approx(145, abs=0.5)
    assert c.smem_buffers_bytes == {
        "Q": 32768,
        "K": 32768,
        "V": 32768,
        "S": 16384,
        "O": 32768,
        "m_l": 512,
    }


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize("causal", [False, True])
def test_totals_are_sums_of_kernels_and_tensors(name, causal):
    w = Workload(batch=1, heads=2, seq_len_q=100, seq_len_k=70, head_dim=32, causal=causal)
    c = _count(name, w, 1 if name == "flash-naive-qkv" else 32, 16)
    assert c.global_read_bytes == sum(k.global_read_bytes for k in c.kernels)
    assert c.global_read_bytes == sum(t["read_bytes"] for t in c.bytes_by_tensor.values())
    assert c.global_write_bytes == sum(t["write_bytes"] for t in c.bytes_by_tensor.values())
    assert c.flops == w.model_flops()
    assert c.executed_mma_flops >= 4 * w.visible_pairs() * w.head_dim * w.batch_heads
    assert c.exp_ops >= w.visible_pairs() * w.batch_heads
    assert c.smem_bytes_per_cta == max(k.smem_bytes_per_cta for k in c.kernels)
    d = c.to_json_dict()
    for key in ("algorithm", "workload", "schedule", "flops", "global_read_bytes"):
        assert key in d
    assert d["algorithm"] == name and "algorithm" not in d["schedule"]


def test_every_query_row_is_written_once():
    for name in ALGORITHMS:
        w = Workload(batch=1, heads=1, seq_len_q=90, seq_len_k=40, head_dim=16, causal=True)
        c = _count(name, w, 1 if name == "flash-naive-qkv" else 16, 16)
        assert _rw(c, "O")[1] == 90 * 16 * 2, name


def test_huge_trace_is_refused_with_advice(monkeypatch):
    monkeypatch.setattr(counting, "MAX_TRACED_STEPS", 500)
    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=1024, causal=True)
    with pytest.raises(GpusimError, match="larger blocks"):
        _count("flash-naive-qkv", w, 1, 1)


def test_naive_qkv_rejects_row_blocks():
    with pytest.raises(GpusimError, match="block-m must be 1"):
        _count("flash-naive-qkv", W, 16, 16)


@pytest.mark.parametrize(
    ("bm", "warps", "d", "q_in_registers"),
    [(64, 4, 128, True), (128, 8, 64, True), (128, 4, 128, False), (64, 4, 256, False)],
)
def test_q_fragments_stay_in_registers_when_few(bm, warps, d, q_in_registers):
    """16 rows per warp and d <= 128 (flash2_tc.cu's Q_IN_REGS): Q is read from shared memory
    for the first K/V tile only; otherwise once per tile."""
    bn, n = 64, 1024
    w = Workload(batch=1, heads=1, seq_len_q=n, seq_len_k=n, head_dim=d, dtype="bf16")
    c = count("flash2", w, Schedule(block_m=bm, block_n=bn, warps=warps))
    tiles, blocks, e = n // bn, n // bm, 2
    # Per Q block and K/V tile: K and V land in shared memory and every warp reads both.
    kv = blocks * tiles * (2 * bn * d * e + warps * 2 * bn * d * e)
    q_tile = bm * d * e
    q = blocks * (q_tile + (1 if q_in_registers else tiles) * q_tile)  # landing, then reads
    assert c.smem_traffic_bytes == kv + q


def test_a_kernel_traced_again_comes_from_the_cache_and_still_costs_its_steps():
    from algorithms import get_algorithm

    w = Workload(batch=1, heads=2, seq_len_q=512, seq_len_k=512, causal=True)
    (k1,) = get_algorithm("flash2").kernels(w, Schedule(block_m=64, block_n=64))
    (k2,) = get_algorithm("flash2").kernels(w, Schedule(block_m=64, block_n=64))
    b1, b2 = [10_000], [10_000]
    first = counting.traced_classes(k1, b1)
    again = counting.traced_classes(k2, b2)  # an equal kernel, not the same object
    assert again is first and b1 == b2 and b1[0] < 10_000
    with pytest.raises(GpusimError, match="tile steps"):
        counting.traced_classes(k1, [3])  # the cached trace is larger than this budget
