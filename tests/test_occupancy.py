"""Occupancy against the CUDA occupancy calculator's model, and one-line errors for misfits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpusim.errors import GpusimError
from gpusim.occupancy import allocated_smem_bytes, check_fits, occupancy, regs_per_warp
from gpusim.profiles import list_profiles, load_profile

H200 = load_profile("h200-sxm-datasheet")
A100 = load_profile("a100-sxm4-80gb")
RTX = load_profile("rtx-4090")


# (profile, smem bytes, threads, registers) -> (CTAs per SM, bound by, occupancy). Worked out
# with the calculator's rules: registers per warp rounded up to 256, warps the register file
# holds rounded down to a multiple of 4, shared memory rounded to 128 B plus 1 KB per CTA.
CASES = [
    (H200, 0, 256, 32, 8, "warps", 1.0),  # 64 warps: full occupancy
    (H200, 0, 128, 64, 8, "registers", 0.5),  # 64 registers: half the threads
    (H200, 0, 256, 255, 1, "registers", 0.125),  # 8192 registers per warp
    (H200, 0, 128, 33, 12, "registers", 0.75),  # 1280/warp -> 51 warps -> 48
    (H200, 0, 64, 16, 32, "warps", 1.0),  # 32 blocks and 64 warps tie: the warp limit is named
    (H200, 0, 32, 16, 32, "blocks", 0.5),  # 1-warp CTAs stop at 32 blocks per SM
    (H200, 98_304, 128, 128, 2, "smem", 0.125),  # FlashAttention-2 d=128 tiles
    (H200, 115_712, 128, 64, 2, "smem", 0.125),  # (115,712 + 1,024) x 2 = 233,472 exactly
    (H200, 115_713, 128, 64, 1, "smem", 0.0625),  # one byte more: the next 128 B unit
    (H200, 232_448, 1024, 64, 1, "smem", 0.5),  # the opt-in maximum
    (A100, 49_152, 128, 64, 3, "smem", 0.1875),  # 50,176 x 3 <= 167,936
    (A100, 0, 1024, 32, 2, "warps", 1.0),
    (RTX, 0, 1024, 32, 1, "warps", 2 / 3),  # Ada: 48 warps per SM
    (RTX, 0, 768, 32, 2, "warps", 1.0),
    (RTX, 0, 32, 16, 24, "blocks", 0.5),  # Ada: 24 blocks per SM
    (RTX, 50_000, 128, 32, 2, "smem", 1 / 6),  # 51,224 x 2 <= 102,400
]


@pytest.mark.parametrize(("prof", "smem", "threads", "regs", "ctas", "bound", "frac"), CASES)
def test_calculator_cases(prof, smem, threads, regs, ctas, bound, frac):
    occ = occupancy(prof, smem, threads, regs)
    assert (occ.ctas_per_sm, occ.bound_by) == (ctas, bound)
    assert occ.fraction == pytest.approx(frac)


def test_allocation_units():
    assert allocated_smem_bytes(H200, 0) == 1024
    assert allocated_smem_bytes(H200, 1) == 1024 + 128
    assert allocated_smem_bytes(H200, 128) == 1024 + 128
    assert regs_per_warp(H200, 1) == 256
    assert regs_per_warp(H200, 255) == 8192


def test_carveout_is_the_smallest_step_that_holds_the_ctas():
    assert occupancy(H200, 98_304, 128, 128).smem_carveout_bytes == 196 * 1024  # 2 x 99,328
    assert occupancy(H200, 0, 256, 32).smem_carveout_bytes == 8 * 1024


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (245_760, 128, 64),
            "schedule needs 245,760 bytes of shared memory per CTA; "
            "h200-sxm-datasheet allows 232,448",
        ),
        ((1024, 2048, 32), "more than the 1,024 max threads per block of h200-sxm"),
        ((0, 1024, 255), "32 warps x 255 registers (262,144 as allocated) exceed the 65,536"),
        ((0, 128, 256), "schedule needs 256 registers per thread; h200-sxm-datasheet allows 255"),
        ((0, 0, 32), "threads > 0"),
    ],
)
def test_check_fits_says_what_is_needed_and_the_limit(args, message):
    with pytest.raises(GpusimError) as info:
        check_fits(H200, *args)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(GpusimError):
        occupancy(H200, *args)


@given(
    name=st.sampled_from(list_profiles()),
    smem=st.integers(0, 240_000),
    warps=st.integers(1, 32),
    regs=st.integers(1, 255),
)
def test_resident_ctas_never_exceed_any_resource(name, smem, warps, regs):
    prof = load_profile(name)
    try:
        occ = occupancy(prof, smem, 32 * warps, regs)
    except GpusimError:
        return
    n = occ.ctas_per_sm
    assert n >= 1
    assert n * allocated_smem_bytes(prof, smem) <= prof.smem_per_sm_bytes.value
    assert n * warps <= prof.max_warps_per_sm.value
    assert n * warps * regs_per_warp(prof, regs) <= prof.registers_per_sm.value
    assert n <= prof.max_blocks_per_sm.value
    assert n == min(occ.limits.values()) == occ.limits[occ.bound_by]
    # Using less of every resource never lowers occupancy.
    assert occupancy(prof, smem // 2, 32 * warps, max(1, regs // 2)).ctas_per_sm >= n


def test_a_launch_cap_binds_only_below_every_resource():
    capped = occupancy(H200, 0, 256, 32, max_ctas_per_sm=3)
    assert (capped.ctas_per_sm, capped.bound_by) == (3, "cap")
    # A cap at the natural count leaves the resource named (ties go to the resources).
    same = occupancy(H200, 98_304, 128, 128, max_ctas_per_sm=2)
    assert (same.ctas_per_sm, same.bound_by) == (2, "smem")
    above = occupancy(H200, 98_304, 128, 128, max_ctas_per_sm=7)
    assert (above.ctas_per_sm, above.bound_by) == (2, "smem")
    # Fewer resident CTAs need a smaller carve-out.
    assert occupancy(H200, 30_000, 128, 32, max_ctas_per_sm=1).smem_carveout_bytes < (
        occupancy(H200, 30_000, 128, 32).smem_carveout_bytes
    )


def test_a_launch_cap_below_one_is_refused():
    with pytest.raises(GpusimError, match="at least 1"):
        occupancy(H200, 0, 128, 32, max_ctas_per_sm=0)
