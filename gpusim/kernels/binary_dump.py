"""A binary's kernel loop for the SM core model: ``--cubin FILE`` (cuobjdump run here) or
``--sass FILE`` (a ``cuobjdump -sass`` text dump, plain or gzip, for machines without it).

cuobjdump is looked for on PATH, under /usr/local/cuda/bin, in NVIDIA's pip wheel
(``nvidia-cuda-cuobjdump``) and in Triton's package (``triton/backends/nvidia/bin``); without
it ``--cubin`` is a one-line error saying so.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.binary_sass import BinaryLoop, binary_loop, read_text
from gpusim.kernels.build import find_tool


def _triton_tool(name: str) -> str | None:
    try:
        import triton
    except ImportError:
        return None
    hit = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
    return str(hit) if hit.exists() else None


def cuobjdump() -> str:
    """The cuobjdump to run, or a one-line error."""
    tool = find_tool("cuobjdump") or _triton_tool("cuobjdump")
    if tool is None:
        raise GpusimError(
            "--cubin needs cuobjdump (on PATH, /usr/local/cuda/bin, pip install "
            "nvidia-cuda-cuobjdump, or Triton's package); or give --sass FILE, a "
            "`cuobjdump -sass` text dump"
        )
    return tool


def _run(args: list[str], path: Path) -> str:
    tool = cuobjdump()
    # cuobjdump runs nvdisasm for SASS: the tools' folders go first on PATH
    dirs = {str(Path(t).parent) for t in (tool, find_tool("nvdisasm") or _triton_tool("nvdisasm"))
            if t}  # fmt: skip
    env = os.environ | {"PATH": os.pathsep.join([*dirs, os.environ.get("PATH", "")])}
    proc = subprocess.run([tool, *args, str(path)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise GpusimError(f"cuobjdump could not read {path}: {last[:200]}")
    return proc.stdout


def load_binary_loop(
    kernel: str,
    cubin: str | Path | None = None,
    sass: str | Path | None = None,
    res_usage: str | Path | None = None,
) -> BinaryLoop:
    """The named kernel's loop from a cubin (or any file cuobjdump reads) or a SASS dump."""
    if (cubin is None) == (sass is None):
        raise GpusimError("give one of --cubin FILE or --sass FILE, with --kernel NAME")
    if not kernel:
        raise GpusimError("--cubin/--sass need --kernel NAME (a mangled name or part of one)")
    if cubin is not None:
        path = Path(cubin)
        if not path.is_file():
            raise GpusimError(f"cannot read {path}: no such file")
        text = _run(["-sass"], path)
        res = _run(["-res-usage"], path)
        return binary_loop(text, kernel, str(path), res)
    res = read_text(Path(res_usage)) if res_usage is not None else None
    return binary_loop(read_text(Path(sass)), kernel, str(sass), res)
