"""The public API: the package root's functions, and that the algorithm is named once."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import ValidationError

import gpusim
from gpusim.api.inputs import build_inputs
from gpusim.engine.simulate import simulate as engine_simulate
from gpusim.errors import GpusimError

W = gpusim.Workload(batch=2, heads=4, seq_len_q=1024, seq_len_k=1024, head_dim=64)


def test_simulate_is_the_engine_with_the_default_rule_filled_in():
    r = gpusim.simulate("flash2", W, profile="h200-sxm-datasheet")
    w, s, p, _ = build_inputs("flash2", "h200-sxm-datasheet", 2, 4, 1024, head_dim=64)
    direct = engine_simulate("flash2", w, s, p)
    assert r.schedule == s
    assert (r.runtime_s, r.dram_read_bytes, r.bound) == (
        direct.runtime_s,
        direct.dram_read_bytes,
        direct.bound,
    )
    assert isinstance(r, gpusim.SimResult) and isinstance(r.kernels[0], gpusim.KernelResult)


def test_the_schedule_names_no_algorithm():
    with pytest.raises(ValidationError):
        gpusim.Schedule(algorithm="flash2")  # type: ignore[call-arg]
    s = gpusim.Schedule(block_m=64, block_n=64)
    f1 = gpusim.simulate("flash1", W, s.model_copy(update={"warp_split": "split-k"}))
    f2 = gpusim.simulate("flash2", W, s)
    assert (f1.algorithm, f2.algorithm) == ("flash1", "flash2")
    assert s.label("flash2") == "flash2 " + s.label()


def test_count_and_a_profile_object():
    hw = gpusim.load_profile("a100-sxm4-80gb")
    c = gpusim.count("flash1", W, profile=hw)
    assert isinstance(c, gpusim.Counts) and c.algorithm == "flash1" and c.global_read_bytes > 0
    assert gpusim.simulate("flash2", W, profile=hw).profile == hw.name


def test_a_schedule_that_does_not_fit_is_refused():
    big = gpusim.Schedule(block_m=512, block_n=512)
    with pytest.raises(GpusimError, match="shared memory per CTA"):
        gpusim.simulate("flash2", W, big, "h200-sxm-datasheet")


def test_unknown_names_and_wrong_types_are_one_line_errors():
    for call in (
        lambda: gpusim.simulate("flash3", W),
        lambda: gpusim.count("flash2", W, profile="h200"),
        lambda: gpusim.simulate("flash2", {"batch": 1}),  # type: ignore[arg-type]
    ):
        with pytest.raises(GpusimError) as e:
            call()
        assert "\n" not in str(e.value)


def test_tune_ranks_with_a_pinned_dimension():
    res = gpusim.tune(W, "h200-sxm-datasheet", fixed={"block_m": 64, "warps": 4}, jobs=1)
    assert isinstance(res, gpusim.TuneResult) and res.candidates
    assert all(c.schedule.block_m == 64 for c in res.candidates)
    runtimes = [c.runtime_s for c in res.candidates]
    assert runtimes == sorted(runtimes)


def test_verify_returns_a_result_that_passes():
    v = gpusim.verify("flash2")
    assert isinstance(v, gpusim.VerifyResult) and v.passed and v.algorithm == "flash2"


def test_importing_the_package_does_not_load_the_engine():
    code = "import sys, gpusim; gpusim.__version__; print('gpusim.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
