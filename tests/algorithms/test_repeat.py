"""Compressed loops (``tm.repeat``): traced programs are the step-by-step ones, counted out."""

from __future__ import annotations

import pytest

from algorithms import get_algorithm
from algorithms.program import Access, CtaProgram, Step
from algorithms.tile_machine import TileMachine
from algorithms.tracing import TracingMachine, program_for, trace_classes
from gpusim.counting import count
from gpusim.schedule import Schedule
from gpusim.workload import Workload


class StepByStep(TracingMachine):
    """The tracer with every loop traced step by step (the base machine's ``repeat``)."""

    def repeat(self, iterations):
        return TileMachine.repeat(self, iterations)


def _programs(machine, kernel, bh, block) -> CtaProgram:
    tm = machine(kernel)
    kernel.body(tm, bh, block)
    return tm.program()


SHAPES = [(1000, 1300), (1300, 700), (1, 777), (640, 640)]


@pytest.mark.parametrize(
    "algorithm", ["flash2", "flash1", "standard", "softmax-online", "softmax-3pass"]
)
@pytest.mark.parametrize(("nq", "nk"), SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_compressed_programs_count_out_to_the_step_by_step_trace(algorithm, nq, nk, causal):
    w = Workload(batch=1, heads=2, seq_len_q=nq, seq_len_k=nk, causal=causal)
    compressed = 0
    for bm, bn, stages in [(64, 64, 2), (128, 64, 1), (64, 32, 2)]:
        s = Schedule(block_m=bm, block_n=bn, stages=stages)
        for kernel in get_algorithm(algorithm).kernels(w, s):
            n = kernel.blocks_per_bh()  # (a row softmax has a CTA per query: a sample)
            for block in sorted({*range(0, n, max(1, n // 24)), n - 1}):
                fast = _programs(TracingMachine, kernel, 1, block)
                slow = _programs(StepByStep, kernel, 1, block)
                assert fast.expanded() == slow
                assert fast.totals() == slow.totals()
                assert fast.bytes_by_tensor() == slow.bytes_by_tensor()
                assert fast.step_count == len(slow.steps)
                compressed += len(fast.steps) < len(slow.steps)
    assert compressed > 0 or nq == 1  # the loops were compressed (one query: none is long)


def test_a_long_causal_row_is_a_handful_of_steps_and_counts_exactly():
    # 131072 tokens, one head: 1024 Q blocks, up to 1024 K/V steps each (half a million
    # steps), each traced in a few steps; executed FLOPs are 4 Br Bc d per visited tile.
    n, br, bc, d = 131072, 128, 128, 64
    w = Workload(batch=1, heads=1, seq_len_q=n, seq_len_k=n, head_dim=d, causal=True)
    s = Schedule(block_m=br, block_n=bc)
    kernel = get_algorithm("flash2").kernels(w, s)[0]
    classes = trace_classes(kernel)
    assert max(len(c.program.steps) for c in classes) <= 8
    tiles = sum(st.repeat for c in classes for st in c.program.steps if st.mma_flops)
    assert tiles == sum(i + 1 for i in range(n // br))
    c = count("flash2", w, s)
    assert c.executed_mma_flops == 4 * br * bc * d * tiles
    assert c.bytes_by_tensor["K"]["read_bytes"] == tiles * bc * d * w.elem_bytes


def test_a_loop_that_is_not_alike_is_refused():
    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=64 * 8)
    kernel = get_algorithm("flash2").kernels(w, Schedule(block_m=64, block_n=64))[0]
    tm = TracingMachine(kernel)
    with pytest.raises(ValueError, match="not one step moved"):
        q = tm.load("Q", 0, 0, 64)
        for j in tm.repeat(range(8)):
            with tm.step():
                k = tm.load("K", 0, j * j * 64, 64)  # rows move by a growing amount
                tm.matmul(q, k, transpose_b=True)


def test_grouped_heads_relabel_k_and_v_through_the_kv_head():
    w = Workload(batch=2, heads=4, heads_kv=2, seq_len_q=256, seq_len_k=256)
    kernel = get_algorithm("flash2").kernels(w, Schedule(block_m=64, block_n=64))[0]
    cls = trace_classes(kernel)[0]
    for bh in range(w.batch_heads):
        prog = program_for(kernel, cls, bh, cls.representative_block)
        for st in prog.steps:
            for a in st.reads + st.writes:
                assert a.bh == (w.kv_bh(bh) if a.tensor in ("K", "V") else bh)


def test_a_repeated_step_moves_its_rows_and_columns_per_repetition():
    s = Step(
        pipelined=True,
        reads=[Access("K", 0, 128, 0, 10), Access("P", 0, 0, 64, 5)],
        mma_flops=7,
        repeat=3,
        strides=(("K", -64, 0), ("P", 0, 32)),
    )
    reps = CtaProgram([s]).expanded().steps
    assert [st.reads[0].row0 for st in reps] == [128, 64, 0]
    assert [st.reads[1].col0 for st in reps] == [64, 96, 128]
    assert CtaProgram([s]).totals()["mma_flops"] == 21


@pytest.mark.parametrize(("algorithm", "passes"), [("softmax-online", 2), ("softmax-3pass", 3)])
def test_a_streamed_softmax_counts_a_long_causal_row(algorithm, passes):
    # 131072 causal tokens: each row block's passes over S are a few traced steps (before
    # they were compressed, the tracer refused past 200,000 steps). Each pass reads every
    # tile the scores kernel wrote; the last writes P as large.
    n = 131072
    w = Workload(batch=1, heads=1, seq_len_q=n, seq_len_k=n, head_dim=64, causal=True)
    scores, softmax, pv = count(algorithm, w, Schedule(block_m=128, block_n=128)).kernels
    s_bytes = scores.bytes_by_tensor["S"]["write_bytes"]
    t = n // 128
    assert s_bytes == 2 * 128 * 128 * t * (t + 1) // 2  # fp16, the visible tiles
    assert softmax.bytes_by_tensor["S"]["read_bytes"] == passes * s_bytes
    assert softmax.bytes_by_tensor["P"]["write_bytes"] == s_bytes
    assert pv.bytes_by_tensor["P"]["read_bytes"] == s_bytes
