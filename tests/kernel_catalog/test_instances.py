"""The instance grid: which (Br, Bc, warps, stages, d, dtype) exist and why the others do not."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import (
    SMEM_PER_BLOCK_OPTIN_BYTES,
    KernelInstance,
    all_instances,
    grid_instances,
    instance_for,
    rejected_instances,
    rejection_reason,
)
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def test_grid_splits_into_feasible_and_rejected():
    grid = grid_instances()
    assert len(all_instances()) + len(rejected_instances()) == len(grid)
    keys = [i.key for i in all_instances()]
    assert len(keys) == len(set(keys))


def test_required_head_dims_and_dtypes_exist():
    have = {(i.variant, i.dtype, i.head_dim) for i in all_instances()}
    for dt in ("fp16", "bf16"):
        for d in (32, 64, 128, 256):
            assert ("tc", dt, d) in have
    assert ("simt", "fp32", 64) in have
    assert ("simt", "fp32", 128) in have


def test_flash_attention_2_default_config_exists():
    # FlashAttention-2's hdim-128 forward tile: Br=128, Bc=64, 4 warps (32 rows per warp).
    inst = instance_for(
        Workload(head_dim=128, dtype="bf16"), Schedule(block_m=128, block_n=64, warps=4, stages=2)
    )
    assert inst.name_expression == "flash2_tc<true,128,128,64,4,2>"
    assert inst.smem_bytes == 2 * (128 * 128 + 2 * 2 * 64 * 128)


def test_tc_smem_matches_layout():
    i = KernelInstance("tc", "fp16", 64, 64, 32, 4, 3)
    assert i.smem_bytes == 2 * 64 * 64 + 3 * 2 * 2 * 32 * 64


def test_simt_smem_matches_layout():
    i = KernelInstance("simt", "fp32", 64, 64, 32, 8, 2)
    assert i.smem_bytes == 4 * (64 * 68 + 2 * 2 * 32 * 68 + 64 * 48)


def test_every_feasible_instance_fits_shared_memory():
    for i in all_instances():
        assert i.smem_bytes <= SMEM_PER_BLOCK_OPTIN_BYTES


def test_split_q_needs_16_rows_per_warp():
    why = rejection_reason(KernelInstance("tc", "bf16", 64, 64, 64, 8, 2))
    assert why is not None and "16*warps" in why


def test_smem_limit_rejects():
    i = KernelInstance("tc", "bf16", 128, 128, 64, 4, 3)
    assert rejection_reason(i) is None
    why = rejection_reason(i, smem_limit_bytes=100_000)
    assert why is not None and "shared memory" in why


@pytest.mark.parametrize(
    ("workload", "schedule", "needle"),
    [
        (Workload(head_dim=96), Schedule(), "head_dim 96"),
        (Workload(dtype="fp32", head_dim=32), Schedule(block_m=64, warps=8), "fp32"),
        (Workload(), Schedule(warp_split="split-k"), "split-q"),
        (Workload(), Schedule(residency="smem"), "registers"),
        (Workload(), Schedule(block_m=96), "16*warps"),
        (Workload(), Schedule(block_m=256, warps=4, block_n=64), "registers"),
        (Workload(head_dim=256), Schedule(block_m=128, block_n=128, stages=3, warps=8), "shared"),
    ],
)
def test_instance_for_errors_say_why(workload, schedule, needle):
    with pytest.raises(GpusimError, match=re.escape(needle)):
        instance_for(workload, schedule)


def test_grid_points_outside_the_compiled_grid_are_refused():
    with pytest.raises(GpusimError, match="compiled grid"):
        instance_for(Workload(head_dim=64), Schedule(block_m=64, block_n=16, warps=4, stages=2))


@given(
    st.sampled_from([32, 64, 128, 256]),
    st.sampled_from(["fp32", "fp16", "bf16"]),
    st.sampled_from([16, 32, 64, 128, 256]),
    st.sampled_from([16, 32, 64, 128]),
    st.sampled_from([1, 2, 4, 8]),
    st.integers(1, 4),
)
def test_instance_for_returns_matching_instance_or_error(d, dtype, bm, bn, w, stages):
    workload = Workload(head_dim=d, dtype=dtype)
    schedule = Schedule(block_m=bm, block_n=bn, warps=w, stages=stages)
    try:
        inst = instance_for(workload, schedule)
    except GpusimError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert inst in all_instances()
    assert inst.schedule() == schedule
    assert (inst.head_dim, inst.dtype) == (d, dtype)


def test_default_switches_keep_the_recorded_keys_and_template_names():
    inst = instance_for(Workload(dtype="bf16"), Schedule())
    assert inst.features == (False, False, False, False, False)
    assert inst.key == "tc_bf16_d128_m128_n64_w4_s2"
    assert inst.name_expression == "flash2_tc<true,128,128,64,4,2>"
    assert inst.base() == inst


def test_long_context_fields_select_the_switches():
    w = Workload(dtype="bf16", heads=32, heads_kv=8, seq_len_q=1, seq_len_k=4096)
    s = Schedule(kv_splits=4, kv_order="backward", q_order="first-first")
    inst = instance_for(w, s)
    assert inst.features == (True, True, True, True, False)
    assert inst.key == "tc_bf16_d128_m128_n64_w4_s2_kvb_qff_gqa_split"
    assert inst.name_expression == "flash2_tc<true,128,128,64,4,2,true,true,true,true>"
    assert inst.base().key == "tc_bf16_d128_m128_n64_w4_s2"
    assert inst.schedule(kv_splits=4) == s


@pytest.mark.parametrize(
    ("workload", "schedule", "needle"),
    [
        (Workload(dtype="bf16", heads=24, heads_kv=8), Schedule(pack_gqa=True), "multiple of 3"),
        (Workload(dtype="bf16", heads=8), Schedule(pack_gqa=True), "needs grouped K/V heads"),
        (Workload(dtype="fp32", head_dim=64), Schedule(block_m=64, warps=8, kv_splits=2), "fp32"),
        (Workload(dtype="fp32", head_dim=64, heads_kv=8), Schedule(block_m=64, warps=8), "fp32"),
        (Workload(dtype="bf16", seq_len_k=100), Schedule(kv_splits=3), "2 key blocks"),
    ],
)
def test_long_context_fields_without_cuda_code_are_refused(workload, schedule, needle):
    with pytest.raises(GpusimError, match=needle):
        instance_for(workload, schedule)


def test_pack_gqa_is_a_template_switch_of_its_own():
    w = Workload(dtype="bf16", heads=32, heads_kv=8, seq_len_q=1, seq_len_k=4096)
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2, pack_gqa=True, kv_splits=4)
    inst = instance_for(w, s)
    assert inst.features == (False, False, True, True, True)
    assert inst.key == "tc_bf16_d128_m64_n64_w4_s2_gqa_split_pack"
    assert inst.name_expression == "flash2_tc<true,128,64,64,4,2,false,false,true,true,true>"
    assert inst.base().key == "tc_bf16_d128_m64_n64_w4_s2"
    assert inst.schedule(kv_splits=4) == s
