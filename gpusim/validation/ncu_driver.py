"""What ``ncu`` profiles: each listed config launched exactly once, between two marker kernels.

    python -m gpusim.validation.ncu_driver --ids-file IDS [--cubin-dir DIR]

The markers (one thread each; grid size ``2i + 1`` before config ``i`` of the ids file and
``2i + 2`` after it) let :func:`gpusim.ncu.attribute` assign exactly the kernels
in between to that config. A config's inputs are generated before its first marker, so
CuPy's generator kernels fall outside every pair and are never counted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from gpusim.ncu import MARKER_KERNEL
from gpusim.validation.configs import sweep_configs

_MARKER_SRC = f'extern "C" __global__ void {MARKER_KERNEL}(int i) {{}}'


def marker_kernel(cp):
    """The empty kernel whose launches bracket one config's kernels in ncu's report."""
    return cp.RawKernel(_MARKER_SRC, MARKER_KERNEL)


def launch_marked(cp, marker, index: int, launches) -> None:
    """Run ``launches`` between markers ``2 index + 1`` and ``2 index + 2`` (grid sizes that
    name the config), the GPU idle before and after, so ncu's ids split by config."""
    cp.cuda.Device().synchronize()
    marker((2 * index + 1,), (1,), (np.int32(index),))
    for f in launches:
        f()
    marker((2 * index + 2,), (1,), (np.int32(index),))
    cp.cuda.Device().synchronize()


def main(argv: list[str] | None = None) -> int:
    """Launch the configs named in the ids file once each, markers between them."""
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--ids-file", type=Path, required=True)
    ap.add_argument("--cubin-dir", type=Path, default=None)
    args = ap.parse_args(argv)

    from gpusim.kernels.runner import Flash2Runner
    from gpusim.kernels.schedule_timing import random_inputs
    from gpusim.validation.standard_gpu import StandardAttention

    ids = [line.strip() for line in args.ids_file.read_text().splitlines() if line.strip()]
    by_id = {c.config_id: c for c in sweep_configs()}
    runner = Flash2Runner(cubin_dir=args.cubin_dir)
    cp = runner.cp
    marker = marker_kernel(cp)
    standard = None
    for index, cid in enumerate(ids):
        c = by_id.get(cid)
        if c is None:
            print(f"unknown config {cid}", file=sys.stderr)
            continue
        try:
            if c.kind == "flash2":
                inst = runner.instance(c.workload, c.schedule)
                loaded = runner.load(inst)
                q, k, v = random_inputs(cp, c.workload, seed=0)
                o = cp.empty_like(q)
                launches = [lambda: runner.launch(loaded, c.workload, q, k, v, o)]  # noqa: B023
            else:
                if standard is None:
                    cubin = args.cubin_dir / "row_softmax.cubin" if args.cubin_dir else None
                    standard = StandardAttention(cp, cubin)
                bufs = standard.buffers(c.workload)
                launches = list(standard.launchers(c.workload, bufs).values())
            launch_marked(cp, marker, index, launches)
            print(f"ncu driver: {cid} launched", file=sys.stderr, flush=True)
        except Exception as exc:  # one config failing must not stop the others
            print(f"ncu driver: {cid} failed: {exc}", file=sys.stderr, flush=True)
        finally:
            q = k = v = o = bufs = None  # free this config's buffers
            cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
