"""The code size of every FlashAttention-2 kernel in PyTorch's ``libtorch_cuda.so``.

    python -m gpusim.validation.torch_code_sizes --out FILE      # on the GPU machine

``cuobjdump -xelf all`` writes the library's cubins of one architecture into a scratch
folder; each cubin's ELF symbol table gives every function's size in bytes (16 bytes a SASS
instruction on sm_90). The record: ``{mangled name: bytes}`` for each ``pytorch_flash``
function, with the library's path, size and the tool's version. Why: an instruction cache
holds a kernel's code or not by its size, and the tile traits alone do not give it.

Runs on the GPU machine's python (no simpy or pydantic needed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

#: ELF constants this reader needs (64-bit little-endian, as every CUDA cubin is)
_SHT_SYMTAB, _STT_FUNC = 2, 2
PREFIX = "_ZN13pytorch_flash"


def elf_function_sizes(data: bytes, prefix: str = PREFIX) -> dict[str, int]:
    """``{name: size in bytes}`` of the functions in one ELF64 file whose names start with
    ``prefix``."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]  # fmt: skip
    out = {}
    for _name, kind, _flags, _addr, off, size, link, _info, _align, entsize in sections:
        if kind != _SHT_SYMTAB or not entsize:
            continue
        str_off = sections[link][4]
        for pos in range(off, off + size, entsize):
            st_name, st_info, _other, _shndx, _value, st_size = struct.unpack_from(
                "<IBBHQQ", data, pos
            )
            if st_info & 0xF != _STT_FUNC:
                continue
            end = data.index(b"\0", str_off + st_name)
            name = data[str_off + st_name : end].decode()
            if name.startswith(prefix):
                out[name] = st_size
    return out


def library_path() -> Path:
    import torch

    return Path(torch.__file__).parent / "lib" / "libtorch_cuda.so"


def extract(lib: Path, arch: str, scratch: Path) -> dict[str, int]:
    """Every ``pytorch_flash`` function's size in ``lib``'s cubins of ``arch``."""
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    subprocess.run([tool, "-arch", arch, "-xelf", "all", str(lib)], cwd=scratch, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    sizes: dict[str, int] = {}
    for cubin in sorted(scratch.glob("*.cubin")):
        sizes.update(elf_function_sizes(cubin.read_bytes()))
        cubin.unlink()  # the library's cubins take gigabytes together; keep the disk free
    return sizes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="sm_90")
    a = ap.parse_args(argv)
    lib = library_path()
    with tempfile.TemporaryDirectory() as tmp:
        sizes = extract(lib, a.arch, Path(tmp))
    if not sizes:
        print(f"gpusim: error: no {PREFIX} function in {lib}'s {a.arch} cubins", file=sys.stderr)
        return 2
    doc = {"library": str(lib), "library_bytes": os.path.getsize(lib), "arch": a.arch,
           "functions": len(sizes), "code_bytes": sizes}  # fmt: skip
    Path(a.out).write_text(json.dumps(doc, indent=1, sort_keys=True))
    print(f"wrote {a.out}: {len(sizes)} functions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
