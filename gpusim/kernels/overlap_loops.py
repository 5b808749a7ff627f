"""The SM core model against microbenchmark loops: their SASS, decoded, for a CPU test.

    python -m gpusim.kernels.overlap_loops --out DIR [--kernel cta_phase]   # nvcc, cuobjdump

Compiles the ``smem_overlap`` loops (gpusim/calibrate/kernels/smem_overlap.cu, the
instances its benchmark ran) for sm_90 with nvcc, takes each one's main loop (the span
its backward branch closes, every instruction once: the loops have no other branch) and
writes them decoded as the core model reads them, as ``loop_paths_sm90.json`` in ``--out``
(default: a fresh temporary folder; the committed copy is
data/h200/2026-11-30_calibration_smem_overlap/loop_paths_sm90.json).
``tests/engine/test_core_model_loops.py`` replays them at the recorded launch shapes and
compares with the cycles the H200 measured (data/h200/2026-11-30_calibration_smem_overlap).
The H200 ran NVRTC builds of the same source; nvcc 13.0 and NVRTC 13.0 share the back end.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from gpusim.kernel_catalog.sass_decode import decoded
from gpusim.kernel_catalog.sass_loop import main_loop, parse
from gpusim.kernels.build import dump_sass, find_tool, nvcc_version
from gpusim.kernels.measurement_provenance import git_commit

KERNELS = Path(__file__).resolve().parents[1] / "calibrate" / "kernels"


def main(argv: list[str] | None = None) -> int:
    """Build the loops, decode each main loop, write ``loop_paths_sm90.json`` into ``--out``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="folder (default: a fresh temporary)")
    ap.add_argument(
        "--kernel",
        choices=("smem_overlap", "cta_phase"),
        default="smem_overlap",
        help="the source whose loops to decode (cta_phase.cu: the same loops, CTAs staggered)",
    )
    args = ap.parse_args(argv)
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="gpusim-loops-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "loop_paths_sm90.json"
    nvcc = find_tool("nvcc")
    if nvcc is None or find_tool("cuobjdump") is None:
        print("error: nvcc and cuobjdump are needed", file=sys.stderr)
        return 2
    src = (KERNELS / f"{args.kernel}.cu").read_text()
    # the source instantiates the loops its benchmark runs
    with tempfile.TemporaryDirectory() as tmp:
        cu, cubin = Path(tmp) / "loops.cu", Path(tmp) / "loops.cubin"
        cu.write_text(src)
        subprocess.run(
            [
                nvcc,
                "-arch=sm_90",
                "-std=c++17",
                f"-I{KERNELS}",
                "-cubin",
                "-o",
                str(cubin),
                str(cu),
            ],
            check=True,
        )
        sass = dump_sass(cubin)
    loops = {}
    for fn in re.split(r"\n\s*Function : ", sass)[1:]:
        name = fn.split("\n", 1)[0].strip()
        m = re.search(r"ILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", name)
        key = "{}<{},{},{},{}>".format(args.kernel, *m.groups())
        lo, hi = main_loop(parse(fn))
        by_addr = decoded(fn)
        loops[key] = [by_addr[a].row() for a in sorted(by_addr) if lo <= a <= hi]
    doc = {
        "what": f"main loop of each {args.kernel} instance, per instruction: [opcode, stall, write "
        "barrier, read barrier, wait mask, registers written, registers read]",
        "nvcc": nvcc_version(),
        "arch": "sm_90",
        "git_commit": git_commit(),
        "loops": loops,
    }
    out.write_text(json.dumps(doc, indent=0, sort_keys=True) + "\n")
    print(f"{len(loops)} loops -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
