"""The committed wgmma wrapper header is the generator's output, and the shapes obey wgmma."""

import pytest

from gpusim.kernels import wgmma_ops_gen as gen


def test_committed_header_matches_generator():
    assert gen.HEADER.read_text() == gen.header_text()


def test_operand_counts():
    text = gen.ss_function(128, True)
    assert "m64n128k16.f32.bf16.bf16" in text
    assert text.count('"+f"(d[') == 64 and "%63}" in text
    rs = gen.rs_function(256, False)
    assert "m64n256k16.f32.f16.f16" in rs and rs.count('"+f"(d[') == 128
    assert "{%128, %129, %130, %131}, %132, p, 1, 1, 1;" in rs  # A regs, B desc, tnspB = 1


@pytest.mark.parametrize("n", [0, 12, 264])
def test_bad_n_refused(n):
    with pytest.raises(ValueError, match="multiple of 8"):
        gen.check_n(n)
