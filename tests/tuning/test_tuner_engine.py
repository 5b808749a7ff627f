"""The tuner on the real engine (small workloads, aggregated path)."""

import json

import pytest

from gpusim.tuning.tune_many import TuneTask, tune_many
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

SMALL = Workload(batch=1, heads=4, seq_len_q=512, seq_len_k=512, head_dim=64, dtype="fp16")
SMALL_CAUSAL = Workload(
    batch=1, heads=1, seq_len_q=256, seq_len_k=256, head_dim=128, dtype="bf16", causal=True
)


@pytest.fixture(scope="module")
def small_result():
    """SMALL tuned on two processes; test_parallel_search_and_sweep_match_serial compares it
    with the serial search (one search of SMALL fewer)."""
    from gpusim.profiles.loader import load_profile

    return tune("flash2", SMALL, load_profile("h200-sxm-datasheet"), jobs=2)


def test_ranked_by_predicted_runtime_with_engine_counters(small_result):
    r = small_result
    times = [c.runtime_s for c in r.candidates]
    assert times == sorted(times) and times[0] > 0
    for c in r.candidates:
        assert c.ctas_per_sm >= 1 and c.bound
        # Everything is read at least once from the memory system.
        assert c.l2_bytes >= SMALL.qkvo_bytes()
    json.dumps(r.to_dict(), allow_nan=False)


def test_rules_pick_ranked_candidates(small_result):
    r = small_result
    ranked = {c.schedule: c.runtime_s for c in r.candidates}
    for p in r.rules:
        assert ranked[p.schedule] == p.runtime_s
        assert p.slower_than_best == pytest.approx(p.runtime_s / r.best.runtime_s - 1)


# More SRAM never making the best schedule slower: tests/robustness/test_physics.py
# (test_larger_sram_never_makes_the_best_schedule_slower, every algorithm and profile).


def test_parallel_search_and_sweep_match_serial(h200, small_result):
    one = tune("flash2", SMALL, h200, jobs=1)
    two = small_result  # tune("flash2", SMALL, h200, jobs=2): h200 is h200-sxm-datasheet
    assert [c.to_dict() for c in one.candidates] == [c.to_dict() for c in two.candidates]
    tasks = [TuneTask("flash2", SMALL, h200), TuneTask("flash2", SMALL, h200, 48 * 1024)]
    serial, par = tune_many(tasks, jobs=1), tune_many(tasks, jobs=2)
    assert [r.best.to_dict() for r in serial] == [r.best.to_dict() for r in par]
    assert serial[1].sram_bytes == 48 * 1024


def test_a_launch_with_fewer_ctas_per_sm_wins_where_the_last_wave_is_worse():
    """h200-sxm, flash-naive-qkv, B2 H3 N256 d64: 10 CTAs/SM fit, 9 are faster."""
    from gpusim.profiles.loader import load_profile

    w = Workload(batch=2, heads=3, seq_len_q=256, seq_len_k=256, head_dim=64)
    h200 = load_profile("h200-sxm-datasheet")
    small = tune("flash-naive-qkv", w, h200, 64 * 1024, jobs=1)
    large = tune("flash-naive-qkv", w, h200, None, jobs=1)
    full_only = tune("flash-naive-qkv", w, h200, None, jobs=1, caps=False)
    best = large.best
    assert best.smem_per_sm_budget_bytes is not None
    assert best.ctas_per_sm < best.ctas_per_sm_max
    assert best.runtime_s < full_only.best.runtime_s
    assert large.best.runtime_s <= small.best.runtime_s
    row = json.loads(json.dumps(large.to_dict()))["candidates"][0]
    assert row["ctas_per_sm"] == best.ctas_per_sm and row["smem_per_sm_budget_bytes"] > 0


def test_schedules_the_engine_refuses_are_rejected_with_its_reason_and_the_rest_ranked(
    monkeypatch,
):
    from gpusim.engine import wave_budget
    from gpusim.errors import GpusimError
    from gpusim.profiles.loader import load_profile

    w = Workload(batch=4, heads=16, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    p = load_profile("h200-sxm")
    whole = tune("flash2", w, p, jobs=1)
    # A budget of 5 waves: the tiles of one CTA per SM (8 waves and more) are past it.
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 5)
    r = tune("flash2", w, p, jobs=1)
    refused = [x for x in r.rejected if "the model refuses it" in x.reason]
    assert refused and r.candidates
    assert len(refused) + len(r.candidates) == len(whole.candidates)
    assert all("waves of CTAs" in x.reason for x in refused)
    kept = {c.schedule: c.runtime_s for c in whole.candidates}
    # a ranked schedule lost at most some capped launches: never faster than before
    assert all(c.runtime_s >= kept[c.schedule] for c in r.candidates)
    monkeypatch.setattr(wave_budget, "MAX_SIMULATED_WAVES", 1)
    with pytest.raises(GpusimError, match="the model refuses every schedule that fits: kernel"):
        tune("flash2", w, p, jobs=1)
