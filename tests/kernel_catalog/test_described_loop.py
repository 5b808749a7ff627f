"""The described loop: the instructions instruction_mix counts, real dependences, a replay."""

from __future__ import annotations

from collections import Counter

import pytest

from gpusim.engine.core_model import CoreTiming, step_cycles
from gpusim.instruction_mix import StepShape, step_mix
from gpusim.kernel_catalog import list_schedule
from gpusim.kernel_catalog.described_loop import described_path, described_step
from gpusim.kernel_class import KernelClass

#: nominal sass_core_cycles (the H200's, rounded): no profile file read
CYCLES = {"hmma_pipe": 6.0, "hmma_accumulate": 24.0, "hmma_result": 28.9, "ldsm_latency": 32.3,
          "shfl_latency": 24.0, "shfl_pipe": 4.1, "mufu_latency": 17.0, "mufu_pipe": 7.8,
          "alu_pipe": 2.07, "fma_pipe": 1.1, "imad_pipe": 1.97, "barrier_4_warps": 20.3,
          "barrier_8_warps": 28.3}  # fmt: skip
SHAPES = [(128, 128, 64, 8, 2), (64, 64, 64, 4, 3), (128, 64, 32, 4, 1), (32, 128, 128, 4, 2)]
FLOAT = ("HMMA", "LDSM", "MUFU", "SHFL", "FMNMX", "FFMA", "FADD", "F2FP", "FSETP", "FSEL",
         "LDGSTS")  # fmt: skip


def _step(d, m, n, w, s):
    return described_step("bf16", d, m, n, w, s, cycles=CYCLES)


@pytest.mark.parametrize(("d", "m", "n", "w", "s"), SHAPES)
def test_counts_are_the_formulas(d, m, n, w, s):
    got = Counter(i.op for i in _step(d, m, n, w, s).path)
    mix = step_mix(KernelClass(product="mma"), StepShape(m / w, n, d, w, s, 2, n))
    for op in FLOAT:
        assert got[op] == pytest.approx(mix.get(op, 0.0)), op
    # the O rescale, and m_i carried by an IMAD.MOV (one a row: not in the formulas)
    rows = m / w / 8
    assert got["FMUL"] == mix["FMUL"]
    assert got["IMAD"] >= rows
    assert got["BAR"] == mix["BAR"]


@pytest.mark.parametrize(("d", "m", "n", "w", "s"), SHAPES)
def test_dependences_are_real(d, m, n, w, s):
    step = _step(d, m, n, w, s)
    assert all(a < b for a, b in step.edges)  # the issue order is a topological order
    written: set[int] = set()
    for ins in step.path:
        assert all(r in written or r in step.carried for r in ins.src)
        written |= set(ins.dst)
    # O's accumulators are carried: the P V HMMAs read them
    hmma_acc = {r for i in step.path if i.op == "HMMA" for r in i.src if r in i.dst}
    assert hmma_acc & step.carried


def test_control_codes():
    path = _step(64, 64, 64, 4, 2).path
    assert all(1 <= i.stall <= list_schedule.MAX_STALL for i in path)
    assert path[-1].op == "BRA"
    producers = [i for i in path if i.wbar != 7]
    assert producers and all(i.op in list_schedule.VARIABLE for i in producers)
    assert any(i.wait for i in path if i.op == "HMMA")  # ldmatrix results on scoreboards


def test_replay_runs():
    path = described_path("fp16", 64, 64, 64, 4, 2, cycles=CYCLES)
    t = CoreTiming.from_cycles(CYCLES, 128.0, 4)
    one, two = step_cycles(path, 1, 4, t), step_cycles(path, 2, 4, t)
    assert 0 < one < two < 2.5 * one
