"""Offline compilation of the kernel instances with nvcc: cubins, ptxas resource reports, SASS.

Used by the CI compile test (a syntax error fails CI), by
``python -m gpusim.kernels.paper_bench`` to
build every instance once on a CPU machine (the GPU machine then loads cubins instead of
spending its time in NVRTC) and to check that the machine code holds the instructions meant:
``HMMA`` (tensor cores), ``LDSM`` (ldmatrix), ``LDGSTS`` (cp.async).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernel_catalog.split_kv import CombineInstance
from gpusim.kernels.source import CXX_OPTIONS, nvcc_translation_unit

_PTXAS_FUNC = re.compile(r"Compiling entry function '(\w+)' for '(sm_\w+)'")
_PTXAS_FRAME = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_PTXAS_REGS = re.compile(r"Used (\d+) registers")
_SASS_OP = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_]*)", re.M)


def find_tool(name: str) -> str | None:
    """Path of a CUDA tool: on PATH, under /usr/local/cuda/bin, or in NVIDIA's pip wheels."""
    found = shutil.which(name)
    if found:
        return found
    cand = Path("/usr/local/cuda/bin") / name
    if cand.exists():
        return str(cand)
    try:  # nvidia-cuda-cuobjdump / -nvdisasm install into the "nvidia" namespace package
        import nvidia
    except ImportError:
        return None
    for base in getattr(nvidia, "__path__", []):
        for hit in sorted(Path(base).glob(f"*/bin/{name}")):
            return str(hit)
    return None


def parse_ptxas(log: str) -> dict[str, dict]:
    """Registers, stack frame and spill bytes per entry function from ``ptxas -v`` output."""
    out: dict[str, dict] = {}
    current = None
    for line in log.splitlines():
        m = _PTXAS_FUNC.search(line)
        if m:
            current = m.group(1)
            out[current] = {"arch": m.group(2)}
            continue
        if current is None:
            continue
        m = _PTXAS_FRAME.search(line)
        if m:
            out[current] |= {
                "stack_frame_bytes": int(m.group(1)),
                "spill_store_bytes": int(m.group(2)),
                "spill_load_bytes": int(m.group(3)),
            }
        m = _PTXAS_REGS.search(line)
        if m:
            out[current]["registers"] = int(m.group(1))
    return out


def elf_function_symbols(cubin: bytes) -> list[str]:
    """Names of the global function symbols in an ELF64 cubin (the mangled kernel names)."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise GpusimError("not an ELF64 cubin")
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", cubin, 0x3A)
    sections = [
        struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)
    ]
    names = []
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        str_off = strtab[4]
        for k in range(sh[5] // 24):
            st_name, st_info = struct.unpack_from("<IB", cubin, sh[4] + 24 * k)
            if st_info & 0xF == 2 and st_info >> 4 == 1:  # STT_FUNC, STB_GLOBAL
                end = cubin.index(b"\0", str_off + st_name)
                names.append(cubin[str_off + st_name : end].decode())
    return names


def compile_cubin(
    instances: list[KernelInstance | CombineInstance],
    out_path: Path,
    arch: str = "sm_90",
    extra: tuple = (),
) -> dict[str, dict]:
    """Compile ``instances`` into one cubin with nvcc; returns ptxas's report per function."""
    nvcc = find_tool("nvcc")
    if nvcc is None:
        raise GpusimError("nvcc is not installed; the kernels can still be built by CuPy (NVRTC)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "flash2_instances.cu"
        src.write_text(nvcc_translation_unit(instances))
        cmd = [nvcc, f"-arch={arch}", *CXX_OPTIONS, "-cubin", "-Xptxas", "-v", *extra]
        proc = subprocess.run(
            [*cmd, str(src), "-o", str(out_path)], capture_output=True, text=True, check=False
        )
    if proc.returncode != 0:
        raise GpusimError(f"nvcc failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return parse_ptxas(proc.stderr + proc.stdout)


def build_cubins(
    instances: list[KernelInstance | CombineInstance],
    out_dir: Path,
    jobs: int = 2,
    arch: str = "sm_90",
) -> dict[str, dict]:
    """One cubin per instance under ``out_dir`` (``<key>.cubin``) plus ``ptxas.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)

    def one(inst: KernelInstance | CombineInstance) -> tuple[str, dict]:
        path = out_dir / f"{inst.key}.cubin"
        report = compile_cubin([inst], path, arch)
        (fn,) = elf_function_symbols(path.read_bytes())
        return inst.key, {"function": fn, **report.get(fn, {})}

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = dict(pool.map(one, instances))
    atomic.write_text(out_dir / "ptxas.json", json.dumps(results, indent=1, sort_keys=True))
    return results


def dump_sass(cubin_path: Path) -> str:
    """``cuobjdump --dump-sass`` of a cubin: every function's SASS with its control words."""
    tool = find_tool("cuobjdump")
    if tool is None:
        raise GpusimError("cuobjdump is not installed (pip install nvidia-cuda-cuobjdump)")
    # cuobjdump runs nvdisasm for SASS; the pip wheels put it beside cuobjdump or elsewhere
    dirs = {str(Path(t).parent) for t in (tool, find_tool("nvdisasm")) if t}
    env = os.environ | {"PATH": os.pathsep.join([*dirs, os.environ.get("PATH", "")])}
    return subprocess.run(
        [tool, "--dump-sass", str(cubin_path)], capture_output=True, text=True, check=True, env=env
    ).stdout


def sass_opcode_counts(cubin_path: Path) -> dict[str, Counter]:
    """Static opcode counts per function from ``cuobjdump --dump-sass``."""
    text = dump_sass(cubin_path)
    out: dict[str, Counter] = {}
    for chunk in text.split("Function : ")[1:]:
        name = chunk.split(None, 1)[0]
        out[name] = Counter(_SASS_OP.findall(chunk))
    return out


#: Opcodes whose presence (or absence) says the kernel is built as meant.
SASS_KEY_OPS = ("HMMA", "LDSM", "LDGSTS", "FFMA", "MUFU", "SHFL", "BAR", "LDL", "STL")


def sass_summary(out_dir: Path, keys: list[str]) -> dict[str, dict[str, int]]:
    """Static counts of :data:`SASS_KEY_OPS` in each ``<key>.cubin`` of ``out_dir``."""
    out = {}
    for key in keys:
        (counts,) = sass_opcode_counts(out_dir / f"{key}.cubin").values()
        out[key] = {op: counts.get(op, 0) for op in SASS_KEY_OPS}
    return out


def nvcc_version() -> str:
    """The last line of ``nvcc --version`` (release and build)."""
    nvcc = find_tool("nvcc")
    if nvcc is None:
        return "absent"
    text = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    return text.strip().splitlines()[-1]


def main(argv: list[str] | None = None) -> int:
    """``python -m gpusim.kernels.build OUT_DIR``: every feasible instance, one cubin each."""
    import argparse

    from gpusim.kernel_catalog.instances import all_instances

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="substring filter on instance keys")
    ap.add_argument("--sass", type=Path, help="also write SASS opcode counts (JSON) here")
    args = ap.parse_args(argv)
    insts = [i for i in all_instances() if args.only in i.key]
    report = build_cubins(insts, args.out_dir, jobs=args.jobs)
    if args.sass:
        from gpusim.source_commit import git_commit

        doc = {
            "nvcc": nvcc_version(),
            "arch": "sm_90",
            "git_commit": git_commit(),
            "ptxas": report,
            "sass_static_counts": sass_summary(args.out_dir, [i.key for i in insts]),
        }
        atomic.write_text(args.sass, json.dumps(doc, indent=1, sort_keys=True))
    spilling = {k: v["spill_store_bytes"] for k, v in report.items() if v["spill_store_bytes"]}
    print(f"{len(report)} cubins in {args.out_dir}; {len(spilling)} spill: {spilling}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
