"""Block-size rules: the paper's, seed 000's swapped one, and the default schedule."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from gpusim.counting import count
from gpusim.errors import GpusimError
from gpusim.tuning.rules import default_schedule, paper_rule, seed_rule
from gpusim.workload import Workload


def test_paper_rule_documented_values():
    # M = 100 KiB of fp32 = 25,600 elements; d = 64: ceil(M / 4d) = 100.
    assert paper_rule(100 * 1024, 64, 4) == (64, 100)
    # fp16 doubles the elements: Bc = 200, Br capped at d.
    assert paper_rule(100 * 1024, 64, 2) == (64, 200)
    # d = 128, 48 KiB fp32: M = 12,288, ceil(12288 / 512) = 24 = Br (below d).
    assert paper_rule(48 * 1024, 128, 4) == (24, 24)


def test_seed_rule_swaps_the_roles():
    assert seed_rule(100 * 1024, 64, 4) == (100, 64)
    # seed 000's own example: SRAM_SIZE = 1024 (elements, 1 byte each here), d = 64 -> 4, 4.
    assert seed_rule(1024, 64, 1) == (4, 4)
    for smem in (1024, 48 * 1024, 227 * 1024):
        br, bc = paper_rule(smem, 128, 2)
        assert seed_rule(smem, 128, 2) == (bc, br)


def test_rules_reject_nonsense():
    with pytest.raises(GpusimError):
        paper_rule(0, 64, 2)


@pytest.mark.parametrize("name", list(ALGORITHMS))
@settings(max_examples=10, deadline=None)
@given(
    nq=st.integers(1, 5000),
    nk=st.integers(1, 5000),
    d=st.sampled_from([16, 32, 64, 128, 256]),
    dtype=st.sampled_from(["fp32", "fp16", "bf16"]),
    smem_kib=st.sampled_from([100, 164, 227]),
)
def test_default_schedule_is_practical_and_fits(name, nq, nk, d, dtype, smem_kib):
    w = Workload(batch=1, heads=1, seq_len_q=nq, seq_len_k=nk, head_dim=d, dtype=dtype)
    try:
        s = default_schedule(name, w, smem_kib * 1024)
    except GpusimError as e:
        # Only standard's row-on-chip softmax may run out of room (long rows).
        assert name == "standard" and nk * 4 > smem_kib * 1024 // 2, e
        return
    assert s.warps == 4 and s.residency == "registers"
    assert s.warp_split == ("split-k" if name == "flash1" else "split-q")
    for b, n in ((s.block_n, nk), (s.block_m, nq)):
        if name == "flash-naive-qkv" and b is s.block_m:
            continue
        assert b in (16, 32, 64, 128)
        assert b == 16 or b // 2 < n  # not larger than the sequence needs
    if name == "flash-naive-qkv":
        assert s.block_m == 1
    chips = [k.on_chip() for k in ALGORITHMS[name].kernels(w, s)]
    assert max(c.smem_bytes for c in chips) <= smem_kib * 1024


def test_default_flash2_on_h200_sized_smem():
    s = default_schedule("flash2", Workload(), 227 * 1024)
    assert (s.block_m, s.block_n, s.stages) == (128, 64, 2)
    assert count("flash2", Workload(), s).smem_bytes_per_cta <= 227 * 1024


def test_default_schedule_small_smem_shrinks_blocks():
    s = default_schedule("flash2", Workload(), 48 * 1024)
    assert s.block_m * s.block_n < 128 * 64


def test_default_schedule_says_what_it_needs():
    with pytest.raises(GpusimError, match="shared memory"):
        default_schedule("flash2", Workload(head_dim=256, dtype="fp32"), 8 * 1024)
    with pytest.raises(GpusimError, match="unknown algorithm"):
        default_schedule("flash9", Workload(), 227 * 1024)


def test_a_row_too_long_for_standard_names_the_streamed_softmaxes():
    w = Workload(batch=1, heads=1, seq_len=131072, causal=True)
    with pytest.raises(GpusimError, match=r"S_row.*softmax-online or softmax-3pass") as e:
        default_schedule("standard", w, 227 * 1024)
    assert "\n" not in str(e.value)
    with pytest.raises(GpusimError) as e:  # a tile too large is not the row's fault
        default_schedule("flash2", Workload(head_dim=256, dtype="fp32"), 8 * 1024)
    assert "softmax-online" not in str(e.value)
    default_schedule("softmax-online", w, 227 * 1024)  # fits
