"""l2_atomics: its modes, the record table, and the kernel's SASS where nvcc is installed."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpusim.calibrate.l2_atomics import ADD_PER_CHUNK, MODES, kernel_name, table
from gpusim.calibrate.sources import KERNEL_DIR


def test_modes_and_the_expected_sum():
    assert kernel_name(1) == "l2_atomics<1>" and set(MODES) == {0, 1, 2}
    # 256 floats a chunk, each added once a pass by a lane whose value is 1 + (lane % 8) / 8
    want = sum(1 + (lane % 8) / 8 for lane in range(32)) * 8
    assert abs(ADD_PER_CHUNK - want) < 1e-9


def test_table():
    doc = {"kind": "gpusim.l2_atomics", "rows": [
        {"what": "atomic add, 32 consecutive floats", "bytes_added": 2e9, "times_s": [1e-3, 2e-3],
         "bytes_per_s": 1.5e12, "expected_sum": 10.0, "sum_ok": True},
        {"what": "4-byte stores", "bytes_added": 2e9, "times_s": [1e-3], "bytes_per_s": 2e12,
         "expected_sum": None, "sum_ok": True},
    ]}  # fmt: skip
    text = table(doc)
    assert "| atomic add, 32 consecutive floats | 1.500 | 1.000-2.000 | yes |" in text
    assert "| 4-byte stores | 2.000 | 2.000-2.000 | - |" in text
    with pytest.raises(ValueError):
        table({"kind": "other"})


@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("cuobjdump") is None,
                    reason="nvcc or cuobjdump not installed")  # fmt: skip
def test_kernel_compiles_to_reductions_and_stores(tmp_path):
    cubin = tmp_path / "l2_atomics.cubin"
    source = str(KERNEL_DIR / "l2_atomics.cu")
    subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-std=c++17", "-o", str(cubin), source],
                   check=True, capture_output=True)  # fmt: skip
    sass = subprocess.run(["cuobjdump", "--dump-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout  # fmt: skip
    assert "REDG.E.ADD.F32" in sass and "STG.E " in sass
    assert "ATOMG" not in sass  # the result is unused: a reduction, not a fetch-and-add
