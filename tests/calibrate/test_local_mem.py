"""local_mem: its variants and the record table (its SASS: test_kernel_sources.py)."""

from __future__ import annotations

import pytest

from gpusim.calibrate.local_mem import VARIANTS, kernel_name, table


def test_variants_have_their_parts_and_the_forwards_mix():
    assert (256, 12, 14) in VARIANTS and (256, 0, 0) in VARIANTS and (0, 12, 14) in VARIANTS
    assert kernel_name(256, 12, 14) == "local_mma<256, 12, 14>"


def test_table_sets_the_mix_beside_its_parts():
    rows = [
        {"mma_per_warp": m, "local_loads_per_warp": ld, "local_stores_per_warp": st,
         "cycles_per_step": c}
        for m, ld, st, c in ((256, 0, 0, 3000.0), (0, 12, 14, 800.0), (256, 12, 14, 3300.0))
    ]  # fmt: skip
    text = table({"kind": "gpusim.local_mem", "rows": rows, "chase": {"cycles_per_load": 33.0}})
    assert "latency: 33.0 cycles" in text
    assert "| 256 | 12 | 14 | 3300 | 3800 | 3000 |" in text
    with pytest.raises(ValueError):
        table({"kind": "other"})
