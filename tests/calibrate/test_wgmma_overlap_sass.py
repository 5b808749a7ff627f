"""wgmma_step's overlap rows keep the softmax between the wait for S and the wait for P V, as
the project's kernel does, and the rows before them do not (ptxas's placement of the wait,
read from cuobjdump's SASS). Skipped where nvcc or cuobjdump is not installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpusim.calibrate.wgmma import KERNEL_DIR, NVCC_FLAGS
from gpusim.calibrate.wgmma_step import ring_name

NVCC, CUOBJDUMP = shutil.which("nvcc"), shutil.which("cuobjdump")
pytestmark = pytest.mark.skipif(
    NVCC is None or CUOBJDUMP is None, reason="nvcc or cuobjdump not installed"
)
SOURCE = """#define GS_NO_INSTANCES
#include "wgmma.cu"
template __global__ void wg_step_ring<96, 64, 1, 3, 3, true>(GS_ARGS);
template __global__ void wg_step_ring<96, 64, 1, 3, 3, false>(GS_ARGS);
"""


def exps_between_waits(sass: str, function: str) -> tuple[int, int]:
    """(MUFU.EX2 between the wait for S and the next wait for P V, MUFU.EX2 in all) of the
    function's first such pair of waits."""
    body = sass.split(f"Function : {function}", 1)[1].split("Function : ", 1)[0]
    ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+([^;]*);", body)
    first = next(i for i, o in enumerate(ops) if "DEPBAR.LE gsb0, 0x1" in o)
    then = next(i for i, o in enumerate(ops) if i > first and "DEPBAR.LE gsb0, 0x0" in o)
    return sum("MUFU.EX2" in o for o in ops[first:then]), sum("MUFU.EX2" in o for o in ops)


def test_the_overlap_rows_keep_every_exp2_between_the_waits(tmp_path: Path):
    src = tmp_path / "ring.cu"
    src.write_text(SOURCE)
    cubin = tmp_path / "ring.cubin"
    cmd = [NVCC, *NVCC_FLAGS, f"-I{KERNEL_DIR}", "-o", str(cubin), str(src)]
    subprocess.run(cmd, check=True, capture_output=True)
    sass = subprocess.run(
        [CUOBJDUMP, "-sass", str(cubin)], check=True, capture_output=True, text=True
    ).stdout
    between, total = exps_between_waits(sass, ring_name(96, 64, 3, 3, True))
    assert total >= 48 and between == 48  # Bc 96: 48 values a thread, each an exp2
    between, _ = exps_between_waits(sass, ring_name(96, 64, 3, 3, False))
    assert between == 0  # the ring rows as measured: P V waited for first


def test_the_split_compile_gives_the_one_thread_builds_sass(tmp_path: Path):
    """``--split-compile`` (NVCC_FLAGS) runs nvcc's optimizer on several threads; the SASS of
    every kernel must be what a one-thread build gives."""
    src = tmp_path / "ring.cu"
    src.write_text(SOURCE)
    sass = {}
    for split, flags in (("on", NVCC_FLAGS), ("off", [f for f in NVCC_FLAGS if "split" not in f])):
        cubin = tmp_path / f"{split}.cubin"
        cmd = [NVCC, *flags, f"-I{KERNEL_DIR}", "-o", str(cubin), str(src)]
        subprocess.run(cmd, check=True, capture_output=True)
        sass[split] = subprocess.run(
            [CUOBJDUMP, "-sass", str(cubin)], check=True, capture_output=True, text=True
        ).stdout
    assert any("split-compile" in f for f in NVCC_FLAGS)
    assert sass["on"] == sass["off"] and "MUFU.EX2" in sass["on"]
