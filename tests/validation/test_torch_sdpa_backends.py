"""What the measurer asks torch about the flash backend, against a stand-in for torch: the
older ``sdp_kernel`` API when ``torch.nn.attention`` is missing, and the opt-in shared
memory per block."""

import sys
from types import SimpleNamespace

from gpusim.validation import torch_sdpa_backends as m


def test_without_torch_nn_attention_the_older_sdp_kernel_restricts_the_backend(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # so torch.nn.attention cannot import
    calls = []
    fake = SimpleNamespace(
        backends=SimpleNamespace(cuda=SimpleNamespace(sdp_kernel=lambda **kw: calls.append(kw)))
    )
    api, flash, math_ = m.sdpa_contexts(fake)
    assert api == "torch.backends.cuda.sdp_kernel"
    flash()
    math_()
    assert calls == [
        {"enable_flash": True, "enable_math": False, "enable_mem_efficient": False},
        {"enable_flash": False, "enable_math": True, "enable_mem_efficient": False},
    ]


def _torch_with(props):
    cuda = SimpleNamespace(current_device=lambda: 0, get_device_properties=lambda i: props)
    return SimpleNamespace(cuda=cuda)


def test_the_opt_in_shared_memory_per_block(monkeypatch):
    optin = SimpleNamespace(shared_memory_per_block_optin=232448)
    assert m.max_smem_per_block_optin(_torch_with(optin)) == 232448
    monkeypatch.setitem(sys.modules, "cupy", None)  # neither torch nor CuPy says
    assert m.max_smem_per_block_optin(_torch_with(SimpleNamespace())) is None
