"""SASS instructions as the SM core model reads them: opcode, control bits, registers.

sm_70 and later encode, beside each instruction, how many cycles the warp waits before its
next one (the stall count), which scoreboard its result or its operand read releases, and
which scoreboards it waits on; :func:`decode` reads those from the instruction's second
64-bit word as ``cuobjdump -sass`` prints it, and the registers from its operands.
"""

from __future__ import annotations

import re

from gpusim.kernel_catalog.sass_loop import _GUARD, step_path

_SASS_WITH_CONTROL = re.compile(
    r"/\*([0-9a-f]{4,})\*/\s+([^;]*);\s*/\* 0x[0-9a-f]{16} \*/\s*\n\s*/\* 0x([0-9a-f]{16}) \*/"
)
#: Opcodes that write no general register through their first operand.
_NO_DEST = ("ST", "STS", "STG", "STL", "BAR", "BRA", "DEPBAR", "LDGDEPBAR", "LDGSTS", "EXIT",
            "NOP", "BSSY", "BSYNC", "WARPSYNC", "RET", "CALL")  # fmt: skip


def control(high_word: int) -> tuple[int, int, int, int]:
    """(stall, write barrier, read barrier, wait mask) of an sm_70+ instruction's control
    bits (bits 105-121 of the 128-bit word: 4 stall, 1 yield, 3 + 3 barrier indices, 6 wait)."""
    c = high_word >> 41
    return c & 0xF, (c >> 5) & 7, (c >> 8) & 7, (c >> 11) & 0x3F


def decode(text: str, high_word: int):
    """One instruction as :class:`gpusim.kernel_catalog.sass_instr.Instr`."""
    from gpusim.kernel_catalog.sass_instr import Instr, registers

    body = _GUARD.sub("", text).strip()
    head, _, rest = body.partition(" ")
    op = head.split(".")[0]
    parts = [p.strip() for p in rest.split(",")]
    stall, wbar, rbar, wait = control(high_word)
    if op == "HMMA":  # D, A, B, C: an f32 accumulator holds 4 registers, f16 2
        acc = 4 if ".F32" in head else 2
        dst = registers(parts[0], acc)
        src = registers(parts[1], 4) + registers(parts[2], 2) + registers(parts[3], acc)
        return Instr(op, stall, wbar, rbar, wait, dst, src)
    writes = op not in _NO_DEST and parts and parts[0].startswith("R")
    dst = registers(parts[0]) if writes else ()
    src = registers(",".join(parts[1:] if writes else parts))
    return Instr(op, stall, wbar, rbar, wait, dst, src)


def decoded(sass_text: str) -> dict:
    """Every instruction of one function's ``cuobjdump -sass`` text, decoded, by address."""
    return {
        int(a, 16): decode(t.strip(), int(hi, 16))
        for a, t, hi in _SASS_WITH_CONTROL.findall(sass_text)
    }


def core_path(sass_text: str, masked: bool = False) -> list:
    """The decoded instructions of one step of the function's main loop (cuobjdump -sass text
    of one function, with its control words)."""
    by_addr = decoded(sass_text)
    return [by_addr[a] for a in step_path(sass_text, masked)]
