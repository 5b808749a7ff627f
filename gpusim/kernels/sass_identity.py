"""Proof that moving the fp32 products into ``simt_products.inc`` changed no machine code.

    python -m gpusim.kernels.sass_identity [--baseline COMMIT]

The fp32 kernel (``flash2_simt.cu``) and the ``simt_mm`` microbenchmark used to hold two
copies of the same product loops; both now include one fragment, as text, at the place the
statements stood. Recorded SASS, registers and timings came from the old source, so the
compiled code must be the same to the bit. This compiles, with the local nvcc (sm_90, the
project's options), every fp32 instance of the grid (72, feasible or not) and every
``simt_mm`` instance, once from ``--baseline``'s sources (read with ``git show``) and once
from this checkout, and compares per function: ``cuobjdump --dump-sass`` text and ptxas's
resource report. For the kernel it also compares the preprocessed token streams (``nvcc
-E``, line markers dropped). It prints the counts and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import grid_instances
from gpusim.kernels.build import dump_sass, find_tool, parse_ptxas
from gpusim.kernels.source import CXX_OPTIONS, explicit_instantiations, kernel_source

FLASH2_KERNEL_DIR = Path(__file__).resolve().parent
#: The microbenchmarks' sources (as a path: gpusim.calibrate is a sibling layer, not imported)
CALIBRATE_KERNEL_DIR = FLASH2_KERNEL_DIR.parent / "calibrate" / "kernels"
#: What gpusim.calibrate.sources passes to NVRTC (tests/kernels checks they agree)
INCLUDE_OPTIONS = (f"-I{CALIBRATE_KERNEL_DIR}", f"-I{FLASH2_KERNEL_DIR}")
#: main before the products moved into simt_products.inc
BASELINE = "23a74a0"
_KERNEL_FILES = ("flash2_common.cuh", "flash2_tc.cu", "flash2_simt.cu", "flash2_combine.cu")
_SIMT_MM_FILES = ("simt_mm.cu", "clocks.cuh")


def _export(commit: str, folder: Path, names: tuple[str, ...], into: Path) -> Path:
    """Files ``names`` of ``folder`` (relative to the repository) at ``commit``, in ``into``."""
    into.mkdir(parents=True)
    rel = folder.relative_to(REPO_ROOT)
    for name in names:
        text = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "show", f"{commit}:{rel / name}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        (into / name).write_text(text)
    return into


def _nvcc(src: Path, out: Path, includes: tuple[str, ...] = ()) -> dict[str, dict]:
    nvcc = find_tool("nvcc")
    if nvcc is None:
        raise GpusimError("nvcc is not installed")
    cmd = [nvcc, "-arch=sm_90", *CXX_OPTIONS, *includes, "-cubin", "-Xptxas", "-v"]
    proc = subprocess.run([*cmd, str(src), "-o", str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise GpusimError(f"nvcc failed on {src.name}: {proc.stderr.strip()[-1500:]}")
    return parse_ptxas(proc.stderr + proc.stdout)


def _tokens(src: Path, includes: tuple[str, ...] = ()) -> list[str]:
    """The preprocessed source split on white space, line markers dropped."""
    nvcc = find_tool("nvcc")
    cmd = [str(nvcc), "-arch=sm_90", *CXX_OPTIONS, *includes, "-E", "-x", "cu", str(src)]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [t for line in text.splitlines() if not line.startswith("#") for t in line.split()]


def sass_by_function(cubin: Path) -> dict[str, str]:
    """Each function's SASS text, from ``cuobjdump --dump-sass``."""
    out = {}
    for chunk in dump_sass(cubin).split("Function : ")[1:]:
        name, body = chunk.split(None, 1)
        out[name] = body
    return out


def _build(src: Path, includes: tuple[str, ...] = ()) -> tuple[dict[str, str], dict[str, dict]]:
    cubin = src.with_suffix(".cubin")
    report = _nvcc(src, cubin, includes)
    return sass_by_function(cubin), report


def compare(baseline: str, tmp: Path) -> list[str]:
    """Lines of the comparison; the last says identical or not."""
    lines = []
    differ: list[str] = []
    inst = explicit_instantiations(grid_instances("simt"))
    base_dir = _export(baseline, FLASH2_KERNEL_DIR, _KERNEL_FILES, tmp / "base_kernels")
    pair = {}
    for tag, text in (("base", kernel_source(base_dir)), ("new", kernel_source())):
        src = tmp / f"{tag}_flash2_simt.cu"
        src.write_text(text + "\n" + inst)
        pair[tag] = (*_build(src), _tokens(src))
    (sb, rb, tb), (sn, rn, tn) = pair["base"], pair["new"]
    differ += [
        f for f in sorted(set(sb) | set(sn)) if sb.get(f) != sn.get(f) or rb.get(f) != rn.get(f)
    ]
    lines.append(f"fp32 kernel: {len(sn)} functions (baseline {len(sb)}); SASS and ptxas report"
                 f" differ in {len(differ)}; preprocessed tokens "
                 f"{'identical' if tb == tn else 'differ'} ({len(tn)} tokens)")  # fmt: skip
    if tb != tn:
        differ.append("preprocessed kernel source")
    mm_dir = _export(baseline, CALIBRATE_KERNEL_DIR, _SIMT_MM_FILES, tmp / "base_calibrate")
    mb, mrb = _build_copy(mm_dir / "simt_mm.cu", tmp / "base_simt_mm.cu", (f"-I{mm_dir}",))
    mn, mrn = _build_copy(
        CALIBRATE_KERNEL_DIR / "simt_mm.cu", tmp / "new_simt_mm.cu", INCLUDE_OPTIONS
    )
    mm_differ = [
        f for f in sorted(set(mb) | set(mn)) if mb.get(f) != mn.get(f) or mrb.get(f) != mrn.get(f)
    ]
    lines.append(f"simt_mm: {len(mn)} functions (baseline {len(mb)}); SASS and ptxas report"
                 f" differ in {len(mm_differ)}")  # fmt: skip
    differ += mm_differ
    total = len(sn) + len(mn)
    ok = not differ and len(sn) == len(sb) and len(mn) == len(mb) and len(sn) > 0
    lines.append(
        f"{'identical' if ok else 'DIFFERENT'}: {total} functions compared against {baseline}"
    )
    lines += [f"  differs: {f}" for f in differ]
    return lines


def _build_copy(src: Path, dst: Path, includes: tuple[str, ...]) -> tuple[dict, dict]:
    dst.write_text(src.read_text())
    return _build(dst, includes)


def main(argv: list[str] | None = None) -> int:
    """Compile both, compare, print; 0 when every function is identical."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help="commit with the old sources")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gpusim_sass_identity_") as tmp:
        lines = compare(args.baseline, Path(tmp))
    print("\n".join(lines))
    return 0 if not any("DIFFERENT" in x for x in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
