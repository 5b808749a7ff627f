"""``--cubin`` through cuobjdump (:mod:`gpusim.kernels.binary_dump`)."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.kernels import binary_dump
from gpusim.reporting.torch_sass import SASS_DIR

TRITON_CUBIN = SASS_DIR / "triton_attn_fwd.cubin"


def test_without_cuobjdump_cubin_is_one_line(monkeypatch):
    monkeypatch.setattr(binary_dump, "find_tool", lambda name: None)
    monkeypatch.setattr(binary_dump, "_triton_tool", lambda name: None)
    with pytest.raises(GpusimError, match="--cubin needs cuobjdump"):
        binary_dump.load_binary_loop("attn_fwd", cubin=TRITON_CUBIN)


def test_one_source_and_a_kernel_are_needed():
    with pytest.raises(GpusimError, match="give one of"):
        binary_dump.load_binary_loop("k")
    with pytest.raises(GpusimError, match="need --kernel"):
        binary_dump.load_binary_loop("", sass="x.sass")
    with pytest.raises(GpusimError, match="no such file"):
        binary_dump.load_binary_loop("k", cubin="absent.cubin")


@pytest.mark.skipif(binary_dump.find_tool("cuobjdump") is None, reason="no cuobjdump")
def test_a_triton_cubin_is_read_and_its_wgmma_loop_refused():
    # Triton compiles tl.dot on sm_90 to wgmma (HGMMA, with uniform-register SGXT/WARPGROUP
    # set-up): the core model has no pipe for them and says so rather than guessing.
    with pytest.raises(GpusimError, match=r"attn_fwd: opcode U?SGXT|HGMMA|WARPGROUP") as exc:
        binary_dump.load_binary_loop("attn_fwd", cubin=TRITON_CUBIN)
    assert "is not one the SM core model knows" in str(exc.value)
