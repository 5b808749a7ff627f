"""``gpusim run-kernel``: without CuPy or a GPU it fails with one line, never a traceback."""

import pytest

from gpusim.errors import GpusimError
from gpusim.kernels.runner import import_cupy


def _have_gpu() -> bool:
    try:
        import_cupy()
    except GpusimError:
        return False
    return True


@pytest.mark.skipif(_have_gpu(), reason="checks the machine without a GPU")
def test_run_kernel_without_gpu_is_one_line(gpusim):
    r = gpusim("run-kernel", "--json", "--head-dim", "64", "--block-m", "64", "--block-n", "64")
    assert r.code == 2
    assert r.out == ""
    assert len(r.err.strip().splitlines()) == 1
    assert "CuPy" in r.err or "GPU" in r.err


def test_run_kernel_is_registered(gpusim):
    r = gpusim("run-kernel", "--help")
    assert r.code == 0
    assert "--repeats" in r.out


def test_run_kernel_refuses_another_algorithm(gpusim):
    # The algorithm is named once, by --algorithm; the CUDA kernel is flash2's.
    r = gpusim("run-kernel", "--json", "--algorithm", "flash1")
    assert r.code == 2 and r.out == ""
    assert "implements algorithm 'flash2', not 'flash1'" in r.err
