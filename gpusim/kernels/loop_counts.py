"""Warp-instructions per step of the tensor-core kernel's main loop, read from its compiled SASS.

A formula over tile sizes misses by up to 40 % on some instances (the compiler unrolls,
hoists and predicates differently per instance), so the counts come from each instance's
own machine code, its main loop walked along one step's path (:mod:`gpusim.kernels.sass_loop`);
the same step, decoded (:mod:`gpusim.kernels.sass_decode`), is what the SM core model
replays. Both are committed: ``loop_counts.json`` and ``loop_paths.json.gz``.

HMMA and LDSM are reported apart (the tracer counts those from the tiles). These are
compile-time facts: nothing here is fitted to a timing. Regenerate with
``python -m gpusim.kernels.loop_counts`` (nvcc and cuobjdump needed).
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gpusim import atomic
from gpusim.data.layout import KERNELS_BUILD
from gpusim.kernels.build import compile_cubin, dump_sass, nvcc_version
from gpusim.kernels.instances import KernelInstance
from gpusim.kernels.sass_decode import core_path
from gpusim.kernels.sass_loop import cta_overhead, step_ops

LOOP_COUNTS = KERNELS_BUILD / "loop_counts.json"
#: One step of each instance's loop as the core model runs it (gzip-compressed JSON).
LOOP_PATHS = LOOP_COUNTS.with_name("loop_paths.json.gz")
#: Counted by the tracer from the tiles, not here.
PRODUCT_OPS = ("HMMA", "LDSM")


def _sass(insts: list[KernelInstance], tmp: Path, tag: str) -> str:
    cubin = tmp / f"{tag}.cubin"
    compile_cubin(insts, cubin)  # the offline build's nvcc and options
    return dump_sass(cubin)


def count(
    insts: list[KernelInstance], jobs: int = 2, paths: dict[str, list] | None = None
) -> dict[str, dict[str, int]]:
    """Per instance key, per warp: instructions of one step besides HMMA and LDSM (``steady``,
    ``masked``), the step's HMMA and LDSM, the LDSM the first step adds, and the
    instructions run once per CTA outside the loop (``cta_overhead``). ``paths``, when
    given, receives each instance's steady step as the core model's instructions (lists)."""
    insts = [i for i in insts if i.variant == "tc"]
    out: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:

        def one(inst: KernelInstance) -> tuple[str, dict[str, int]]:
            (fn,) = re.split(r"\n\s*Function : ", _sass([inst], Path(tmp), inst.key))[1:]
            forms = step_ops(fn)
            if paths is not None:
                paths[inst.key] = [i.row() for i in core_path(fn)]
            rec = {
                form: sum(v for op, v in forms[form].items() if op not in PRODUCT_OPS)
                for form in ("steady", "masked")
            }
            return inst.key, rec | {
                "hmma": forms["steady"]["HMMA"],
                "ldsm": forms["steady"]["LDSM"],
                "first_step_ldsm": forms["first_ldsm"]["LDSM"],
                "cta_overhead": cta_overhead(fn),
            }

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            out.update(pool.map(one, insts))
    return out


@functools.cache
def loop_path(key: str) -> tuple | None:
    """The committed steady step of instance ``key`` as core-model instructions, or None."""
    from gpusim.engine.core_model import Instr

    table = _loop_paths()
    if key not in table:
        return None
    return tuple(Instr.from_row(r) for r in table[key])


@functools.cache
def _loop_paths() -> dict[str, list]:
    if not LOOP_PATHS.exists():
        return {}
    return json.loads(gzip.decompress(LOOP_PATHS.read_bytes()))["instances"]


@functools.cache
def loop_counts() -> dict[str, dict[str, int]]:
    """The committed counts (empty when the file is absent)."""
    if not LOOP_COUNTS.exists():
        return {}
    return json.loads(LOOP_COUNTS.read_text())["instances"]


def main(argv: list[str] | None = None) -> int:
    """Count every tensor-core instance's loop and write :data:`LOOP_COUNTS`."""
    import argparse

    from gpusim.kernels.instances import all_instances
    from gpusim.kernels.provenance import git_commit

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--out", type=Path, default=LOOP_COUNTS)
    ap.add_argument("--only", default="", help="substring filter on instance keys")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    insts = [i for i in all_instances() if i.variant == "tc" and args.only in i.key]
    doc = {
        "what": "warp-instructions per K/V step of the main loop, besides HMMA and LDSM "
        "(steady: prefetch, no mask; masked: the same on a masked tile); see "
        "gpusim/kernels/loop_counts.py",
        "nvcc": nvcc_version(),
        "arch": "sm_90",
        "git_commit": git_commit(),
    }
    paths: dict[str, list] = {}
    doc["instances"] = count(insts, args.jobs, paths)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(args.out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    path_doc = {k: v for k, v in doc.items() if k not in ("instances", "what")}
    path_doc["what"] = (
        "one steady step of each instance's main loop, per instruction: [opcode, stall, "
        "write barrier, read barrier, wait mask, registers written, registers read]"
    )
    path_doc["instances"] = paths
    blob = gzip.compress(json.dumps(path_doc, sort_keys=True).encode(), mtime=0)
    args.out.with_name(LOOP_PATHS.name).write_bytes(blob)
    print(f"{len(doc['instances'])} instances -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
