"""The wgmma catalogue: every instance obeys wgmma's shape rules and fits the H200."""

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.wgmma_instances import (
    SMEM_PER_BLOCK_OPTIN_BYTES,
    WgmmaInstance,
    all_instances,
    check_shape,
    feasible,
)


def test_catalogue_has_several_tilings_per_dtype_and_dim():
    insts = all_instances()
    for dtype in ("bf16", "fp16"):
        for d in (64, 128, 256):
            assert len([i for i in insts if i.dtype == dtype and i.head_dim == d]) >= 3
    for i in insts:
        assert i.smem_bytes <= SMEM_PER_BLOCK_OPTIN_BYTES and feasible(i) is None
        assert i.block_m == 64 * i.consumer_wgs and i.threads == 128 * (i.consumer_wgs + 1)
        assert i.block_n % 16 == 0 and i.block_n <= 256
    assert len({i.key for i in insts}) == len(insts)


def test_describe_and_name():
    i = WgmmaInstance("bf16", 128, 128, 2, 2)
    assert i.name_expression == "flash3_wgmma<true,128,128,2,2,false>"
    assert i.key == "wgmma_bf16_d128_m128_n128_s2_c2"
    # Q 32 KiB + K and V 2 stages x 32 KiB + 9 barriers + 1 KiB alignment slack
    assert i.smem_bytes == 32768 + 4 * 32768 + 72 + 1024
    assert i.describe()["producer_warps"] == 4


def test_the_long_context_switches_name_their_instances_and_leave_the_others_alone():
    plain = WgmmaInstance("fp16", 64, 128, 2, 1)
    both = WgmmaInstance("fp16", 64, 128, 2, 1, gqa=True, split=True)
    assert plain.name_expression == "flash3_wgmma<false,64,128,2,1,false>"
    assert both.name_expression == "flash3_wgmma<false,64,128,2,1,false,true,true>"
    assert both.key == "wgmma_fp16_d64_m64_n128_s2_c1_gqa_split"
    assert WgmmaInstance("bf16", 64, 128, 2, 1, split=True).key.endswith("_c1_split")
    assert both.smem_bytes == plain.smem_bytes and both.describe()["split"]
    assert not any(i.gqa or i.split for i in all_instances())  # the catalogue as before


@pytest.mark.parametrize(
    "args, rule",
    [
        (("fp32", 128, 128, 128), "bf16 or fp16"),
        (("bf16", 128, 96, 128), "multiple of 64"),
        (("bf16", 128, 128, 100), "multiple of 8"),
        (("bf16", 128, 128, 264), "multiple of 8"),
        (("bf16", 128, 128, 72), "multiple of 16"),
        (("bf16", 96, 128, 128), "head dim"),
    ],
)
def test_invalid_tilings_refused_with_one_line(args, rule):
    with pytest.raises(GpusimError, match=rule) as exc:
        check_shape(*args)
    assert "\n" not in str(exc.value)


def test_pingpong_needs_two_consumers():
    assert WgmmaInstance("fp16", 64, 128, 2, 2, True).key.endswith("_c2_pp")
    with pytest.raises(GpusimError, match="two consumer"):
        WgmmaInstance("bf16", 64, 128, 2, 3, True)


def test_infeasible_reason():
    assert "shared memory" in feasible(WgmmaInstance("bf16", 256, 128, 3, 2))
    assert "registers" in feasible(WgmmaInstance("bf16", 128, 128, 1, 3))
