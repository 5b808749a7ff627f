"""red_mma: its variants and the record table (its SASS: tests/calibrate/test_kernel_sources.py)."""

from __future__ import annotations

import pytest

from gpusim.calibrate.red_mma import ADD_PER_RED, VARIANTS, kernel_name, table


def test_variants_have_their_parts_and_the_backwards_mix():
    assert (320, 32) in VARIANTS and (320, 0) in VARIANTS and (0, 32) in VARIANTS
    assert kernel_name(320, 32) == "red_mma<320, 32>"
    assert sum(1 + (lane % 8) / 8 for lane in range(32)) == ADD_PER_RED


def test_table_sets_the_mix_beside_its_parts():
    rows = [
        {"mma_per_warp": m, "red_per_warp": a, "cycles_per_step": c, "sum_ok": True}
        for m, a, c in ((320, 0, 2000.0), (0, 32, 1500.0), (320, 32, 2600.0))
    ]
    text = table({"kind": "gpusim.red_mma", "rows": rows})
    assert "| 320 | 32 | 2600 | 3500 | 2000 | yes |" in text
    with pytest.raises(ValueError):
        table({"kind": "other"})
