"""Held-out set 48: SM partitions on the lent card, the model as it stands (issue 19, item 4).

    python -m gpusim.validation.partitions_heldout48 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.partitions_heldout48 --list
    python -m gpusim.reporting.partitions_set48 predict|compare ...

Why a new set: since held-out set 22 judged partitions (2026-12-06, an H100) the model moved
under PyTorch's forward (its step counted as nvcc compiles it, set 43; head sizes bucketed as
its binary has them, set 45; its code's fetch charged once per CTA, sets 46-47) and under
decoding (the tile stream's law, set 28): issue 19's partition target is asked again of the
model as it is now, on workloads drawn by a seeded generator (:func:`draw_workloads`, seed
48; none in an earlier partition set), the tiles of the partition sets (the project's prefill
128 x 64 and decode 64 x 64, 4 warps, 2 stages), PyTorch's given the schedule the model gives
it today (:func:`~gpusim.validation.torch_kernel_code.charged_schedule`), each on
green-context partitions of 8, 16, 32, 72 and 132 SMs. Predicted before the run with
``h100-sxm5`` and ``h200-sxm``; the rule: :data:`RULE`.
"""

from __future__ import annotations

import random
from pathlib import Path

from gpusim.validation.partition_configs import partition_configs, set_command
from gpusim.validation.torch_kernel_code import charged_schedule

SEED = 48
PROFILES = ("h100-sxm5", "h200-sxm")
TARGET_SMS = (8, 72)
MANIFEST = Path("data/h100/2026-12-07_partitions_heldout48/manifest_configs.json")
RULE = (
    "judged on the card the device lends with its profile as at the predictions' commit "
    "(h100-sxm5 on an H100, h200-sxm on an H200); nothing is adopted or tuned on this set. "
    "Reported: issue 19's SM-partition target (MAPE <= 7 % over the runs on 8-72 SMs, the "
    "project's kernel and PyTorch's flash backend each), mean signed error, the worst runs, "
    "the runs on 132 SMs apart, beside the roofline and a constant-efficiency baseline (each "
    "kernel's roofline over measured time at the first prefill workload on the whole GPU)"
)


def draw_workloads(seed: int = SEED) -> tuple[tuple, ...]:
    """Three prefills and two decodes, d128 bf16 as every partition set: ``(group, batch,
    heads, Nq, Nk, causal)``. Prefills: batch 1-6, heads 8-32, 1024-8192 tokens in steps of
    256, masked or not; decodes: batch 8-32, heads 16-32, one query against 4096-16384 keys
    in steps of 512, masked or not."""
    rng = random.Random(seed)
    out = []
    for _ in range(3):
        n = 256 * rng.randint(4, 32)
        out.append(("prefill", rng.randint(1, 6), rng.choice((8, 12, 16, 20, 24, 32)), n, n,
                    rng.random() < 0.5))  # fmt: skip
    for _ in range(2):
        out.append(("decode", rng.randint(8, 32), rng.choice((16, 24, 32)), 1,
                    512 * rng.randint(8, 32), rng.random() < 0.5))  # fmt: skip
    return tuple(out)


WORKLOADS = draw_workloads()


def reference() -> str:
    """The constant-efficiency baseline's workload (in its config ids): the first prefill."""
    _, b, h, nq, nk, causal = WORKLOADS[0]
    return f"prefill_b{b}h{h}_q{nq}k{nk}_c{int(causal)}"


def heldout48_configs():
    """The set in run order (50 runs)."""
    return partition_configs(WORKLOADS, charged_schedule)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 48 (issue 19): SM partitions on the lent card, the model as it stands "
        "(python -m gpusim.validation.partitions_heldout48 --write)"
    )
    return set_command("partitions_heldout48", __doc__.splitlines()[0], heldout48_configs(),
                       argv, what, RULE)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
