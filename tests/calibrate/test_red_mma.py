"""red_mma: its variants, the record table, and the kernel's SASS where nvcc is installed."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpusim.calibrate.red_mma import ADD_PER_RED, VARIANTS, kernel_name, table
from gpusim.calibrate.sources import KERNEL_DIR


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


@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("cuobjdump") is None,
                    reason="nvcc or cuobjdump not installed")  # fmt: skip
def test_kernel_compiles_to_products_and_reductions(tmp_path):
    cubin = tmp_path / "red_mma.cubin"
    subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-std=c++17", f"-I{KERNEL_DIR}", "-o",
                    str(cubin), str(KERNEL_DIR / "red_mma.cu")], check=True,
                   capture_output=True)  # fmt: skip
    sass = subprocess.run(["cuobjdump", "--dump-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
    assert "REDG.E.ADD.F32" in sass and "HMMA.16816.F32" in sass and "ATOMG" not in sass
