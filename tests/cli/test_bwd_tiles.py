"""A training step's backward on its own tiles (``--bwd-block-m`` ...), as FlashAttention-2
runs it, and each pass on its own rule's tiles when none is given."""

from __future__ import annotations

import pytest

from gpusim.api.inputs import build_inputs
from gpusim.engine import simulate
from gpusim.kernel_catalog.description import describe
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

SHAPE = dict(batch=1, heads=8, seq_len=2048, head_dim=256, dtype="bf16")


def test_without_tiles_each_pass_takes_its_own_rules():
    step = build_inputs("flash2", pass_="fwd+bwd", **SHAPE)
    fwd = build_inputs("flash2", pass_="fwd", **SHAPE).schedule
    bwd = build_inputs("flash2", pass_="bwd", **SHAPE).schedule
    assert step.schedule.forward() == fwd
    assert step.schedule.backward() == bwd != fwd  # at d256 the backward needs smaller tiles
    assert step.filled["bwd_block_m"] == bwd.block_m


def test_given_tiles_are_both_passes_but_for_the_backward_ones_given():
    s = build_inputs("flash2", pass_="fwd+bwd", block_m=64, block_n=64, warps=4, stages=2,
                     **SHAPE).schedule  # fmt: skip
    assert not s.has_bwd_tiles
    s = build_inputs("flash2", pass_="fwd+bwd", bwd_warps=8, **SHAPE).schedule
    assert s.backward().warps == 8 and s.forward().warps == s.warps


@pytest.mark.parametrize("algorithm", ["flash2", "standard"])
def test_each_kernel_runs_its_passs_tiles(algorithm):
    from algorithms import get_algorithm

    w = Workload(batch=1, heads=2, seq_len_q=512, seq_len_k=512, head_dim=64, dtype="bf16",
                 pass_="fwd+bwd")  # fmt: skip
    s = Schedule(block_m=128, block_n=64, warps=4, bwd_block_m=64, bwd_block_n=32, bwd_warps=8)
    kernels = get_algorithm(algorithm).kernels(w, s)
    fwd_names = {k.name for k in get_algorithm(algorithm).kernels(
        w.model_copy(update={"pass_": "fwd"}), s.forward())}  # fmt: skip
    for k in kernels:
        want = s.forward() if k.name in fwd_names else s.backward()
        assert k.schedule == want, k.name


def test_the_training_step_is_its_passes_run_apart():
    p = load_profile("h200-sxm")
    w = Workload(batch=2, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16")
    f = Schedule(block_m=128, block_n=128, warps=8)
    b = Schedule(block_m=64, block_n=128, warps=8)
    step = Schedule(block_m=128, block_n=128, warps=8, bwd_block_m=64, bwd_block_n=128)
    got = simulate("flash2", w.model_copy(update={"pass_": "fwd+bwd"}), step, p)
    apart = {k.name: k.duration_s for k in simulate(
        "flash2", w.model_copy(update={"pass_": "bwd"}), b, p).kernels}  # fmt: skip
    fwd = simulate("flash2", w, f, p).runtime_s
    main = next(k for k in got.kernels if k.name == "flash2_bwd")
    assert main.duration_s == pytest.approx(apart["flash2_bwd"], rel=0.02)
    assert got.runtime_s == pytest.approx(fwd + sum(apart.values()), rel=0.03)


def test_count_describes_the_backwards_own_step():
    w = Workload(batch=1, heads=2, seq_len_q=512, seq_len_k=512, head_dim=128, dtype="bf16",
                 pass_="fwd+bwd")  # fmt: skip
    s = Schedule(block_m=128, block_n=128, warps=8, bwd_block_m=64, bwd_block_n=64, bwd_warps=4)
    d = describe(w, s)
    apart = describe(w.model_copy(update={"pass_": "bwd"}), s.backward())
    assert d.as_dict()["backward_step_mix"] == apart.as_dict()["step_mix"]


def test_bad_uses_are_one_line(gpusim):
    small = ["--batch", "1", "--heads", "2", "--seq-len", "512"]
    r = gpusim("simulate", "-a", "flash2", "--pass", "bwd", "--bwd-warps", "8", *small)
    assert r.code == 2 and "need --pass fwd+bwd" in r.err and len(r.err.splitlines()) == 1
    r = gpusim("tune", "--pass", "fwd+bwd", "--bwd-warps", "8", *small)
    assert r.code == 2 and "every backward tile" in r.err
    r = gpusim("simulate", "-a", "flash2", "--pass", "fwd+bwd", "--head-dim", "128", *small)
    assert r.code == 0 and "(bwd 64 x 64)" in r.out


def test_tune_puts_each_backward_tile_behind_the_forwards_best():
    from gpusim.tuning.tuner import tune

    p = load_profile("h200-sxm")
    w = Workload(batch=1, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=128, dtype="bf16")
    fwd = tune("flash2", w, p).best.schedule
    step = tune("flash2", w.model_copy(update={"pass_": "fwd+bwd"}), p)
    assert {c.schedule.forward() for c in step.candidates} == {fwd}
    assert len({c.schedule.backward() for c in step.candidates}) == len(step.candidates) > 4
    assert not step.rules  # the block rules pick one tile for both: not shown
    # Never slower than the default: each pass on its own rule's tiles.
    default = build_inputs("flash2", pass_="fwd+bwd", batch=1, heads=8, seq_len=2048,
                           head_dim=128, dtype="bf16").schedule  # fmt: skip
    by = {c.schedule: c.runtime_s for c in step.candidates}
    assert step.best.runtime_s <= simulate("flash2", step.workload, default, p).runtime_s
    assert by.get(default, step.best.runtime_s) >= step.best.runtime_s


def test_tune_of_a_few_queries_keeps_a_forward_the_backward_can_follow():
    from gpusim.tuning.tuner import tune

    w = Workload(batch=1, heads=8, seq_len_q=64, seq_len_k=16384, head_dim=128, dtype="bf16",
                 pass_="fwd+bwd")  # fmt: skip
    step = tune("flash2", w, load_profile("h200-sxm"))
    f = step.best.schedule.forward()
    assert (f.kv_splits, f.pack_gqa, f.kv_order, f.q_order) == (1, False, "forward", "last-first")
