"""Held-out set 12's predictions and verdict: a load's latency under the memory system's
queue against latency, then transfer (:mod:`gpusim.validation.load_latency_heldout12`).

    python -m gpusim.reporting.load_latency_verdict predict --out PRED.json
    python -m gpusim.reporting.load_latency_verdict compare --predictions PRED.json \\
        --measured data/h200/2026-12-04_load_latency_heldout12 [--out COMPARE.json]

Each variant is a profile and whether a load's latency runs under the queue
(:func:`gpusim.engine.load_latency.latency_under_queue`): ``record`` and ``candidate`` on the
default ``h200-sxm`` (judged, over all runs), ``core_record`` and ``core_candidate`` on
``h200-sxm-core`` (reported).
"""

from __future__ import annotations

from gpusim.engine.load_latency import latency_under_queue
from gpusim.reporting import variant_verdict
from gpusim.validation.load_latency_heldout12 import heldout12_configs

VARIANTS = variant_verdict.Variants(
    specs={
        "record": ("h200-sxm", False),
        "candidate": ("h200-sxm", True),
        "core_record": ("h200-sxm-core", False),
        "core_candidate": ("h200-sxm-core", True),
    },
    judged=("record", "candidate"),
    kernels="",
    toggle=latency_under_queue,
    flag="latency_under_queue",
)


def main(argv: list[str] | None = None) -> int:
    prog = "python -m gpusim.reporting.load_latency_verdict"
    return variant_verdict.main(argv, prog, VARIANTS, heldout12_configs())


if __name__ == "__main__":
    raise SystemExit(main())
