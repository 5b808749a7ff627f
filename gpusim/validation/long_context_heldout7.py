"""The seventh long-context held-out set: issue 18's targets on the model as it stands, on
the H200 or the H100, whichever card the device call gets, at 64k and 128k tokens.

    python -m gpusim.validation.long_context_heldout7 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.long_context_heldout7 --list

Set 6 (the same question, predicted for the H200 only) came back from an H100, which the
device may lend instead of an H200; its runs are seen now. This set's runs are new, and
predictions for both cards are committed before the call: ``h200-sxm`` and the derived
``h100-sxm5`` (the H200's SM numbers, the H100's memory system from its datasheet; no
H100 measurement in it). The card the call names in its provenance decides which file is
judged. Nothing is judged but the targets, nothing tuned.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import set_command
from gpusim.validation.long_context_heldout2 import FOUR, prefill_configs

FWD_LF, BWD_LF, FWD_FF, BWD_FF = FOUR
#: (batch, tokens, heads, K/V heads, head dim, causal (kv, q) orders, unmasked orders)
SHAPES = (
    (1, 65536, 14, 14, 128, (BWD_LF,), (FWD_LF,)),
    (1, 65536, 24, 24, 64, (FWD_LF,), (BWD_LF,)),
    (1, 65536, 28, 7, 128, (FWD_LF,), (FWD_LF,)),
    (4, 65536, 2, 2, 128, (FWD_FF,), (FWD_LF,)),
    (1, 131072, 10, 10, 128, (FWD_LF, BWD_FF), (FWD_LF,)),
    (1, 131072, 20, 20, 64, (BWD_LF,), (FWD_LF,)),
    (1, 131072, 24, 4, 128, (FWD_LF,), (FWD_LF,)),
    (2, 131072, 1, 1, 128, (BWD_FF,), (FWD_LF,)),
)
#: PyTorch's flash backend on: (batch, tokens, heads, K/V heads, head dim, causal).
TORCH = (
    (1, 65536, 14, 14, 128, True),
    (1, 65536, 24, 24, 64, False),
    (1, 131072, 10, 10, 128, True),
    (1, 131072, 24, 4, 128, False),
)


def heldout7_configs():
    """The set in run order: the project's prefill runs, then PyTorch's."""
    return prefill_configs(SHAPES, TORCH)


RULE = (
    "nothing judged, nothing tuned: issue 18's targets on the model as it stands, on the "
    "card the device call gets (provenance names it): h200-sxm's predictions if an H200, "
    "h100-sxm5's (derived, never calibrated on an H100) if an H100, both committed before "
    "the run. Runtime (the engine) beside the roofline and constant-efficiency baselines: "
    "the project's kernel within 10 % MAPE, PyTorch's within 15 %. DRAM bytes of the model "
    "of record (the K/V trace with SM-mates, kv_trace_mates) beside the engine's tile L2 "
    "and the compulsory baseline, against Nsight Compute: within 10 % MAPE at 64k/128k. "
    "Reported per model: MAPE, mean signed error and the worst runs"
)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "issue 18 seventh long-context held-out set (the targets on the model as it stands, "
        "on the H200 or the H100): configurations fixed before they are measured "
        "(python -m gpusim.validation.long_context_heldout7 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("long_context_heldout7", doc, heldout7_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
