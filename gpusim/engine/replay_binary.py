"""The SM core model on a kernel read from a binary (``--cubin FILE --kernel NAME``).

What :func:`gpusim.engine.prepare.core_efficiency` does for the project's committed loops,
for a loop read from any binary (:mod:`gpusim.kernel_catalog.binary_sass`): the core model
replays one pass of the loop on every resident warp (the profile's ``sass_core_cycles``),
and the pass is mapped onto the algorithm's tile steps by its tensor-core products: the
algorithm's steady step does ``mma_flops`` per CTA, so one m16n8k16 HMMA per warp stands
for 2*16*8*16 of them, and a pass must do exactly the step's HMMA per warp. Any other count
is refused: the tile traits given do not describe this binary (a pass of twice the step's
products could be a loop unrolled twice or a tile twice as large, and the HMMA count cannot
tell which, so it is not guessed). The step efficiency is then the pipe model's time
for the steady step at full rates over the core model's cycles, as for the project's loops.
"""

from __future__ import annotations

import functools

from gpusim.engine.clock import TICKS_PER_S
from gpusim.engine.core_model import CoreTiming, resident_step_cycles
from gpusim.engine.plan import step_work
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.binary_sass import HMMA_16816_FLOPS, BinaryLoop


def steps_per_pass(loop: BinaryLoop, mma_flops_per_step: int, warps: int) -> int:
    """How many of the algorithm's tile steps one pass of the binary's loop is."""
    per_warp = mma_flops_per_step / HMMA_16816_FLOPS / warps
    if per_warp <= 0 or loop.hmma != per_warp:
        raise GpusimError(
            f"{loop.label()[:120]}: its loop does {loop.hmma} HMMA per warp, the schedule's "
            f"tile step {per_warp:g} ({warps} warps): the tile traits given do not describe "
            "this binary's loop"
        )
    return 1


@functools.cache
def _pass_cycles(loop: BinaryLoop, ctas: int, warps: int, cycles: tuple, bw: float, sch: int):
    timing = CoreTiming.from_cycles(dict(cycles), bw, sch)
    return resident_step_cycles(list(loop.path), ctas, warps, timing)


def binary_step_cycles(loop: BinaryLoop, profile, ctas: int, warps: int) -> float:
    """Core-model cycles of one pass of the loop on every resident CTA (``ctas`` per SM)."""
    c = profile.sass_core_cycles
    if c is None:
        raise GpusimError(
            f"profile {profile.name} has no sass_core_cycles: it cannot replay a binary's "
            "loop (use a profile with them, e.g. h200-sxm-core)"
        )
    return _pass_cycles(
        loop, ctas, warps, tuple(sorted(c.value.items())),
        profile.smem_bandwidth_bytes_per_clk_per_sm.value, profile.warp_schedulers_per_sm.value,
    )  # fmt: skip


def binary_core_efficiency(loop: BinaryLoop, profile, step, rates, ctas: int, warps: int):
    """(step efficiency, steps per loop pass) of the binary's loop for the algorithm's
    steady tile ``step`` (:func:`gpusim.engine.prepare.steady_step`)."""
    if ctas < 1:
        raise GpusimError(f"{loop.label()[:120]}: no CTA fits on an SM; nothing to replay")
    k = steps_per_pass(loop, step.mma_flops, warps)
    cycles = binary_step_cycles(loop, profile, ctas, warps) / k
    full = rates.step_ticks(step_work(step, rates)) * ctas
    return full / (cycles / rates.clock_hz * TICKS_PER_S), k
