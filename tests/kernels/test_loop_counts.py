"""The main-loop walk of :mod:`gpusim.kernels.loop_counts`, and the committed counts."""

from __future__ import annotations

import pytest

from gpusim.kernels.build import find_tool
from gpusim.kernels.instances import all_instances
from gpusim.kernels.loop_counts import cta_overhead, loop_counts, step_ops


def _fn(lines: list[str]) -> str:
    """SASS text in cuobjdump's layout: one instruction per 16 bytes."""
    return "\n".join(
        f"        /*{16 * i:04x}*/                   {t} ;   /* 0x0 */" for i, t in enumerate(lines)
    )


# 0 set-up; 1..11 the loop (back edge at 11); 12..13 epilogue
PROGRAM = [
    "IMAD.MOV R1, RZ, RZ, R2",  # 0x00 set-up
    "@P1 BRA 0x40",  # 0x10 loop head: skip the prefetch on the last steps
    "LDGSTS.E [R3], [R4.64]",  # 0x20 prefetch
    "LDGSTS.E [R3+0x10], [R4.64+0x10]",  # 0x30
    "@P0 BRA 0x60",  # 0x40 Q into registers on the first step only
    "LDSM.16.M88.4 R8, [R5]",  # 0x50
    "HMMA.16816.F32.BF16 R12, R8, R6, R12",  # 0x60
    "@!P2 BRA 0xb0",  # 0x70 the mask: skipped on unmasked tiles
    "@!P3 BRA 0xa0",  # 0x80 two arms inside the mask
    "FSEL R12, R12, -INF, P4",  # 0x90 the first arm (then falls through: one instruction)
    "FSEL R13, R13, -INF, P5",  # 0xa0
    "@!P6 BRA 0x10",  # 0xb0 back edge
    "STG.E [R20.64], R12",  # 0xc0 epilogue
    "EXIT",  # 0xd0
]


def test_step_path_takes_the_prefetch_and_skips_q_and_the_mask():
    forms = step_ops(_fn(PROGRAM))
    steady, masked = forms["steady"], forms["masked"]
    # head, 2 copies, Q's branch, HMMA, mask branch, back edge
    assert steady.total() == 7
    assert steady["LDGSTS"] == 2 and steady["HMMA"] == 1 and steady["LDSM"] == 0
    # the mask adds its inner branch and its longer way (one FSEL, then the second)
    assert masked.total() == 7 + 3
    assert forms["first_ldsm"]["LDSM"] == 1


def test_cta_overhead_counts_what_runs_once_outside_the_loop():
    assert cta_overhead(_fn(PROGRAM)) == 3  # set-up, store, exit


def test_committed_counts_match_the_kernels_tiles():
    """HMMA and LDSM per warp-step, read from SASS, equal what the tile shapes imply: a
    check on the walk that fails if it took the wrong path through a loop."""
    counts = loop_counts()
    insts = [i for i in all_instances() if i.variant == "tc" and i.key in counts]
    assert len(insts) >= 80
    for i in insts:
        rw = i.block_m // i.warps
        hmma = (rw // 16) * (i.block_n // 8) * (i.head_dim // 16) * 2
        # K: d/16 x Bc/16 x4 loads; V: the same; Q re-read per tile when a warp has > 16 rows
        q = 0 if rw == 16 and i.head_dim <= 128 else (rw // 16) * (i.head_dim // 16)
        ldsm = 2 * (i.head_dim // 16) * (i.block_n // 16) + q
        c = counts[i.key]
        assert (c["hmma"], c["ldsm"]) == (hmma, ldsm), i.key
        assert c["masked"] > c["steady"] > 0 and c["cta_overhead"] > 0


@pytest.mark.skipif(find_tool("nvcc") is None or find_tool("cuobjdump") is None, reason="nvcc")
def test_committed_counts_are_what_the_compiler_gives():
    from gpusim.kernels.loop_counts import count

    inst = next(i for i in all_instances() if i.key == "tc_bf16_d128_m128_n64_w8_s2")
    assert count([inst], jobs=1)[inst.key] == loop_counts()[inst.key]


def test_the_tracer_counts_the_barriers_the_compiled_loop_has():
    from algorithms.flash2 import barriers_per_step
    from gpusim.kernels.loop_counts import loop_path

    for key in (
        "tc_bf16_d128_m128_n64_w8_s1",
        "tc_bf16_d64_m64_n64_w4_s2",
        "tc_fp16_d128_m128_n32_w4_s3",
    ):
        stages = int(key.rsplit("_s", 1)[1])
        bars = sum(i.op == "BAR" for i in loop_path(key))
        assert bars == barriers_per_step("bf16", stages), key
