"""A decoded instruction and its committed JSON row."""

from gpusim.kernel_catalog.sass_instr import Instr, registers


def test_a_row_round_trips():
    ins = Instr("HMMA", 2, 7, 7, 1, (4, 5, 6, 7), (10, 11))
    assert Instr.from_row(ins.row()) == ins


def test_registers_widen_and_skip_other_names():
    assert registers("R4, UR6, R10") == (4, 10)
    assert registers("R8", width=2) == (8, 9)
