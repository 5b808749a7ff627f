"""The short-grid look's step count: FlashAttention-2's forward bounds per query block."""

from gpusim.reporting.torch_short_causal_look import steps_per_cta
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def test_a_causal_cta_walks_up_to_its_diagonal():
    s = Schedule(block_m=128, block_n=128, warps=4, stages=1)
    w = Workload(batch=1, heads=1, seq_len=704, head_dim=64, dtype="fp16", causal=True)
    assert steps_per_cta(w, s) == (1 + 2 + 3 + 4 + 5 + 6) / 6  # the last block: 64 rows
    assert steps_per_cta(w.model_copy(update={"causal": False}), s) == 6.0
    # Bc half of Br: query block m walks 2 (m + 1) key blocks
    s64 = Schedule(block_m=128, block_n=64, warps=4, stages=1)
    w768 = w.model_copy(update={"seq_len_q": 768, "seq_len_k": 768})
    assert steps_per_cta(w768, s64) == (2 + 4 + 6 + 8 + 10 + 12) / 6


def test_more_keys_than_queries_shift_the_diagonal():
    s = Schedule(block_m=128, block_n=128, warps=4, stages=1)
    w = Workload(batch=1, heads=1, seq_len_q=256, seq_len_k=512, head_dim=64, dtype="fp16",
                 causal=True)  # fmt: skip
    assert steps_per_cta(w, s) == (3 + 4) / 2
