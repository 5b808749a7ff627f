"""Issue and serialisation of mma.sync with dependent softmax-like work (kernels/issue.cu).

Not part of the profile suite: run on its own (``python -m gpusim.calibrate.issue --out
FILE``). For each loop (``NMMA`` HMMAs, ``ROUNDS`` softmax passes, barrier or not) and
each launch shape (warps per scheduler 1, 2, 4; one CTA of 4-16 warps per SM or 2-4
CTAs of 4 warps), it records warp-iterations per SM clock and the SM clock, from which
cycles per iteration follow
(every warp of a scheduler doing one iteration). The engine's step-timing rule is checked
against these numbers (tests/engine/test_issue_rule.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpusim.calibrate import standalone
from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.sources import compile_module, kernel_attributes
from gpusim.calibrate.warp_loops import SHAPES, loop_rows

#: (NMMA, ROUNDS, SYNC) loops compiled by kernels/issue.cu
LOOPS = (
    (64, 0, 1),
    (0, 1, 1),
    (0, 2, 1),
    (64, 1, 1),
    (64, 2, 1),
    (128, 1, 1),
    (64, 1, 0),
    (0, 1, 0),
    (64, 0, 0),
)


def run(quick: bool = False) -> dict[str, Any]:
    """Every loop at every launch shape: warp-iterations per clock per SM, and the clock."""
    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    names = tuple(f"issue_loop<{n},{r},{s}>" for n, r, s in LOOPS)
    mod = compile_module(cp, "issue.cu", names)
    threads_max = max(t * b for t, b in SHAPES) * ctx.sm_count
    vals = cp.random.uniform(0.25, 1.0, size=12 * threads_max, dtype=cp.float32)
    operands = vals.astype(cp.float16).view(cp.uint32)
    out = cp.zeros(threads_max, dtype=cp.float32)
    rows = []
    kernels = {}
    for nmma, rounds, sync in LOOPS:
        name = f"issue_loop<{nmma},{rounds},{sync}>"
        kernel = mod.get_function(name)
        kernels[name] = kernel_attributes(kernel)

        def args(iters: int, stamps: Any) -> tuple[Any, ...]:
            return (operands, np.int32(iters), np.uint32(0), out, stamps)

        params = {"nmma": nmma, "rounds": rounds, "sync": sync}
        rows += loop_rows(ctx, kernel, name, params, SHAPES, args)
    if not bool(cp.isfinite(out).all()):
        ctx.log("warning: non-finite outputs (values are not checked, only timed)")
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write its JSON."""
    return standalone.main(__doc__, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
