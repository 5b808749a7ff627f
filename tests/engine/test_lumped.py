"""Lumped causal grids (lumped.py) against the detailed simulation, and what is still refused.

A 16-SM H200 (L2 and bandwidths in proportion) with 128x64 tiles at d128: one CTA per SM,
grids of 12 to 25 waves, so the aggregated path lumps them (``LUMP_MIN_WAVES``) and the
detailed one stays cheap.
"""

from __future__ import annotations

import pytest

from gpusim.counting import count
from gpusim.engine import prepare, simulate
from gpusim.engine.lumped import LumpedGroup
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload
from tests.engine.conftest import inputs, small_gpu

TILES = Schedule(block_m=128, block_n=64, warps=8, stages=2)


@pytest.fixture(scope="module")
def gpu16(h200):
    return small_gpu(h200, 16)


@pytest.fixture(autouse=True)
def lump_small_grids(monkeypatch):
    """Lump grids of a few hundred CTAs too (the engine lumps from 10,000 on)."""
    monkeypatch.setattr(prepare, "LUMP_MIN_CTAS", 0)


@pytest.mark.parametrize(
    ("batch", "heads", "nq", "nk"),
    [
        (1, 16, 2000, 2000),  # ragged last Q block and K/V tile
        (1, 24, 1500, 1800),  # fewer queries than keys (bottom-right diagonal), ragged
        (1, 24, 1800, 1500),  # more queries than keys: the first rows see no key
        (1, 4, 6000, 6000),  # batch-heads of three waves each
        (2, 8, 3100, 3100),  # two batches, ragged
    ],
)
def test_lumped_causal_grids_agree_with_the_detailed_simulation(gpu16, batch, heads, nq, nk):
    w = Workload(batch=batch, heads=heads, seq_len_q=nq, seq_len_k=nk, causal=True, dtype="bf16")
    full = simulate("flash2", w, TILES, gpu16, detail="full")
    agg = simulate("flash2", w, TILES, gpu16, detail="aggregated")
    (k,) = agg.kernels
    assert k.groups < 0.75 * k.ctas  # lumped: fewer groups than CTAs
    assert agg.runtime_s == pytest.approx(full.runtime_s, rel=0.01)
    assert agg.dram_read_bytes == pytest.approx(full.dram_read_bytes, rel=0.01)
    assert agg.dram_write_bytes == pytest.approx(full.dram_write_bytes, rel=0.01)
    # Work and SM-to-L2 bytes are each CTA's own, summed: exact.
    for key in ("global_read_bytes", "global_write_bytes", "mma_flops", "exp_ops", "ctas"):
        assert getattr(agg.counters, key) == getattr(full.counters, key), key


def test_a_lumped_group_runs_at_its_members_mean_pace(gpu16, monkeypatch):
    seen = []
    init = LumpedGroup.__init__

    def spy(self, *args):
        init(self, *args)
        plans = self.run.plans
        members = self.bh_runs()
        mean = sum(n * plans[c].compute_ticks for _b, _f, n, c in members) / self.members
        seen.append((mean, self.plan.compute_ticks * self.work_scale, len(members)))

    monkeypatch.setattr(LumpedGroup, "__init__", spy)
    w = Workload(batch=1, heads=4, seq_len_q=6000, seq_len_k=6000, causal=True, dtype="bf16")
    simulate("flash2", w, TILES, gpu16)
    assert any(n > 1 for _m, _p, n in seen)
    for mean, paced, _n in seen:
        assert paced == pytest.approx(mean, rel=1e-12)


def test_short_causal_grids_run_their_ctas_one_by_one(gpu16):
    # Four waves: the order in which single CTAs end decides the time, and it is cheap.
    w = Workload(batch=1, heads=4, seq_len_q=2000, seq_len_k=2000, causal=True, dtype="bf16")
    (k,) = simulate("flash2", w, TILES, gpu16, detail="aggregated").kernels
    assert k.groups == k.ctas


def test_what_is_still_past_the_limits_is_refused_in_one_line(h200, monkeypatch):
    from gpusim import counting

    # The tracer still runs a few steps of every Q block: a step budget (tiny blocks at a
    # million tokens would pass it), here lowered so that the refusal is quick to reach.
    monkeypatch.setattr(counting, "MAX_TRACED_STEPS", 500)
    w = Workload(batch=1, heads=1, seq_len_q=65536, seq_len_k=65536, causal=True)
    with pytest.raises(GpusimError, match="tile steps; use larger blocks") as e:
        count("flash2", w, Schedule(block_m=64, block_n=64))
    assert "\n" not in str(e.value)
    monkeypatch.undo()
    # The detailed path counts its CTA-phases before it starts.
    w = Workload(batch=1, heads=128, seq_len_q=16384, seq_len_k=16384, causal=True, dtype="bf16")
    with pytest.raises(GpusimError, match="detailed simulation would run"):
        simulate("flash2", w, TILES, h200, detail="full")
    # Without lumping, a causal grid's CTAs run one by one, within a limit.
    w, s = inputs("standard", batch=8, heads=32, seq_len=2048, causal=True)
    with pytest.raises(GpusimError, match="CTA-phases, limit") as e:
        simulate("standard", w, s, h200, extrapolate=False)
    assert "\n" not in str(e.value)


def test_many_ctas_of_a_few_classes_are_lumped_and_agree(gpu16, monkeypatch):
    # Standard attention's causal row softmax: a CTA a row, 8 timing classes (row blocks of
    # 125 rows at N1000). Past LUMP_FEW_CLASSES_CTAS (100,000; here lowered to 4,000 for
    # this grid's 8,000) its CTAs are lumped, and stay within 1 % of the detailed path.
    w, s = inputs("standard", batch=2, heads=4, seq_len=1000, causal=True)
    lumps = []
    init = LumpedGroup.__init__

    def spy(self, *args):
        init(self, *args)
        lumps.append(self.members)

    monkeypatch.setattr(LumpedGroup, "__init__", spy)

    def row(r):
        return next(k for k in r.kernels if k.name == "softmax_row")

    full = row(simulate("standard", w, s, gpu16, detail="full"))
    row(simulate("standard", w, s, gpu16))
    assert not lumps  # 8 classes and fewer CTAs than the threshold: one by one
    monkeypatch.setattr(prepare, "LUMP_FEW_CLASSES_CTAS", 4000)
    lumped = row(simulate("standard", w, s, gpu16))
    assert max(lumps) > 1
    assert lumped.duration_s == pytest.approx(full.duration_s, rel=0.01)
