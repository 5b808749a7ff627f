"""The fourth long-context held-out set: DRAM bytes at exactly 64k and 128k tokens, and the
runtime of backward K/V walks, on shapes no earlier set has.

    python -m gpusim.validation.long_context_heldout4 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.long_context_heldout4 --list

Three held-out sets and the development set have been seen by the K/V trace; the engine's
chunks of backward walks were aligned after all of them (gpusim/engine/chunks.py). This
set's prefill shapes are new: 64k with 12 heads, with 24 heads at d64, with GQA 24/6 and at
batch 2 with 4 heads; 128k with 3 heads, with 10 heads at d64 and with GQA 16/4; causal in
several (kv_order, q_order) pairs and unmasked, every one counted by Nsight Compute. Its
decode runs (timed, not counted) walk their keys backward, split: the project's kernel with
``kv_order`` backward and PyTorch's split kernel. Sized for one device call of at most 360 s.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.launch_set import launch_configs
from gpusim.validation.long_context_configs import LongContextConfig, set_command
from gpusim.validation.long_context_heldout2 import FOUR, prefill_configs

FWD_LF, BWD_LF, FWD_FF, BWD_FF = FOUR
#: (batch, tokens, heads, K/V heads, head dim, causal (kv, q) orders, unmasked orders)
SHAPES = (
    (1, 65536, 12, 12, 128, FOUR, (FWD_LF,)),
    (1, 65536, 24, 24, 64, (BWD_LF, FWD_FF), (FWD_LF,)),
    (1, 65536, 24, 6, 128, (FWD_LF, BWD_FF), (BWD_LF,)),
    (2, 65536, 4, 4, 128, (FWD_LF,), (FWD_LF,)),
    (1, 131072, 3, 3, 128, (FWD_LF, BWD_FF), (FWD_LF,)),
    (1, 131072, 10, 10, 64, (BWD_LF, FWD_FF), (FWD_LF,)),
    (1, 131072, 16, 4, 128, (BWD_LF,), (FWD_LF,)),
)
#: PyTorch's flash backend on: (batch, tokens, heads, K/V heads, head dim, causal).
TORCH = (
    (1, 65536, 12, 12, 128, True),
    (1, 65536, 24, 6, 128, True),
    (1, 131072, 3, 3, 128, False),
    (1, 131072, 10, 10, 64, True),
)
#: decode, timed only: (group, batch, heads, K/V heads, queries, keys, head dim, causal, the
#: project's splits), as the launch sets write them
DECODE = (
    ("decode", 1, 32, 32, 1, 65536, 128, True, (8,)),
    ("decode", 2, 16, 16, 4, 98304, 128, True, (4,)),
    ("gqa_decode", 4, 32, 8, 1, 49152, 128, True, (2,)),
)


def heldout4_configs() -> list[LongContextConfig]:
    """The set in run order: the project's prefill runs, PyTorch's, then the decode runs."""
    return [*prefill_configs(SHAPES, TORCH), *launch_configs(DECODE, kv_order="backward")]


RULE = (
    "no model is chosen by this set: it measures the models of record as they stand at the "
    "commit that writes the manifest (the K/V trace with shared-traffic aging, the judged "
    "DRAM model; the engine's tile L2 with backward walks aligned, what gpusim simulate "
    "reports; the engine's runtime) against Nsight Compute's DRAM bytes and CUDA-event "
    "times; reported per model: MAPE, mean signed error and the worst runs, at 64k and at "
    "128k and over all DRAM runs, runtime by kernel and group, beside the compulsory "
    "baseline (DRAM) and the roofline and constant-efficiency baselines (runtime); targets "
    "(issue 18): DRAM 10 % at 64k/128k, runtime 10 % (project) and 15 % (PyTorch)"
)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "issue 18 fourth long-context held-out set (DRAM bytes at 64k and 128k, backward "
        "walks' runtime): configurations fixed before they are measured "
        "(python -m gpusim.validation.long_context_heldout4 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("long_context_heldout4", doc, heldout4_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
