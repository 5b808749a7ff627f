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


# An outer loop over tiles (back edge at 0x70) around the step loop (back edge at 0x50), as
# PyTorch's FlashAttention-2 backward walks K/V blocks around its query-block loop.
NESTED = [
    "IMAD.MOV R1, RZ, RZ, R2",  # 0x00 set-up
    "CS2R R12, SRZ",  # 0x10 outer body: clear the tile's accumulators
    "LDSM.16.M88.4 R8, [R5]",  # 0x20 inner loop head
    "HMMA.16816.F32.BF16 R12, R8, R6, R12",  # 0x30
    "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU [R20.64], R12",  # 0x40
    "@!P0 BRA 0x20",  # 0x50 inner back edge
    "STG.E [R22.64], R12",  # 0x60 the tile's epilogue
    "@!P1 BRA 0x10",  # 0x70 outer back edge
    "EXIT",  # 0x80
]


def test_the_step_loop_is_the_inner_loop_that_holds_every_product():
    from gpusim.kernel_catalog.sass_loop import main_loop, parse

    assert main_loop(parse(_fn(NESTED))) == (0x20, 0x50)
    steady = step_ops(_fn(NESTED))["steady"]
    assert steady["HMMA"] == 1 and steady["STG"] == 0 and steady["CS2R"] == 0


def test_an_outer_loop_with_products_of_its_own_stays_the_loop():
    # products outside the inner loop: the inner loop is not the whole step
    prog = [*NESTED[:6], "HMMA.16816.F32.BF16 R16, R8, R6, R16", *NESTED[7:]]
    from gpusim.kernel_catalog.sass_loop import main_loop, parse

    assert main_loop(parse(_fn(prog))) == (0x10, 0x70)
