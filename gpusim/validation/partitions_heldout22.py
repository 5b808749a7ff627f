"""Held-out set 22: SM partitions on the lent card, judging the shared-memory release beside
held-out set 21 (issue 19, item 4).

    python -m gpusim.validation.partitions_heldout22 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.partitions_heldout22 --list
    python -m gpusim.reporting.release_sets partitions-predict|partitions-compare ...

Workloads no partition set had (:data:`WORKLOADS`), the tiles of the partition sets (the
project's prefill 128 x 64 and decode 64 x 64, 4 warps, 2 stages; PyTorch's the schedule its
flash backend runs), each on green-context partitions of 8, 16, 32, 72 and 132 SMs. Predicted
before the run with the lent card's profile (``h100-sxm5`` on an H100, ``h200-sxm`` on an
H200) and its ``-release`` variant (:mod:`gpusim.validation.release_variant`, the mechanism
on). The rule: :data:`RULE` (and set 21's).
"""

from __future__ import annotations

from pathlib import Path

from gpusim.validation.partition_configs import partition_configs, set_command

#: (group, batch, heads, Nq, Nk, causal), in run order; none is a workload of an earlier
#: partition set (2026-12-02, held-out set 11)
WORKLOADS = (
    ("prefill", 3, 12, 2560, 2560, True),
    ("prefill", 2, 20, 4608, 4608, False),
    ("prefill", 6, 8, 1280, 1280, False),
    ("decode", 12, 24, 1, 10240, False),
    ("decode", 24, 16, 1, 6144, True),
)
PROFILES = ("h100-sxm5", "h100-sxm5-release", "h200-sxm", "h200-sxm-release")
#: the constant-efficiency baseline's reference, per kernel: this workload on the whole GPU
REFERENCE = "prefill_b3h12_q2560k2560_c1"
TARGET_SMS = (8, 72)
MANIFEST = Path("data/h100/2026-12-06_partitions_heldout22/manifest_configs.json")
RULE = (
    "judged with held-out set 21 (same call), on the card the device lends with its profile "
    "as at this commit (h100-sxm5 on an H100, h200-sxm on an H200) and that profile's "
    "-release variant: set 21's rule adopts the shared-memory release only if this set does "
    "not find the variant's runtime MAPE over the project's runs on 8-72 SMs higher than the "
    "profile's. Reported: issue 19's SM-partition target (MAPE <= 7 % over the runs on 8-72 "
    "SMs, the project's kernel and PyTorch's flash backend each) for both, mean signed error, "
    "the worst runs, the roofline and a constant-efficiency baseline (each kernel's roofline "
    "over measured time at prefill_b3h12_q2560k2560_c1 on the whole GPU). Nothing is tuned on "
    "this set"
)


def heldout22_configs():
    """The set in run order (50 runs)."""
    return partition_configs(WORKLOADS)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 22 (issue 19): SM partitions on the lent card, judging the shared-memory "
        "release (python -m gpusim.validation.partitions_heldout22 --write)"
    )
    return set_command("partitions_heldout22", __doc__.splitlines()[0], heldout22_configs(),
                       argv, what, RULE)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
