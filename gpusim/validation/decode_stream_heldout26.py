"""Held-out set 26: the tile stream's latency asked again after its adoption, on decodes it
never saw: three-stage tiles (two tiles in flight), PyTorch's flash kernel, new shapes.

    python -m gpusim.validation.decode_stream_heldout26 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.decode_stream_heldout26 --list
    python -m gpusim.reporting.stream_set predict26|compare26 ...

Held-out set 25 adopted the mechanism (:mod:`gpusim.engine.stream_latency`) on the project's
two-stage decode tiles. This set draws (seed :data:`SEED`) eight decode workloads (batch 1-8,
16-48 heads, a GQA group of 1, 4 or 8, 1-16 queries, 8k-64k keys, d 64 or 128) and runs each
with four of the project's schedules drawn from Bc 32/64/128, two or three stages and one to
eight splits, and PyTorch's flash backend with the schedule it runs. Predicted before the run
with the lent card's profile, the adopted model and the model before it. The rule: :data:`RULE`.
"""

from __future__ import annotations

import random

from gpusim.schedule import Schedule
from gpusim.validation.long_context_configs import (
    H200_SMS,
    LongContextConfig,
    run_group,
    set_command,
    set_workload,
)
from gpusim.validation.torch_flash_schedule import schedule_before_set43

SEED = 26
WORKLOADS_DRAWN = 8
SCHEDULES_PER_WORKLOAD = 4
#: (Br, Bc, warps) and the stages and splits the project's schedules are drawn from
TILES = ((64, 32, 4), (64, 64, 4), (64, 128, 4))
STAGES = (2, 3)
SPLITS = (1, 2, 4, 8)
#: the project kernel's shared memory per CTA at most (the H100's and H200's opt-in limit)
SMEM_LIMIT_BYTES = 227 * 1024
RULE = (
    "asked again, judging nothing new: on the card the device lends, its profile as at this "
    "commit (h100-sxm5 on an H100, h200-sxm on an H200) predicts every measured run with the "
    "tile stream's latency on (the adopted model) and off (the model before set 25). Reported "
    "per kernel (the project's, PyTorch's given its schedule) and for the project's three-stage "
    "runs apart: MAPE, mean signed error, the worst runs, and a roofline on the same runs. "
    "The adoption stands if, over the project's runs, the adopted model's MAPE is at most 7 % "
    "and lower than the model before; otherwise the stream's law is reopened. Nothing is tuned "
    "on this set"
)


def _smem_bytes(bm: int, bn: int, stages: int, d: int) -> int:
    """The project kernel's tiles in shared memory: Q, then K and V per stage (bf16)."""
    return 2 * d * (bm + 2 * bn * stages)


def draw(seed: int = SEED) -> list[LongContextConfig]:
    """The set in run order: each workload's project schedules, then PyTorch's."""
    rng = random.Random(seed)
    out: list[LongContextConfig] = []
    for _ in range(WORKLOADS_DRAWN):
        g = rng.choice((1, 4, 8))
        heads = rng.randrange(16, 49, 8)
        hkv = heads // g
        nq = rng.choice((1, 1, 4, 16))
        nk = rng.randrange(8192, 65537, 1024)
        batch = rng.randint(1, 8)
        d = 64 if rng.random() < 0.3 else 128
        w = set_workload(batch, heads, hkv, nq, nk, True, d)
        grid = [(t, s, n) for t in TILES for s in STAGES for n in SPLITS
                if _smem_bytes(t[0], t[1], s, d) <= SMEM_LIMIT_BYTES
                and n <= -(-nk // t[1])]  # fmt: skip
        picks = rng.sample(grid, SCHEDULES_PER_WORKLOAD)
        group = run_group(w)
        for (bm, bn, wp), st, n in picks:
            s = Schedule(block_m=bm, block_n=bn, warps=wp, stages=st, kv_splits=n)
            out.append(LongContextConfig("project", group, w, s))
        out.append(LongContextConfig("torch", group, w, schedule_before_set43(w, H200_SMS)))
    return out


def heldout26_configs() -> list[LongContextConfig]:
    """The set in run order."""
    return draw(SEED)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 26: the tile stream's latency asked again on new decodes, three-stage "
        "tiles and PyTorch's kernel (python -m gpusim.validation.decode_stream_heldout26 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("decode_stream_heldout26", doc, heldout26_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
