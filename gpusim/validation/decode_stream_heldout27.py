"""Held-out set 27: the tile stream's latency, scoped to what step_stream measured, judged on
decodes drawn afresh (set 26's generator, another seed).

    python -m gpusim.validation.decode_stream_heldout27 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.decode_stream_heldout27 --list
    python -m gpusim.reporting.stream_set predict27|compare27 ...

Held-out set 26 reopened the law (:mod:`gpusim.engine.stream_latency`): it had been applied to
kernels step_stream never measured, the split-KV combine (register loads) and one-stage K/V
loops (PyTorch's flash kernel), and PyTorch's decodes went 7.76 -> 21.0 %. The law is now
scoped to kernels that ask for whole steps of tiles ahead (2 or more stages, cp.async) and
judged here, on :func:`gpusim.validation.decode_stream_heldout26.draw` with seed
:data:`SEED`, by :data:`RULE` (set 26's bar).
"""

from __future__ import annotations

from gpusim.validation.decode_stream_heldout26 import draw
from gpusim.validation.long_context_configs import LongContextConfig, set_command

SEED = 27
RULE = (
    "judged: on the card the device lends, its profile as at this commit (h100-sxm5 on an "
    "H100, h200-sxm on an H200) predicts every measured run with the tile stream's latency "
    "(scoped to cp.async kernels of 2 or more stages) on and off. The law is adopted (STREAM "
    "on by default) if over the project's runs its MAPE is at most 7 % and lower than without "
    "it (held-out set 26's bar); PyTorch's runs (one-stage K/V loads, outside the law's scope, "
    "so the same either way) and the project's three-stage runs are reported apart, with the "
    "worst runs and a roofline on the same runs. Nothing is tuned on this set"
)


def heldout27_configs() -> list[LongContextConfig]:
    """The set in run order."""
    return draw(SEED)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 27: the tile stream's latency scoped to what step_stream measured, on new "
        "decodes (python -m gpusim.validation.decode_stream_heldout27 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("decode_stream_heldout27", doc, heldout27_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
