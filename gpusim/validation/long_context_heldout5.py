"""The fifth long-context held-out set: DRAM bytes at exactly 64k and 128k tokens on shapes no
earlier set has, to judge the K/V trace with SM-mates drifting apart.

    python -m gpusim.validation.long_context_heldout5 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.long_context_heldout5 --list

The trace's ``kv_trace_mates`` variant (gpusim/reporting/long_context_dram.py) was built after
sets 1-4 were measured: its two mechanisms come from kv_walk (no attention kernel): CTAs
walking a shared buffer keep in lockstep, and CTAs sharing an SM drift apart by age rank at a
rate read at the run's tile step (gpusim/calibrate/sm_mate_drift.py). It was then computed on
the seen sets (reports/long_context/README.md), so none of them can judge it. This set's
prefill shapes are new: 64k with 20 heads, 32 heads at d64, GQA 16/2 and batch 3 with 2
heads; 128k with 6 heads, 12 heads at d64, GQA 12/3 and batch 2 with 2 heads; causal and
unmasked in several (kv_order, q_order) pairs, and PyTorch's kernel on four of them, every
run counted by Nsight Compute and timed. Sized for one device call of at most 400 s.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import LongContextConfig, set_command
from gpusim.validation.long_context_heldout2 import FOUR, prefill_configs

FWD_LF, BWD_LF, FWD_FF, BWD_FF = FOUR
#: (batch, tokens, heads, K/V heads, head dim, causal (kv, q) orders, unmasked orders)
SHAPES = (
    (1, 65536, 20, 20, 128, (FWD_LF, BWD_FF), (FWD_LF, BWD_LF)),
    (1, 65536, 32, 32, 64, (FWD_LF,), (FWD_LF,)),
    (1, 65536, 16, 2, 128, (BWD_LF,), (FWD_LF,)),
    (3, 65536, 2, 2, 128, (FWD_FF,), (FWD_LF,)),
    (1, 131072, 6, 6, 128, (BWD_LF, FWD_FF), (FWD_LF,)),
    (1, 131072, 12, 12, 64, (FWD_LF,), (FWD_LF, BWD_FF)),
    (1, 131072, 12, 3, 128, (FWD_LF,), (FWD_LF,)),
    (2, 131072, 2, 2, 128, (BWD_FF,), (FWD_LF,)),
)
#: PyTorch's flash backend on: (batch, tokens, heads, K/V heads, head dim, causal).
TORCH = (
    (1, 65536, 20, 20, 128, True),
    (1, 65536, 32, 32, 64, False),
    (1, 131072, 6, 6, 128, True),
    (1, 131072, 12, 3, 128, False),
)


def heldout5_configs() -> list[LongContextConfig]:
    """The set in run order: the project's prefill runs, then PyTorch's."""
    return prefill_configs(SHAPES, TORCH)


RULE = (
    "judged: the K/V trace with SM-mates (kv_trace_mates: shared-traffic aging, CTAs in "
    "lockstep, the SM-mates' priority from kv_walk --drift at each run's tile step), the "
    "candidate, against the DRAM model of record of sets 3 and 4 (kv_trace_shared), beside "
    "the engine's tile L2 (what gpusim simulate reports) and the compulsory baseline; the "
    "engine's runtime beside the roofline and constant-efficiency baselines. Reported per "
    "model: MAPE, mean signed error and the worst runs, at 64k, at 128k and over all runs, "
    "from predictions committed before the run. kv_trace_mates becomes the DRAM model of "
    "record if its MAPE at 64k/128k here is lower than kv_trace_shared's; nothing is tuned "
    "on this set. Targets (issue 18): DRAM 10 % at 64k/128k, runtime 10 % (project) and "
    "15 % (PyTorch)"
)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "issue 18 fifth long-context held-out set (DRAM bytes at 64k and 128k: the K/V trace "
        "with SM-mates drifting apart): configurations fixed before they are measured "
        "(python -m gpusim.validation.long_context_heldout5 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("long_context_heldout5", doc, heldout5_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
