"""The ELF reader of the code-size record: function sizes off a real cubin's symbol table."""

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.validation.torch_code_sizes import elf_function_sizes

CUBIN = REPO_ROOT / "data/h200/2026-12-02_torch_flash_sass/triton_attn_fwd.cubin"


def test_a_cubins_function_size_is_whole_instructions():
    data = CUBIN.read_bytes()
    sizes = elf_function_sizes(data, prefix="")
    assert list(sizes) == ["attn_fwd"]  # the one kernel Triton compiled
    assert sizes["attn_fwd"] % 16 == 0 and 4096 < sizes["attn_fwd"] < len(data)
    assert elf_function_sizes(data) == {}  # no pytorch_flash function in Triton's cubin


def test_anything_else_is_refused():
    with pytest.raises(ValueError, match="ELF"):
        elf_function_sizes(b"\x7fELF\x01\x01" + bytes(64))
