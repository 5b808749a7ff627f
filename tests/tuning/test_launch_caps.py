"""Launch caps: the budgets reproduce every smaller SRAM's occupancy, each distinct once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from algorithms.base import OnChip
from gpusim.occupancy import occupancy
from gpusim.profiles import load_profile
from gpusim.tuning.launch_caps import launch_caps
from gpusim.tuning.sram import with_sram_bytes

H200 = load_profile("h200-sxm-datasheet")


def _chip(smem: int, threads: int = 128, regs: int = 64) -> OnChip:
    return OnChip({"buf": smem}, threads, regs)


def _counts(profile, chips) -> tuple[int, ...]:
    return tuple(
        occupancy(profile, c.smem_bytes, c.threads, c.regs_per_thread).ctas_per_sm
        for c in chips.values()
    )


def test_one_kernel_gets_every_count_below_what_fits():
    chips = {"k": _chip(49_152)}  # 4 per SM on the H200 (50,176 B each of 233,472)
    caps = launch_caps(H200, chips)
    assert [c.ctas_per_sm["k"] for c in caps] == [1, 2, 3]
    assert [c.smem_per_sm_bytes for c in caps] == [50_176, 100_352, 150_528]


def test_a_kernel_that_fits_once_has_no_caps():
    assert launch_caps(H200, {"k": _chip(200_000)}) == []


def test_every_kernel_keeps_one_cta():
    chips = {"small": _chip(10_000), "big": _chip(100_000)}
    for cap in launch_caps(H200, chips):
        assert min(cap.ctas_per_sm.values()) >= 1
    assert launch_caps(H200, chips)[0].ctas_per_sm["big"] == 1


@given(
    smems=st.lists(st.integers(0, 120_000), min_size=1, max_size=3),
    sram_kib=st.integers(1, 227),
)
def test_a_smaller_sram_launch_is_among_the_caps(smems, sram_kib):
    """What makes a larger SRAM never slower: the smaller SRAM's counts are a launch here."""
    chips = {f"k{i}": _chip(s) for i, s in enumerate(smems)}
    small = with_sram_bytes(H200, sram_kib * 1024)
    if max(smems) > small.smem_per_block_bytes.value:
        return  # does not run in the smaller SRAM at all
    want = _counts(small, chips)
    have = {tuple(c.ctas_per_sm.values()) for c in launch_caps(H200, chips)}
    assert want == _counts(H200, chips) or want in have
