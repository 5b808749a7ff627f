"""The CTA-stamp diagnostic build: the kernel's hooks are empty unless the build defines them,
and the diagnostic's prelude defines both (the stamps themselves need a GPU)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpusim.kernels.source import kernel_source
from gpusim.validation.cta_stamps import MAX_CTAS, PRELUDE


def test_the_hooks_are_empty_by_default_and_the_prelude_defines_them():
    src = kernel_source()
    for hook in ("F2_CTA_BEGIN", "F2_CTA_END"):
        assert f"#ifndef {hook}\n#define {hook}()\n#endif" in src
        assert src.count(f"{hook}();") == 1  # one call, in the tensor-core kernel
        assert f"#define {hook}()" in PRELUDE
    assert f"f2_stamps[3 * {MAX_CTAS}]" in PRELUDE


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_the_default_build_is_the_same_ptx_as_without_the_hooks(tmp_path):
    from gpusim.kernel_catalog.instances import KernelInstance
    from gpusim.kernels.source import explicit_instantiations

    inst = explicit_instantiations([KernelInstance("tc", "bf16", 64, 64, 64, 4, 2)])
    plain = kernel_source()
    stripped = plain.replace("F2_CTA_BEGIN();", "").replace("F2_CTA_END();", "")
    ptx = []
    for name, src in (("hooks", plain), ("none", stripped)):
        (tmp_path / f"{name}.cu").write_text(src + "\n" + inst)
        subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", "-ptx", f"{name}.cu", "-o",
                        f"{name}.ptx"], cwd=tmp_path, check=True)  # fmt: skip
        ptx.append((tmp_path / f"{name}.ptx").read_text())
    assert ptx[0] == ptx[1]
