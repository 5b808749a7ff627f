"""The runner without a GPU: clear errors instead of crashes."""

import importlib.util

import pytest

from gpusim.errors import GpusimError
from gpusim.kernels import runner as runner_mod


def _gpu_available() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        runner_mod.import_cupy()
    except GpusimError:
        return False
    return True


@pytest.mark.skipif(_gpu_available(), reason="a GPU is present; this checks the no-GPU path")
def test_no_cupy_or_gpu_is_a_gpusim_error():
    with pytest.raises(GpusimError, match=r"CuPy|GPU"):
        runner_mod.Flash2Runner()


def test_missing_cupy_message(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "cupy":
            raise ImportError("no cupy")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(GpusimError, match="CuPy is not installed"):
        runner_mod.import_cupy()
