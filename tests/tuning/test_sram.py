"""The "what if" SRAM override: one CTA of the given size, and an SM just big enough for it."""

import pytest

from gpusim.errors import GpusimError
from gpusim.tuning.sram import sram_kib_to_bytes, with_sram_bytes


def test_override_sets_block_and_sm_sizes(h200):
    p = with_sram_bytes(h200, 48 * 1024)
    reserved = h200.smem_reserved_per_block_bytes.value
    assert p.smem_per_block_bytes.value == 48 * 1024
    assert p.smem_per_sm_bytes.value == 48 * 1024 + reserved
    assert max(p.smem_carveout_steps_kib.value) * 1024 >= p.smem_per_sm_bytes.value
    assert "--sram-kib" in p.smem_per_block_bytes.source
    # Everything else is the same GPU.
    assert p.sm_count == h200.sm_count and p.l2_bytes == h200.l2_bytes
    assert h200.smem_per_block_bytes.value != p.smem_per_block_bytes.value  # a copy


def test_override_at_the_profile_size_keeps_the_sm_size(h200):
    p = with_sram_bytes(h200, h200.smem_per_block_bytes.value)
    assert p.smem_per_sm_bytes.value == h200.smem_per_sm_bytes.value


@pytest.mark.parametrize("kib", [0, -1.0, float("nan")])
def test_bad_sizes_are_user_errors(kib):
    with pytest.raises(GpusimError, match="--sram-kib"):
        sram_kib_to_bytes(kib)


def test_fractional_kib():
    assert sram_kib_to_bytes(0.5) == 512
