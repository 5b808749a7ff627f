"""The CUDA sources compile for sm_90 with nvcc, without spills, to the instructions meant.

Skipped where nvcc (or, for the SASS checks, cuobjdump) is not installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpusim.calibrate.sources import COMPILE_OPTIONS, INCLUDE_OPTIONS, KERNEL_DIR, SOURCES

NVCC = shutil.which("nvcc")
CUOBJDUMP = shutil.which("cuobjdump")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
needs_cuobjdump = pytest.mark.skipif(
    NVCC is None or CUOBJDUMP is None, reason="nvcc or cuobjdump not installed"
)

# SASS each source must contain: the instruction a benchmark exists to time.
EXPECTED_SASS = {
    "tensor.cu": ("HMMA.16816.F32 ", "HMMA.16816.F32.BF16", "HMMA.1688.F32.TF32"),
    "alu.cu": ("FFMA", "MUFU.EX2"),
    "smem.cu": ("LDS.128",),
    "memory.cu": ("LDG.E.128.STRONG.GPU", "LDG.E.EF.128", "STG.E.EF.128"),
    "chase.cu": ("LDG.E.STRONG.GPU", "CS2R", "SR_GLOBALTIMER"),
    "l2_atomics.cu": ("REDG.E.ADD.F32", "STG.E "),
    "red_mma.cu": ("REDG.E.ADD.F32", "HMMA.16816.F32"),
    "local_mem.cu": ("LDL", "STL", "HMMA.16816.F32"),
}
# SASS a source must not contain: an atomic whose result is unused must compile to a
# reduction (RED), not a fetch-and-add (ATOMG) that waits for the old value.
ABSENT_SASS = {"l2_atomics.cu": ("ATOMG",), "red_mma.cu": ("ATOMG",)}


def _compile(name: str, out: Path) -> str:
    cubin = out / (Path(name).stem + ".cubin")
    cmd = [NVCC, "-arch=sm_90", "-cubin", *COMPILE_OPTIONS, *INCLUDE_OPTIONS, "-Xptxas", "-v"]
    proc = subprocess.run(
        [*cmd, "-o", str(cubin), str(KERNEL_DIR / name)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


@needs_nvcc
@pytest.mark.parametrize("name", SOURCES)
def test_source_compiles_for_sm90_without_spills(name, tmp_path):
    report = _compile(name, tmp_path)
    assert "Compiling entry function" in report
    # Spilled registers would put local-memory traffic into a throughput benchmark.
    assert not re.search(r"[1-9]\d* bytes spill", report), report
    assert not re.search(r"[1-9]\d* bytes stack frame", report), report


@needs_cuobjdump
@pytest.mark.parametrize("name", sorted(EXPECTED_SASS))
def test_sass_has_the_timed_instructions(name, tmp_path):
    _compile(name, tmp_path)
    cubin = tmp_path / (Path(name).stem + ".cubin")
    sass = subprocess.run(
        [CUOBJDUMP, "--dump-sass", str(cubin)], capture_output=True, text=True, check=True
    ).stdout
    for op in EXPECTED_SASS[name]:
        assert op in sass, f"{op} missing from {name}"
    for op in ABSENT_SASS.get(name, ()):
        assert op not in sass, f"{op} in {name}"
    if name == "smem.cu":
        # All loads in the loop must stay 128-bit: a narrowed load would halve the bytes per access.
        assert not re.search(r"\bLDS(\.U?32)? ", sass)
