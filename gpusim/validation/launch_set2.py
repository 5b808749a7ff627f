"""A second held-out set for the launch charge: the queued launch of a split run's second kernel.

    python -m gpusim.validation.launch_set2 --write PATH          # the manifest (JSON)
    python -m gpusim.validation.launch_set2 --list
    python -m gpusim.validation.launch_set2 --write-profile PATH  # the variant profile

The first launch set (:mod:`gpusim.validation.launch_set`, reports/long_context/launch) kept
the isolated launch charge, 9.36 us a kernel, against the CUDA-graph dispatch rate, but
showed the isolated charge too large for the second kernel of a split-KV run (+17 % mean
over its six two-kernel runs), and its device call measured what a second kernel queued
behind a first one costs between CUDA events: 1.81 us (``queued_second_launch_s``,
data/h200/2026-12-04_launch_set/launch-h200.json; empty kernels, no attention kernel). The
engine now charges a later kernel of a run the profile's ``kernel_queued_launch_s``; the
variant is ``h200-sxm`` with that field set to the measured 1.81 us and nothing else
changed (the first kernel still waits the whole 9.36 us). A mechanism a set suggested is
judged on a new set: this one, split-KV runs on shapes in no earlier set, the project's
kernel and PyTorch's flash backend (which chooses its own split count: a run it does not
split is one kernel, the same in both models).

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from pathlib import Path

from gpusim.data.layout import REPO_ROOT
from gpusim.validation.launch_set import (
    BASE_PROFILE,
    edited_profile,
    judged_base_lines,
    launch_configs,
    recorded_launch_s,
    set_main,
)

#: The record whose ``queued_second_launch_s`` the variant charges a later kernel.
CALIBRATION = REPO_ROOT / "data/h200/2026-12-04_launch_set/launch-h200.json"
VARIANT_NAME = "h200-sxm-queued-second"

#: (group, batch, heads, K/V heads, queries, keys, head dim, causal, project splits)
SHAPES = (
    ("decode", 1, 40, 40, 1, 24576, 128, False, (6,)),
    ("decode", 3, 32, 32, 1, 12288, 128, False, (4,)),
    ("decode", 1, 16, 16, 1, 65536, 128, False, (16,)),
    ("decode", 2, 32, 32, 1, 32768, 128, False, (3,)),
    ("gqa_decode", 8, 32, 8, 1, 4096, 128, False, (2,)),
    ("decode", 4, 16, 16, 1, 16384, 64, False, (4,)),
    ("decode", 1, 32, 32, 16, 16384, 128, True, (8,)),
)
RULE = (
    "the queued-second-kernel variant (a split run's second kernel charged "
    "kernel_queued_launch_s = the 1.81 us queued_second_launch_s of "
    "data/h200/2026-12-04_launch_set/launch-h200.json; the first kernel the whole 9.36 us "
    "as before) replaces h200-sxm's charge of a whole launch per kernel if and only if its "
    "runtime MAPE over every run of this set (the project's kernel and PyTorch's together) "
    "is lower; reported per kernel: MAPE, mean signed error and the worst run, beside the "
    "roofline and the constant-efficiency baselines"
)


def variant_profile_text(base: Path = BASE_PROFILE, calibration: Path = CALIBRATION) -> str:
    """``base`` renamed, with ``kernel_queued_launch_s`` from ``calibration`` after its
    launch time."""
    value = recorded_launch_s("queued_second_launch_s", calibration)
    rel = calibration.relative_to(REPO_ROOT)
    queued = [
        "kernel_queued_launch_s:",
        f"  value: {value!r}",
        f"  source: {rel}, queued_second_launch_s (gpusim calibrate launch)",
        "  note: the second launch set's variant (gpusim.validation.launch_set2) - an "
        "empty kernel queued behind another between CUDA events, less one alone",
    ]
    lines = edited_profile(
        judged_base_lines(base),
        replace={"name": [f"name: {VARIANT_NAME}"]},
        after={"kernel_launch_overhead_s": queued},
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), list the configurations, or write the variant."""
    what = (
        "launch charge held-out set 2 (a split run's second kernel: a whole launch against "
        "the measured queued launch): configurations fixed before they are measured "
        "(python -m gpusim.validation.launch_set2 --write)"
    )
    doc = __doc__.splitlines()[0]
    configs = launch_configs(SHAPES)
    return set_main("launch_set2", doc, configs, what, RULE, variant_profile_text, argv)


if __name__ == "__main__":
    raise SystemExit(main())
