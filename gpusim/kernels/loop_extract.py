"""Regenerate the committed loop counts and loop paths from each instance's compiled SASS.

Builds every tensor-core instance with the offline nvcc build (:mod:`gpusim.kernels.build`),
walks its main loop (:mod:`gpusim.kernel_catalog.sass_loop`,
:mod:`gpusim.kernel_catalog.sass_decode`) and writes what
:mod:`gpusim.kernel_catalog.loop_counts` reads. Run with
``python -m gpusim.kernels.loop_extract`` (nvcc and cuobjdump needed).
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gpusim import atomic
from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernel_catalog.loop_counts import LOOP_PATHS, PRODUCT_OPS
from gpusim.kernel_catalog.sass_decode import core_path
from gpusim.kernel_catalog.sass_loop import cta_overhead, step_ops
from gpusim.kernels.build import compile_cubin, dump_sass, nvcc_version


def instance_loop(inst: KernelInstance, tmp: Path) -> tuple[dict[str, int], list, dict]:
    """One instance compiled with the offline build's nvcc and options: its loop counts (as
    :func:`count` records them), its steady step as core-model rows, and ptxas's report."""
    cubin = tmp / f"{inst.key}.cubin"
    report = compile_cubin([inst], cubin)
    (fn,) = re.split(r"\n\s*Function : ", dump_sass(cubin))[1:]
    forms = step_ops(fn)
    rec = {
        form: sum(v for op, v in forms[form].items() if op not in PRODUCT_OPS)
        for form in ("steady", "masked")
    }
    rec |= {
        "hmma": forms["steady"]["HMMA"],
        "ldsm": forms["steady"]["LDSM"],
        "first_step_ldsm": forms["first_ldsm"]["LDSM"],
        "cta_overhead": cta_overhead(fn),
    }
    return rec, [i.row() for i in core_path(fn)], next(iter(report.values()), {})


def count(
    insts: list[KernelInstance], jobs: int = 2, paths: dict[str, list] | None = None
) -> dict[str, dict[str, int]]:
    """Per instance key, per warp: instructions of one step besides HMMA and LDSM (``steady``,
    ``masked``), the step's HMMA and LDSM, the LDSM the first step adds, and the
    instructions run once per CTA outside the loop (``cta_overhead``). ``paths``, when
    given, receives each instance's steady step as the core model's instructions (lists)."""
    insts = [i for i in insts if i.variant == "tc"]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
        got = dict(
            zip(
                [i.key for i in insts],
                pool.map(lambda i: instance_loop(i, Path(tmp)), insts),
                strict=True,
            )
        )
    if paths is not None:
        paths.update({k: v[1] for k, v in got.items()})
    return {k: v[0] for k, v in got.items()}


def main(argv: list[str] | None = None) -> int:
    """Count every tensor-core instance's loop and write ``loop_counts.json`` (and the loop
    paths beside it) to ``--out``; the recorded build the model reads is :data:`LOOP_COUNTS`."""
    import argparse

    from gpusim.kernel_catalog.instances import all_instances
    from gpusim.source_commit import git_commit

    ap = argparse.ArgumentParser(description=main.__doc__)
    # Required: the recorded build under data/ is never rewritten in place; a new build goes
    # to a file of its own (a new data folder, with its manifest).
    ap.add_argument("--out", type=Path, required=True, help="loop_counts.json to write")
    ap.add_argument("--only", default="", help="substring filter on instance keys")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    insts = [i for i in all_instances() if i.variant == "tc" and args.only in i.key]
    doc = {
        "what": "warp-instructions per K/V step of the main loop, besides HMMA and LDSM "
        "(steady: prefetch, no mask; masked: the same on a masked tile); see "
        "gpusim/kernel_catalog/loop_counts.py",
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
