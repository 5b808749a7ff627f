"""The cut of grids out of lockstep (scatter_skip.py) against running them to their end."""

from __future__ import annotations

import pytest

from gpusim.engine import scatter_skip, simulate
from gpusim.profiles import load_profile
from gpusim.profiles.schema import SourcedFraction
from gpusim.schedule import Schedule
from gpusim.workload import Workload

S64W8 = Schedule(block_m=64, block_n=64, warps=8, stages=2)
#: 8192 CTAs, 31 waves on the H200: the cut leaves out 12 of them.
FP32 = Workload(batch=8, heads=32, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="fp32")
#: Split-KV decoding with GQA (four query heads read one K/V head): 31.5 waves.
DECODE = Workload(batch=16, heads=32, heads_kv=8, seq_len_q=1, seq_len_k=65536, head_dim=128,
                  dtype="bf16")  # fmt: skip
DECODE_S = Schedule(block_m=64, block_n=64, warps=4, stages=2, kv_splits=16)


def _both(algorithm, w, s, profile, monkeypatch):
    cut = simulate(algorithm, w, s, profile, detail="aggregated")
    monkeypatch.setattr(scatter_skip, "ENABLED", False)
    full = simulate(algorithm, w, s, profile, detail="aggregated")
    monkeypatch.setattr(scatter_skip, "ENABLED", True)
    return cut, full


def _agree(cut, full):
    """Within the module's claim: 1 % in runtime, 0.1 % in DRAM bytes, work exact."""
    assert cut.runtime_s == pytest.approx(full.runtime_s, rel=0.01)
    assert cut.dram_read_bytes == pytest.approx(full.dram_read_bytes, rel=1e-3)
    assert cut.dram_write_bytes == pytest.approx(full.dram_write_bytes, rel=1e-3)
    c, f = cut.counters, full.counters
    for name in ("ctas", "mma_flops", "fp32_ops", "exp_ops", "smem_traffic_bytes", "barriers",
                 "smem_fill_bytes", "global_read_bytes", "global_write_bytes"):  # fmt: skip
        assert getattr(c, name) == getattr(f, name), name


@pytest.mark.parametrize(
    ("algorithm", "w", "s"), [("flash2", FP32, S64W8), ("flash2", DECODE, DECODE_S)]
)
def test_the_cut_agrees_with_the_whole_run(algorithm, w, s, monkeypatch):
    h200 = load_profile("h200-sxm")
    assert h200.cta_duration_scatter is not None  # the scatter that puts grids out of lockstep
    cut, full = _both(algorithm, w, s, h200, monkeypatch)
    assert sum(k.waves_extrapolated for k in cut.kernels) >= 5  # it did cut
    assert sum(k.waves_extrapolated for k in full.kernels) == 0
    assert cut.events < 0.8 * full.events
    _agree(cut, full)
    assert [k.ctas for k in cut.kernels] == [k.ctas for k in full.kernels]


def test_the_cut_on_another_gpu_with_scatter(monkeypatch):
    """The A100 profile has no measured scatter: given the H200's, its grids cut too."""
    base = load_profile("a100-sxm4-80gb")
    entry = SourcedFraction(value=0.0126, source="test: the H200's scatter on the A100")
    a100 = base.model_copy(update={"cta_duration_scatter": entry})
    cut, full = _both("flash2", FP32, S64W8, a100, monkeypatch)
    assert sum(k.waves_extrapolated for k in cut.kernels) > 0
    _agree(cut, full)


def test_short_grids_and_lockstep_grids_run_out(monkeypatch):
    # Under MIN_GRID_WAVES waves: simulated whole, the same to the bit.
    w = FP32.model_copy(update={"batch": 4})  # 15.5 waves
    cut, full = _both("flash2", w, S64W8, load_profile("h200-sxm"), monkeypatch)
    assert cut.runtime_s == full.runtime_s and cut.counters == full.counters
    # No scatter (the A100 as shipped): the GPU frees at once and the exact skip applies.
    cut, full = _both("flash2", FP32, S64W8, load_profile("a100-sxm4-80gb"), monkeypatch)
    assert cut.runtime_s == full.runtime_s and cut.counters == full.counters


def test_a_period_is_whole_batch_heads_and_gqa_groups():
    class Run:  # what period_ctas reads
        kv_group = 4

        class grid:  # a stand-in for the Grid
            blocks_per_bh = 16
            lump_end = 0
            lump_by_bh = True

    assert scatter_skip.period_ctas(Run) == 64
    Run.grid.lump_end = 100  # a lumped grid alternates its classes by batch-head parity
    assert scatter_skip.period_ctas(Run) == 128


def test_a_streaming_kernel_the_dram_does_not_bind_is_cut_too(monkeypatch):
    """Standard attention's row softmax streams (every CTA its own rows) but on 8 SMs the
    DRAM is not kept busy, so the stream skip never jumps; the cut takes over after a tenth
    of the grid (here on a grid short enough to run out, the wave floor lowered)."""
    from gpusim.engine import kernel_run
    from gpusim.profiles.sm_count import with_sm_count

    monkeypatch.setattr(kernel_run, "STREAM_CUT_MIN_WAVES", 30)
    eight = with_sm_count(load_profile("h200-sxm"), 8)
    w = Workload(batch=1, heads=16, seq_len_q=1024, seq_len_k=1024, head_dim=64, dtype="fp16")
    s = Schedule(block_m=128, block_n=128, warps=4, stages=2)
    cut, full = _both("standard", w, s, eight, monkeypatch)
    softmax = {k.name: k for k in cut.kernels}["softmax_row"]
    assert softmax.waves > 200 and softmax.waves_extrapolated > 0.25 * softmax.waves
    assert cut.runtime_s == pytest.approx(full.runtime_s, rel=0.01)
    # S (32 MB here) partly still in the L2 from the products' kernel: the DRAM share drifts
    # on a grid this small (0.13 %); on the benchmark's 2-GB rows, 0.001 %
    assert cut.dram_read_bytes == pytest.approx(full.dram_read_bytes, rel=5e-3)
    assert cut.counters.global_read_bytes == full.counters.global_read_bytes
    assert cut.counters.ctas == full.counters.ctas
