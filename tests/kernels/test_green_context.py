"""Green-context partitions: the driver's errors are one line; on a GPU, the SMs granted."""

from __future__ import annotations

import types

import pytest

from gpusim.errors import GpusimError
from gpusim.kernels import green_context as gc
from gpusim.kernels import runner as runner_mod


@pytest.fixture
def fake_driver(monkeypatch):
    ok, bad = object(), object()
    drv = types.SimpleNamespace(CUresult=types.SimpleNamespace(CUDA_SUCCESS=ok))
    monkeypatch.setattr(gc, "_driver", lambda: drv)
    return ok, bad


def test_check_returns_the_values_after_the_status(fake_driver):
    ok, _ = fake_driver
    assert gc._check((ok,), "x") is None
    assert gc._check((ok, 7), "x") == 7
    assert gc._check((ok, 1, 2), "x") == (1, 2)


def test_a_failed_driver_call_is_one_line_naming_it(fake_driver):
    _, bad = fake_driver
    with pytest.raises(GpusimError, match=r"cuGreenCtxCreate failed"):
        gc._check((bad, None), "cuGreenCtxCreate")


def _gpu() -> bool:
    try:
        runner_mod.import_cupy()
        gc._driver()
    except GpusimError:
        return False
    return True


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu(), reason="needs CuPy, cuda-python and a GPU")
def test_a_partition_runs_work_on_the_sms_it_was_granted():
    part = gc.open_partition(16)
    try:
        assert part.sm_count >= 16 and part.sm_count % 8 == 0
        assert part.ctx_sm_count == part.sm_count
        assert part.sm_ids_seen == part.sm_count
    finally:
        part.close()
