"""One decoded SASS instruction, as the committed loop paths store it and the core model
replays it."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Instr:
    """One decoded SASS instruction of a loop path."""

    op: str  # the opcode's base name (HMMA, LDSM, FMNMX, ...)
    stall: int  # cycles before the warp's next instruction may issue (control code)
    wbar: int  # scoreboard this instruction's result releases (7: none)
    rbar: int  # scoreboard released when its operands are read (7: none)
    wait: int  # mask of scoreboards it waits on
    dst: tuple[int, ...] = ()  # registers written (HMMA: its accumulator)
    src: tuple[int, ...] = ()  # registers read

    def row(self) -> list:
        """The JSON row the committed loop paths hold: [op, stall, wbar, rbar, wait, dst, src]."""
        head = [self.op, self.stall, self.wbar, self.rbar, self.wait]
        return [*head, list(self.dst), list(self.src)]

    @classmethod
    def from_row(cls, r: list) -> Instr:
        """Inverse of :meth:`row`."""
        op, stall, wbar, rbar, wait, dst, src = r
        return cls(op, stall, wbar, rbar, wait, tuple(dst), tuple(src))


_REG = re.compile(r"(?<![A-Z_])R(\d+)")


def registers(operands: str, width: int = 1) -> tuple[int, ...]:
    """Register numbers named in ``operands`` (each widened to ``width`` consecutive)."""
    return tuple(int(m) + k for m in _REG.findall(operands) for k in range(width))
