"""A compiled forward's per-CTA issue: read off the binary, charged once per CTA."""

from __future__ import annotations

import gpusim
from gpusim.engine.cta_issue import CTA_ISSUE, cta_issue
from gpusim.kernels.binary_dump import load_binary_loop
from gpusim.reporting.torch_sass import RES_USAGE, SASS, torch_kernel
from gpusim.validation.torch_flash_schedule import schedule_before_set43


def _run(causal: bool, n: int = 4096):
    w = gpusim.Workload(batch=2, heads=16, seq_len=n, head_dim=128, dtype="bf16", causal=causal)
    s = schedule_before_set43(w)
    return w, s, {"sass": SASS, "res_usage": RES_USAGE, "kernel": torch_kernel(w, s)}


def test_the_binary_s_code_outside_its_loop():
    # d128 not causal, even: one peeled step (256 HMMA), 1843 besides it: 990 once per CTA;
    # causal and ragged: three peeled masking steps, 3412
    _w, _s, args = _run(False)
    loop = load_binary_loop(args["kernel"], sass=SASS, res_usage=RES_USAGE)
    assert (loop.outside_issue, loop.outside_hmma, loop.peeled_steps) == (1843, 256, 1.0)
    assert loop.cta_issue_besides_steps == 990
    _w, _s, args = _run(True, 4000)
    loop = load_binary_loop(args["kernel"], sass=SASS, res_usage=RES_USAGE)
    assert loop.peeled_steps == 3.0 and loop.cta_issue_besides_steps == 3412


def test_counts_charge_it_once_per_cta_only_when_on():
    assert CTA_ISSUE.on  # on since held-out set 40
    w, s, args = _run(True, 1024)
    with cta_issue(False):
        off = gpusim.simulate("flash2", w, s, "h100-sxm5", binary_timing="counts", **args)
    assert off.schedule.cta_issue_per_warp is None
    with cta_issue(True):
        on = gpusim.simulate("flash2", w, s, "h100-sxm5", binary_timing="counts", **args)
        # the causal CTA's two peeled masked tiles keep the class's mask: 1826 less it
        assert 1000 < on.schedule.cta_issue_per_warp < 1826
        plain = gpusim.simulate("flash2", w, s, "h100-sxm5")
        assert plain.schedule.cta_issue_per_warp is None  # the fit has no binary
    assert on.schedule.block_m == 128 and on.schedule.kv_splits == 1  # the instance read
    assert on.runtime_s > off.runtime_s
