"""PyTorch's flash backward on sm90: the traits read from flash_bwd_launch_template.h, and the
name parser that reads them back from the kernels the GPU machine records."""

import pytest

from gpusim.errors import GpusimError
from gpusim.validation.torch_flash_bwd_schedule import (
    BWD_TRAITS_H200,
    H200_MAX_SMEM_PER_BLOCK_OPTIN,
    HEAD_DIM_BUCKETS,
    KB,
    KERNEL_SEQUENCE,
    BwdTraits,
    bwd_grids,
    bwd_head_dim_bucket,
    bwd_tiles,
    bwd_traits,
    observed_bwd_tiles,
    short_name,
    tiles_match,
)

#: ``Flash_bwd_kernel_traits<d, M, N, warps, MSdP, NdKV, MdQ, V_in_regs, No_double_buffer>``
#: of run_mha_bwd_hdim<d> on a GPU of 227 KB opt-in shared memory, without dropout, as
#: written in flash_bwd_launch_template.h (pytorch cb553e7, flash-attention 073afd5).
SOURCE_H200 = {
    32: (128, 128, 8, 4, 4, 4, True, False),
    64: (128, 128, 8, 4, 4, 4, False, False),
    96: (64, 128, 8, 2, 4, 4, True, False),
    128: (64, 128, 8, 2, 4, 2, False, False),
    160: (64, 64, 8, 4, 4, 4, False, False),
    192: (64, 64, 8, 4, 2, 2, False, False),
    256: (64, 64, 8, 4, 2, 2, False, False),
}


def _tuple(t: BwdTraits) -> tuple:
    return (
        t.block_m,
        t.block_n,
        t.warps,
        t.atom_msdp,
        t.atom_ndkv,
        t.atom_mdq,
        t.v_in_regs,
        t.no_double_buffer,
    )


def test_h200_traits_are_the_sources():
    assert H200_MAX_SMEM_PER_BLOCK_OPTIN == 232448
    assert tuple(BWD_TRAITS_H200) == HEAD_DIM_BUCKETS == tuple(SOURCE_H200)
    for d, want in SOURCE_H200.items():
        assert BWD_TRAITS_H200[d].head_dim == d
        assert _tuple(BWD_TRAITS_H200[d]) == want, d


@pytest.mark.parametrize("d", HEAD_DIM_BUCKETS)
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("causal", [False, True])
def test_every_head_dim_has_a_valid_tiling(d, dtype, causal):
    t = bwd_tiles(d, dtype, causal)
    assert t["block_m"] % 16 == 0 and t["block_n"] % 16 == 0
    assert t["warps"] in (4, 8) and t["threads"] == 32 * t["warps"]
    for atom in t["atom_layouts"]:
        assert t["warps"] % atom == 0  # the traits' static_asserts
    assert t["smem_bytes"] <= H200_MAX_SMEM_PER_BLOCK_OPTIN
    assert t["double_buffer"] and t["causal"] is causal
    assert t["kernels"] == KERNEL_SEQUENCE
    assert (t["block_m"], t["block_n"], t["warps"]) == SOURCE_H200[d][:3]  # causal or not


def test_the_tiles_of_head_dim_128():
    t = bwd_tiles(128, "bf16", False)
    assert (t["block_m"], t["block_n"], t["warps"]) == (64, 128, 8)
    assert t["atom_layouts"] == (2, 4, 2) and not t["v_in_regs"] and t["double_buffer"]
    assert t["traits"] == (
        "Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>"
    )
    assert bwd_tiles(128, "fp16", True)["traits"].endswith("cutlass::half_t>")


def test_each_threshold_is_the_shared_memory_of_the_kernel_it_admits():
    # The comments of flash_bwd_launch_template.h: 104 KB (d 32 without V in registers),
    # 96 KB (with), 144 KB (d 64, 128), 92 KB (d 96, V in registers), 116 (d 160),
    # 136 (d 192), 176 (d 256).
    assert bwd_traits(32, dropout=True).smem_bytes() == 104 * KB
    assert bwd_traits(32).smem_bytes() == 96 * KB
    assert {d: BWD_TRAITS_H200[d].smem_bytes() // KB for d in (64, 96, 128, 160, 192, 256)} == {
        64: 144,
        96: 92,
        128: 144,
        160: 116,
        192: 136,
        256: 176,
    }
    assert bwd_traits(128).dq_smem_bytes() == 64 * 128 * 2


def test_smaller_shared_memory_takes_the_other_branches():
    a100 = 163 * KB  # sm80: 164 KB per SM, 163 KB per block opt-in
    assert _tuple(bwd_traits(256, a100)) == (64, 64, 8, 4, 2, 2, False, True)
    assert _tuple(bwd_traits(192, a100)) == SOURCE_H200[192]
    sm86 = 99 * KB
    assert _tuple(bwd_traits(64, sm86)) == (64, 128, 8, 2, 4, 4, True, False)
    assert _tuple(bwd_traits(128, sm86)) == (64, 64, 8, 4, 2, 2, True, False)
    assert _tuple(bwd_traits(160, sm86)) == (64, 64, 8, 4, 4, 4, False, True)
    assert _tuple(bwd_traits(192, sm86)) == (64, 64, 8, 4, 2, 2, True, True)
    assert _tuple(bwd_traits(256, sm86)) == (64, 32, 8, 4, 1, 2, True, True)
    with pytest.raises(GpusimError, match="dropout"):
        bwd_traits(256, sm86, dropout=True)
    # one byte under a threshold flips it
    assert bwd_traits(128, 144 * KB - 1).block_n == 64
    assert bwd_traits(128, 144 * KB).block_n == 128


def test_dropout_drops_v_from_registers_where_the_source_says():
    assert not bwd_traits(32, dropout=True).v_in_regs
    assert not bwd_traits(96, dropout=True).v_in_regs
    assert bwd_traits(96).v_in_regs


def test_head_dims_round_up_to_their_bucket():
    from gpusim.validation.torch_head_buckets import binary_buckets

    ds = (8, 40, 64, 80, 120, 136, 192, 208, 232, 256)
    # the binary's sizes (held-out set 45), the default
    assert [bwd_head_dim_bucket(d) for d in ds] == [32, 64, 64, 96, 128, 192, 192, 256, 256, 256]
    with binary_buckets(False):  # the sources' (sets 15-44); 208 is unsettled there
        assert [bwd_head_dim_bucket(d) for d in ds if d != 208] == [
            32, 64, 64, 96, 128, 160, 192, 256, 256,
        ]  # fmt: skip


@pytest.mark.parametrize("d", [0, -64, 100, 264, 512])
def test_unsupported_head_dims_are_one_line_errors(d):
    with pytest.raises(GpusimError, match="multiple of 8 up to 256") as e:
        bwd_tiles(d, "bf16", False)
    assert "\n" not in str(e.value)


def test_the_unsettled_224_bucket_is_refused():
    from gpusim.validation.torch_head_buckets import binary_buckets

    with binary_buckets(False), pytest.raises(GpusimError, match="224 or 256"):
        bwd_tiles(224, "bf16", False)  # the sources' bucket; the binary has none (256)
    with pytest.raises(GpusimError, match="buckets"):
        bwd_traits(224)


def test_fp32_is_refused():
    with pytest.raises(GpusimError, match="fp16 and bf16"):
        bwd_tiles(64, "fp32", False)


def test_grids_count_key_blocks_for_the_main_kernel_and_query_heads_throughout():
    t = bwd_tiles(128, "bf16", True)
    g = bwd_grids(t, batch=2, heads=32, seq_len_q=1000, seq_len_k=4096)
    assert g == {
        "flash_bwd_dot_do_o_kernel": (16, 2, 32),
        "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel": (32, 2, 32),
        "flash_bwd_convert_dq_kernel": (16, 2, 32),
    }


#: The three kernels of one bf16 causal d128 backward as the profiler names them: the
#: templates of flash_bwd_launch_template.h (seqk_parallel kernel: Is_dropout, Is_causal,
#: Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap), spelt as the forward's kernels
#: were recorded on the H200 with torch 2.11 (data/h200/2026-12-03_pack_gqa/sweep.jsonl:
#: "void pytorch_flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4,
#: false, false, cutlass::bfloat16_t, Flash_kernel_traits<...> >, ...>(...)").
_T = (
    "Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >"
)
NAMES = [
    f"void pytorch_flash::flash_bwd_dot_do_o_kernel<true, {_T}>(pytorch_flash::Flash_bwd_params)",
    f"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<{_T}, false, true, "
    "false, false, true, true, false>(pytorch_flash::Flash_bwd_params)",
    f"void pytorch_flash::flash_bwd_convert_dq_kernel<{_T}>(pytorch_flash::Flash_bwd_params, int)",
]


def test_observed_tiles_read_the_traits_and_flags_back():
    got = observed_bwd_tiles(NAMES)
    assert got["found"] and got["kernel"] == KERNEL_SEQUENCE[1]
    assert got["sequence"] == list(KERNEL_SEQUENCE)
    assert (got["head_dim"], got["block_m"], got["block_n"], got["warps"]) == (128, 64, 128, 8)
    assert got["atom_layouts"] == (2, 4, 2)
    assert (got["v_in_regs"], got["double_buffer"], got["dtype"]) == (False, True, "bf16")
    assert got["flags"]["Is_causal"] and got["flags"]["Is_even_MN"]
    assert not got["flags"]["Is_dropout"] and not got["flags"]["Is_softcap"]
    assert tiles_match(bwd_tiles(128, "bf16", True), got)
    assert not tiles_match(bwd_tiles(64, "bf16", True), got)


def test_observed_tiles_of_an_older_build_and_a_cut_name():
    # namespaces on the traits, no Is_softcap (pytorch cb553e7's kernel), fp16, d32
    old = NAMES[1].replace("<Flash_", "<pytorch_flash::Flash_").replace(", false>(", ">(")
    old = old.replace(
        "<128, 64, 128, 8, 2, 4, 2, false, false", "<32, 128, 128, 8, 4, 4, 4, true, false"
    ).replace("bfloat16_t", "half_t")
    got = observed_bwd_tiles([old])
    assert (got["head_dim"], got["block_m"], got["block_n"], got["v_in_regs"]) == (
        32,
        128,
        128,
        True,
    )
    assert len(got["flags"]) == 6 and "Is_softcap" not in got["flags"]
    assert got["dtype"] == "fp16" and got["flags"]["Is_even_K"]
    cut = observed_bwd_tiles([NAMES[1][:160]])  # the traits whole, the flags cut off
    assert cut["found"] and cut["block_n"] == 128 and "flags" not in cut


def test_no_flash_kernel_is_not_found():
    names = ["void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(int)", "gemm"]
    got = observed_bwd_tiles(names)
    assert got == {"sequence": ["reduce_kernel", "gemm"], "found": False}
    assert not tiles_match(bwd_tiles(64, "bf16", False), got)


def test_short_names():
    assert short_name(NAMES[0]) == "flash_bwd_dot_do_o_kernel"
    assert short_name("void at::native::vectorized_elementwise_kernel<4>(int)") == (
        "vectorized_elementwise_kernel"
    )
    assert short_name("ampere_bf16_s16816gemm") == "ampere_bf16_s16816gemm"
