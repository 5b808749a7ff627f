"""Where the CUDA sources live and how they are compiled (NVRTC through CuPy, C++17, sm_90)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
#: The flash2 kernels' folder: simt_mm.cu includes the fp32 kernel's products from it
#: (simt_products.inc), so that the microbenchmark runs the kernel's own loop, not a copy.
FLASH2_KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels"
INCLUDE_OPTIONS = (f"-I{KERNEL_DIR}", f"-I{FLASH2_KERNEL_DIR}")
# One source per benchmark family; clocks.cuh is included by those that stamp clocks.
SOURCES = ("memory.cu", "chase.cu", "tensor.cu", "alu.cu", "smem.cu", "launch.cu")
COMPILE_OPTIONS = ("-std=c++17",)


def source_path(name: str) -> Path:
    """Path of one kernel source, by file name."""
    path = KERNEL_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"no kernel source {name} in {KERNEL_DIR}")
    return path


def compile_module(cp: Any, name: str, name_expressions: tuple[str, ...] = ()) -> Any:
    """A CuPy RawModule of one source; CuPy picks the device's architecture (sm_90 on Hopper)."""
    code = source_path(name).read_text()
    options = (*COMPILE_OPTIONS, *INCLUDE_OPTIONS)
    if name_expressions:
        return cp.RawModule(code=code, options=options, name_expressions=list(name_expressions))
    return cp.RawModule(code=code, options=options)


def kernel_attributes(kernel: Any) -> dict[str, int]:
    """Registers, static and local memory, and the code version (90: sm_90) of a CuPy kernel."""
    attrs = {}
    for key in (
        "num_regs",
        "shared_size_bytes",
        "local_size_bytes",
        "binary_version",
        "ptx_version",
    ):
        try:
            attrs[key] = int(getattr(kernel, key))
        except Exception:  # an attribute the installed CuPy lacks is simply not recorded
            continue
    return attrs
