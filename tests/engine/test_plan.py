"""Chunks and phases: coarsening keeps every byte and FLOP, and the pipeline's shape."""

from __future__ import annotations

import pytest

from algorithms import get_algorithm
from algorithms.program import Access, CtaProgram, Step
from algorithms.tracing import trace_classes
from gpusim.engine.chunks import chunk_size
from gpusim.engine.plan import build_plan, min_cta_phases, timing_signature
from gpusim.engine.rates import rates_for
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _program(n: int) -> CtaProgram:
    steps = [Step(False, reads=[Access("Q", 0, 0, 0, 4096)], smem_bytes=4096)]
    for j in range(n):
        steps.append(
            Step(
                True,
                reads=[Access("K", 0, 64 * j, 0, 8192), Access("V", 0, 64 * j, 0, 8192)],
                mma_flops=1 << 20,
                fp32_ops=1000 + (500 if j == n - 1 else 0),  # the last step masks
                exp_ops=4096,
                smem_bytes=20_000,
            )
        )
    steps.append(Step(False, writes=[Access("O", 0, 0, 0, 4096)], fp32_ops=64))
    return CtaProgram(steps)


@pytest.fixture(scope="module")
def rates(h200):
    return rates_for(h200, "fp16")


@pytest.mark.parametrize("k", [1, 3, 8, 40])
def test_chunks_keep_every_byte_and_every_operation(rates, k):
    prog = _program(37)
    plan = build_plan("c", 0, 0, 1, prog, {"Q": 64, "O": 64}, k, 2, rates)
    t = prog.totals()
    assert sum(c.read_bytes for c in plan.chunks) == t["read_bytes"]
    assert sum(c.write_bytes for c in plan.chunks) == t["write_bytes"]
    work = {p: sum(dict(c.work).get(p, 0.0) for c in plan.chunks) for p in ("tensor", "fp32")}
    assert work == {"tensor": t["mma_flops"], "fp32": t["fp32_ops"]}
    # Every chunk's reads are loaded exactly once over the phases, and computed exactly once.
    loaded = [0.0] * len(plan.chunks)
    computed = [0.0] * len(plan.chunks)
    for ph in plan.phases:
        for ld in ph.loads:
            loaded[ld.chunk] += ld.frac
        if ph.compute:
            computed[ph.compute[0]] += ph.compute[1]
    for c, chunk in enumerate(plan.chunks):
        if chunk.read_bytes:
            assert loaded[c] == pytest.approx(1.0)
        if chunk.work:
            assert computed[c] == pytest.approx(1.0)


def test_double_buffering_overlaps_each_compute_with_the_next_load(rates):
    plan = build_plan("c", 0, 0, 1, _program(4), {"Q": 64, "O": 64}, 1, 2, rates)
    shape = [
        (tuple(ld.chunk for ld in ph.loads), ph.compute and ph.compute[0], ph.writes)
        for ph in plan.phases
    ]
    # Q load, Q "compute" (its shared-memory store) with K/V 1's load, then compute i with
    # load i+1, the last compute alone, the epilogue, and the O write after it.
    assert shape == [
        ((0,), None, ()),
        ((), 0, ()),
        ((1,), None, ()),
        ((2,), 1, ()),
        ((3,), 2, ()),
        ((4,), 3, ()),
        ((), 4, ()),
        ((), 5, ()),
        ((), None, (5,)),
    ]


def test_one_stage_loads_v_under_the_first_product_and_the_next_k_under_the_second(rates):
    plan = build_plan("c", 0, 0, 1, _program(3), {"Q": 64, "O": 64}, 1, 1, rates)
    steps = (1, 2, 3)  # chunks 1-3: the K/V steps
    first_k = next(ph for ph in plan.phases if any(ld.chunk == 1 for ld in ph.loads))
    assert first_k.compute is None or first_k.compute[0] not in steps  # K_1 before any step
    for c in steps:
        parts = [ph for ph in plan.phases if ph.compute and ph.compute[0] == c]
        assert len(parts) == 2  # S = Q K^T and the softmax, then P V
        first, second = parts
        assert [(ld.chunk, ld.frac) for ld in first.loads] == [(c, 0.5)]  # V_c
        nxt = [(ld.chunk, ld.frac) for ld in second.loads]
        assert nxt == ([(c + 1, 0.5)] if c < 3 else [])  # K_{c+1} during P V_c
        split = plan.chunks[c].second_product_frac
        assert 0 < split < 1
        assert first.compute[1] == pytest.approx(1 - split)
        assert second.compute[1] == pytest.approx(split)


def test_one_stage_on_the_cuda_cores_loads_k_and_v_before_the_tile(h200):
    """flash2_simt.cu with STAGES = 1 waits for both tiles, then computes."""
    fp32 = rates_for(h200, "fp32")
    plan = build_plan("c", 0, 0, 1, _program(3), {"Q": 64, "O": 64}, 1, 1, fp32)
    for c in (1, 2, 3):
        (ph,) = [ph for ph in plan.phases if ph.compute and ph.compute[0] == c]
        assert ph.compute[1] == 1.0 and not ph.loads
        before = plan.phases[plan.phases.index(ph) - 1]
        assert [(ld.chunk, ld.frac) for ld in before.loads] == [(c, 1.0)]


def test_chunk_size_is_one_when_detailed_and_bounded_otherwise():
    prog = _program(2048)
    assert chunk_size([prog], detailed=True) == 1
    assert chunk_size([prog], detailed=False) == 128  # 16 chunks of the 2048-step loop


def test_a_ragged_last_block_times_like_a_full_one_but_causal_blocks_differ(h200):
    rates = rates_for(h200, "fp16")

    def signatures(w):
        k = get_algorithm("flash2").kernels(w, Schedule())[0]
        return {
            timing_signature(
                build_plan(c.key, i, c.representative_block, 1, c.program, k.own_rows, 1, 2, rates)
            )
            for i, c in enumerate(trace_classes(k))
        }

    assert len(signatures(Workload(batch=1, heads=1, seq_len_q=1000, seq_len_k=1000))) == 1
    assert (
        len(signatures(Workload(batch=1, heads=1, seq_len_q=512, seq_len_k=512, causal=True))) == 4
    )


def test_a_step_that_only_writes_still_writes(rates):
    prog = CtaProgram(
        [
            Step(True, reads=[Access("P", 0, 0, 0, 4096)], mma_flops=1 << 16),
            Step(False, writes=[Access("O", 0, 0, 0, 2048)]),
        ]
    )
    plan = build_plan("c", 0, 0, 1, prog, {"O": 64}, 1, 2, rates)
    assert [w for ph in plan.phases for w in ph.writes] == [1]


def _latency_units(plan) -> float:
    return sum(ld.latency_units for ph in plan.phases for ld in ph.loads)


@pytest.mark.parametrize("stages", [1, 2, 3])
def test_loads_into_own_buffers_are_all_in_flight_together(rates, stages):
    prog = _program(16)
    plain = build_plan("c", 0, 0, 1, prog, {"Q": 64, "O": 64}, 1, stages, rates)
    for s in prog.steps:
        s.own_buffers = s.pipelined
    kept = build_plan("c", 0, 0, 1, prog, {"Q": 64, "O": 64}, 1, stages, rates)
    # Q's load, then one latency for the whole run of 16 loads, whatever the stages.
    assert _latency_units(kept) == pytest.approx(2.0)
    assert _latency_units(plain) > 3.0


def test_the_tracer_marks_loads_used_after_their_step():
    w = Workload(batch=1, heads=1, seq_len_q=1024, seq_len_k=1024, head_dim=64, dtype="fp16")
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    kernels = get_algorithm("standard").kernels(w, s)
    for kernel in kernels:
        cls = trace_classes(kernel)[0]
        kept = [st.own_buffers for st in cls.program.steps if st.pipelined and st.reads]
        # The row softmax keeps its row on chip; the products' K/V buffers are reused.
        assert kept and all(kept) == (kernel.name == "softmax_row"), kernel.name
    flash = get_algorithm("flash2").kernels(w, s.model_copy(update={"algorithm": "flash2"}))[0]
    steps = trace_classes(flash)[0].program.steps
    assert not any(st.own_buffers for st in steps if st.pipelined)


@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("algorithm", ["flash2", "flash1", "standard"])
def test_the_phase_lower_bound_holds_for_the_detailed_plan(h200, dtype, stages, causal, algorithm):
    """simulate() skips building the detailed plans when this bound already exceeds its limit."""
    w = Workload(batch=1, heads=1, seq_len_q=320, seq_len_k=256, head_dim=64, dtype=dtype,
                 causal=causal)  # fmt: skip
    s = Schedule(block_m=64, block_n=64, warps=4, stages=stages)
    r = rates_for(h200, dtype)
    bounds = []
    for kernel in get_algorithm(algorithm).kernels(w, s):
        for c in trace_classes(kernel):
            plan = build_plan(c.key, 0, c.representative_block, 1, c.program,
                              kernel.own_rows, 1, stages, r)  # fmt: skip
            bounds.append(min_cta_phases(c.program))
            assert bounds[-1] <= len(plan.phases)
            assert bounds[-1] >= len(plan.phases) / 4  # (and not vacuous)
    assert max(bounds) > 0
