"""Held-out set 10's predictions and verdict: the core model replaying the long-context
switch instances against their kernels timed by the pipe model
(:mod:`gpusim.validation.switch_replay_heldout10`).

    python -m gpusim.reporting.switch_replay_verdict predict --out PRED.json
    python -m gpusim.reporting.switch_replay_verdict compare --predictions PRED.json \\
        --measured data/h200/2026-12-04_switch_replay_heldout10 [--out COMPARE.json]

Each variant is a profile and whether the engine replays the switch instances
(:func:`gpusim.engine.switch_replay.replaying_switches`): ``record`` and ``candidate`` on
``h200-sxm-core`` (judged, on the project's runs), ``default`` (``h200-sxm``, reported).
"""

from __future__ import annotations

from gpusim.engine.load_latency import latency_under_queue
from gpusim.engine.switch_replay import replaying_switches
from gpusim.reporting import variant_verdict
from gpusim.validation.switch_replay_heldout10 import heldout10_configs


def _as_judged(on: bool):
    """The switch replay ``on`` or off, with the engine as it was when the set was judged (a
    load's latency before its transfer: held-out set 12 came after)."""
    import contextlib

    stack = contextlib.ExitStack()
    stack.enter_context(latency_under_queue(False))
    stack.enter_context(replaying_switches(on))
    return stack


VARIANTS = variant_verdict.Variants(
    specs={
        "record": ("h200-sxm-core", False),
        "candidate": ("h200-sxm-core", True),
        "default": ("h200-sxm", True),
    },
    judged=("record", "candidate"),
    kernels="project",
    toggle=_as_judged,
    flag="replays_switches",
)
JUDGED = VARIANTS.judged


def main(argv: list[str] | None = None) -> int:
    prog = "python -m gpusim.reporting.switch_replay_verdict"
    return variant_verdict.main(argv, prog, VARIANTS, heldout10_configs())


if __name__ == "__main__":
    raise SystemExit(main())
