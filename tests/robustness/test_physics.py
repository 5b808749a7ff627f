"""Physics of every generated valid case: no run beats the hardware's peaks, bytes add up,
more heads never run faster, more SRAM never makes the tuner's best schedule slower.

Cases are drawn over every algorithm, shipped profile and dtype, with awkward
shapes (lengths of 1, head dims off multiples of 8, ragged and causal tiles).
"""

from __future__ import annotations

import math

from hypothesis import assume, given
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from gpusim.api import build_inputs
from gpusim.engine import simulate
from gpusim.engine.dram_mix import dram_mix
from gpusim.engine.rates import rates_for
from gpusim.errors import GpusimError
from gpusim.profiles import list_profiles, load_profile
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload
from tests.robustness.harness import HANG_S, hang_guard
from tests.robustness.strategies import DTYPES, fuzz
from tests.robustness.tally import tally

#: Slack for float rounding in the bounds (ticks round durations up, never down).
REL = 1e-9
#: How far below the mean pace a scattered CTA may run, in the profile's scatter units.
SCATTER_SIGMAS = 5


@st.composite
def valid_case(draw, max_len: int = 1024):
    """Keyword arguments of build_inputs for a small, awkward, valid-looking workload."""
    length = st.one_of(st.just(1), st.integers(1, max_len))
    return {
        "algorithm": draw(st.sampled_from(list(ALGORITHMS))),
        "profile": draw(st.sampled_from(list_profiles())),
        "batch": draw(st.integers(1, 3)),
        "heads": draw(st.integers(1, 4)),
        "seq_len": draw(length),
        "seq_len_k": draw(st.none() | length),
        "head_dim": draw(st.sampled_from([8, 64, 128]) | st.integers(1, 256)),
        "dtype": draw(st.sampled_from(DTYPES)),
        "causal": draw(st.booleans()),
    }


def _inputs_or_skip(case):
    try:
        return build_inputs(**case)
    except GpusimError:
        tally("physics: refused by build_inputs (one-line error)")
        assume(False)


def _assert_physical(r, workload, profile) -> None:
    c = r.counters
    rates = rates_for(profile, workload.dtype)
    t = r.runtime_s
    assert 0 < t < math.inf
    # A profile with a CTA time scatter has rates that are the measured *mean* pace of CTAs
    # whose durations scatter around it; the engine draws each CTA group's pace from that
    # spread (its quantiles reach z = -4.8), so a kernel of a few CTAs may beat the mean
    # rate by up to its fastest draw.
    scatter = profile.cta_duration_scatter.value if profile.cta_duration_scatter else 0.0
    slack = t * (1 + REL) * (1 + SCATTER_SIGMAS * scatter)
    # No pipe does more than its peak, summed over the SMs.
    work = rates.work(c.mma_flops, c.fp32_ops, c.exp_ops, c.smem_traffic_bytes)
    for pipe, amount in work.items():
        assert slack >= amount / rates.peak_per_s(pipe), pipe
    if rates.mma_pipe == "tensor" and not workload.causal:
        assert slack >= workload.model_flops() / rates.peak_per_s("tensor")
    # a read stream beats the copy whose bandwidth is the profile's (engine/dram_mix.py): the
    # DRAM's limit is its lane, each byte at its best cost
    read_cost, write_cost = dram_mix(profile)
    lane_bytes = c.dram_read_bytes * read_cost + c.dram_write_bytes * write_cost
    assert slack >= lane_bytes / rates.dram_bytes_per_s
    assert slack >= (c.global_read_bytes + c.global_write_bytes) / rates.l2_bytes_per_s
    cap = (1 + REL) * (1 + SCATTER_SIGMAS * scatter)
    assert all(u <= cap for u in r.utilisation.values()), r.utilisation
    # Bytes are conserved: the engine moves what the tracer counted, DRAM sees no more than
    # the L2 was asked for, kernels add up to the run, tensors add up to the totals.
    assert c.global_read_bytes == r.count["global_read_bytes"]
    assert c.global_write_bytes == r.count["global_write_bytes"]
    assert 0 <= c.dram_read_bytes <= c.global_read_bytes
    assert 0 <= c.dram_write_bytes <= c.global_write_bytes
    for key in ("dram_read_bytes", "dram_write_bytes", "global_read_bytes", "mma_flops"):
        assert sum(getattr(k.counters, key) for k in r.kernels) == getattr(c, key), key
    by_tensor = r.count["bytes_by_tensor"].values()
    assert sum(t["read_bytes"] for t in by_tensor) == c.global_read_bytes
    assert sum(t["write_bytes"] for t in by_tensor) == c.global_write_bytes
    if not r.algorithm.startswith("softmax"):
        # The output reaches device memory, whatever stays on chip on the way.
        o_bytes = workload.batch_heads * workload.seq_len_q * workload.head_dim
        assert c.dram_write_bytes >= o_bytes * workload.elem_bytes


@fuzz(150)
@given(case=valid_case())
def test_every_simulation_respects_the_hardware_limits(case):
    w, s, p, _ = _inputs_or_skip(case)
    with hang_guard(what=case):
        r = simulate(case["algorithm"], w, s, p)
    tally(f"physics: simulated ({r.detail})")
    _assert_physical(r, w, p)


@fuzz(30)
@given(case=valid_case(), extra=st.integers(1, 40))
def test_more_heads_never_run_faster(case, extra):
    w, s, p, _ = _inputs_or_skip(case)
    more = w.model_copy(update={"heads": w.heads + extra})
    with hang_guard(what=(case, extra)):
        base = simulate(case["algorithm"], w, s, p)
        bigger = simulate(case["algorithm"], more, s, p)
    tally("physics: heads added")
    assert bigger.runtime_s >= base.runtime_s
    _assert_physical(bigger, more, p)


@fuzz(4)  # two tunes a case, ~3-4 s: the suite keeps under 4 min (GPUSIM_FUZZ_SCALE for more)
@given(
    algorithm=st.sampled_from(["flash2", "flash2-kvq", "flash1", "standard", "flash-naive-qkv"]),
    profile=st.sampled_from(list_profiles()),
    seq_len=st.sampled_from([64, 128, 200]),  # a tune simulates every candidate: keep it small
    head_dim=st.sampled_from([32, 64]),
    causal=st.booleans(),
    sram_kib=st.sampled_from([32, 48, 64, 100]),
    more_kib=st.sampled_from([8, 32, 100]),
)
def test_larger_sram_never_makes_the_best_schedule_slower(
    algorithm, profile, seq_len, head_dim, causal, sram_kib, more_kib
):
    """Every schedule that fits stays feasible with more SRAM, and the best gets no slower.

    Strictly: more SRAM lets more CTAs share an SM, which can lose to a worse last wave
    (l40s, flash-naive-qkv, B3 H1 N2048 d64 causal: 128 -> 144 KiB, 3 -> 4 CTAs/SM, +0.3%
    before the tuner tried launch caps), but the tuner also tries every smaller count.
    """
    w = Workload(batch=1, heads=2, seq_len_q=seq_len, seq_len_k=seq_len, head_dim=head_dim)
    w = w.model_copy(update={"causal": causal})
    hw = load_profile(profile)
    with hang_guard(2 * HANG_S, what=(algorithm, profile, w, sram_kib, more_kib)):
        try:
            small = tune(algorithm, w, hw, sram_kib * 1024)
        except GpusimError:
            tally("physics: tuner found nothing in the smaller SRAM")
            return
        large = tune(algorithm, w, hw, (sram_kib + more_kib) * 1024)
    fits_small = {c.schedule for c in small.candidates}
    assert fits_small <= {c.schedule for c in large.candidates}
    tally(
        "physics: SRAM enlarged, best "
        + ("faster" if large.best.runtime_s < small.best.runtime_s else "the same")
    )
    assert large.best.runtime_s <= small.best.runtime_s
