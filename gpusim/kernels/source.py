"""The CUDA source of the flash2 kernels, as one NVRTC-ready string or files for nvcc."""

from __future__ import annotations

from pathlib import Path

from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernel_catalog.split_kv import CombineInstance

KERNEL_DIR = Path(__file__).resolve().parent
COMMON_HEADER = "flash2_common.cuh"
#: The fp32 kernel's two products, also included by the simt_mm microbenchmark
#: (gpusim/calibrate/kernels/simt_mm.cu), so that it measures the kernel's own loop.
SIMT_PRODUCTS = "simt_products.inc"
SOURCES = ("flash2_tc.cu", "flash2_simt.cu", "flash2_combine.cu")
#: Options both compilers get: C++17 for ``if constexpr``; no fast-math (exp2 is explicit PTX).
CXX_OPTIONS = ("-std=c++17",)

_TC_PARAMS = (
    "const u16*, const u16*, const u16*, u16*, int, int, int, float, float*, float*, int, int, int"
)
_SIMT_PARAMS = "const float*, const float*, const float*, float*, int, int, int, float"
_COMBINE_PARAMS = "const float*, const float*, u16*, int, int, int, int, int, int, int"


def kernel_source(kernel_dir: Path = KERNEL_DIR) -> str:
    """Header and every kernel in one translation unit, the include lines inlined (NVRTC
    gets no include path). ``kernel_dir``: another copy of the sources (a baseline commit's)."""
    products = (
        (kernel_dir / SIMT_PRODUCTS).read_text() if (kernel_dir / SIMT_PRODUCTS).exists() else ""
    )
    parts = [(kernel_dir / COMMON_HEADER).read_text()]
    for name in SOURCES:
        lines = []
        for line in (kernel_dir / name).read_text().splitlines():
            if line.startswith(f'#include "{COMMON_HEADER}"'):
                continue
            # The fragment's own lines in place of the include: the same tokens at the same
            # place as when the products were written out in the kernel.
            lines.append(products.rstrip("\n") if line == f'#include "{SIMT_PRODUCTS}"' else line)
        parts.append("\n".join(lines))
    return "\n".join(parts).replace("#pragma once", "")


def explicit_instantiations(instances: list[KernelInstance | CombineInstance]) -> str:
    """``template __global__ void ...;`` lines, so that nvcc emits the instances offline."""
    lines = []
    for inst in instances:
        if isinstance(inst, CombineInstance):
            params = _COMBINE_PARAMS
        else:
            params = _TC_PARAMS if inst.variant == "tc" else _SIMT_PARAMS
        lines.append(f"template __global__ void {inst.name_expression}({params});")
    return "\n".join(lines) + "\n"


def nvcc_translation_unit(instances: list[KernelInstance | CombineInstance]) -> str:
    """The kernel source followed by explicit instantiations of ``instances``."""
    return kernel_source() + "\n" + explicit_instantiations(instances)
