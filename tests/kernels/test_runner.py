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


def test_a_loaded_kernel_reports_its_attributes_without_a_gpu():
    # A merge once left attributes() under the class after LoadedKernel; every sweep run
    # failed on the GPU. The attributes come from the function object alone.
    from gpusim.kernel_catalog.instances import KernelInstance
    from gpusim.kernel_catalog.split_kv import CombineInstance

    fn = type("Fn", (), dict.fromkeys(runner_mod.FUNCTION_ATTRIBUTES, 7))()
    for inst in (KernelInstance("tc", "bf16", 128, 64, 64, 4, 2, split=True),
                 CombineInstance("bf16", 128)):  # fmt: skip
        attrs = runner_mod.LoadedKernel(inst, fn, "nvrtc").attributes()
        assert attrs["num_regs"] == 7 and attrs["dynamic_smem_bytes"] == inst.smem_bytes
