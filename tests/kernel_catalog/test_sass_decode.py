"""Control bits and registers of SASS instructions (:mod:`gpusim.kernel_catalog.sass_decode`)."""

from __future__ import annotations

from gpusim.kernel_catalog.sass_decode import decode


def test_decode_reads_the_control_bits_and_the_registers():
    high = (2 | 1 << 5 | 7 << 8 | 0b100 << 11) << 41  # stall 2, write barrier 1, wait on 2
    i = decode("SHFL.BFLY PT, R22, R21, 0x1, 0x1f", high)
    assert (i.op, i.stall, i.wbar, i.rbar, i.wait) == ("SHFL", 2, 1, 7, 0b100)
    assert i.src == (22, 21)  # PT first: no register written through it
    h = decode("HMMA.16816.F32.BF16 R24, R4, R8, R24", 1 << 41)
    assert h.dst == (24, 25, 26, 27) and h.src[:4] == (4, 5, 6, 7) and 9 in h.src
    f = decode("@P0 FMNMX R21, R157, R156, !PT", 1 << 41)
    assert f.dst == (21,) and f.src == (157, 156)
