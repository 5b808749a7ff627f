"""Microbenchmark: a step's efficiency by how an SM's warps are grouped into CTAs (CuPy, a GPU).

    python -m gpusim.calibrate.step_grouping --out FILE           # on the GPU
    python -m gpusim.calibrate.step_grouping --table FILE         # the field it gives

The two load-product-softmax loops of ``smem_overlap`` (kernels/step_size.cu at 8
accumulators: ldmatrix.x4 feeding 4 or 2 mma.sync, a softmax pass, ``__syncthreads()``), no
attention kernel's code, launched as 1-4 CTAs of 4 warps, 1-2 of 8 and one of 16 on every SM.
Per loop and launch, the efficiency is the cycles per warp-iteration at four warps a scheduler
(the mean of one 16-warp CTA and four 4-warp CTAs, the reference of the profile's
per-scheduler step efficiencies) over the launch's; the field
``step_efficiency_by_cta_warps`` (:mod:`gpusim.engine.cta_grouping`) is the two loops' mean,
``{"warps per CTA": [[CTAs per SM, efficiency], ...]}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from gpusim.calibrate import standalone

#: (ldmatrix.x4 per warp-iteration, mma.sync fed by each, accumulators): smem_overlap's loops
LOOPS = ((16, 4, 8), (32, 2, 8))
#: (threads per CTA, CTAs per SM)
SHAPES = ((128, 1), (128, 2), (128, 3), (128, 4), (256, 1), (256, 2), (512, 1))
#: the reference launches: four warps a scheduler, one CTA of 16 warps and four of 4
REFERENCE = ((512, 1), (128, 4))
WARP_THREADS = 32


def run(quick: bool = False) -> dict[str, Any]:
    """Both loops at every launch shape (``quick`` changes only the timing's repeats)."""
    from gpusim.calibrate import step_size

    return step_size.run(quick, LOOPS, SHAPES)


def efficiencies(record: dict[str, Any], shapes=SHAPES) -> dict[str, list[list[float]]]:
    """``{warps per CTA: [[CTAs per SM, efficiency], ...]}``, the loops' mean (see the module),
    at ``shapes`` (the reference launches among them)."""
    per_warp = {
        (r["nld"], r["mma_per_ld"], r["threads"], r["ctas_per_sm"]):
        r["cycles_per_iteration_per_scheduler"] / r["warps_per_scheduler"]
        for r in record["rows"]
    }  # fmt: skip
    out: dict[str, list[list[float]]] = {}
    for threads, ctas in shapes:
        effs = []
        for nld, per_ld, _acc in LOOPS:
            ref = statistics.fmean(per_warp[(nld, per_ld, *s)] for s in REFERENCE)
            effs.append(ref / per_warp[(nld, per_ld, threads, ctas)])
        key = str(threads // WARP_THREADS)
        out.setdefault(key, []).append([ctas, round(statistics.fmean(effs), 3)])
    return out


def profile_entry(record: dict[str, Any], path: str) -> dict[str, Any]:
    """The profile's ``step_efficiency_by_cta_warps`` from a record written to ``path``."""
    return {
        "value": efficiencies(record),
        "source": f"measured on {record['gpu']}, {record['date']}, python -m "
        f"gpusim.calibrate.step_grouping ({path})",
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (``--out``), or print the field a record gives (``--table``)."""
    argv = sys.argv[1:] if argv is None else argv
    if "--table" not in argv:
        return standalone.main(__doc__, run, argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", required=True)
    a = ap.parse_args(argv)
    try:
        entry = profile_entry(json.loads(Path(a.table).read_text()), a.table)
    except (OSError, ValueError, KeyError) as exc:
        print(f"step_grouping: error: {a.table}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(entry, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
