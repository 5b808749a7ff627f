"""The main-loop walk of :mod:`gpusim.kernel_catalog.sass_loop` on a hand-written loop."""

from __future__ import annotations

from gpusim.kernel_catalog.sass_loop import cta_overhead, step_ops


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
