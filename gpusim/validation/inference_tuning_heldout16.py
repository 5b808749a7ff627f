"""Held-out set 16: the tuner on new inference workloads, drawn by a seeded generator (issue 19).

    python -m gpusim.validation.inference_tuning_heldout16 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.inference_tuning_heldout16 --list

Held-out set 13 judged issue 19's tuner target on six inference workloads and missed it on
one (a 384-token prefill chunk: first choice +3.0 %, Spearman 0.60). The model has not changed
since in anything these runs exercise; this set asks the target again of workloads nobody
chose: the kinds and proportions of set 13 (four one-query decodes, one of them with grouped
K/V heads, a few speculative queries, a prefill chunk against a cache), with batch, heads,
keys and head dim drawn by :func:`draw` from fixed ranges with a fixed seed, so that no
workload was picked for how the model does on it. Each workload runs set 13's candidates:
the project's kernel at four tiles, each with one split and with every split the tuner tries
(:func:`gpusim.validation.inference_tuning_heldout13.candidates`). The rule is set 13's
(:data:`RULE`), fixed before the measurement and written into the manifest.
"""

from __future__ import annotations

import random

from gpusim.validation.inference_tuning_heldout13 import RULE, configs_for
from gpusim.validation.long_context_configs import LongContextConfig, set_command

__all__ = ["RULE", "SEED", "draw", "heldout16_configs"]

SEED = 16
#: (group, how many, queries range, heads range, K/V heads per group choices, keys range)
KINDS = (
    ("decode", 3, (1, 1), (16, 48), (1,), (8192, 65536)),
    ("gqa_decode", 1, (1, 1), (24, 64), (4, 8), (8192, 49152)),
    ("decode", 1, (4, 16), (12, 32), (1,), (16384, 49152)),
    ("prefill", 1, (256, 768), (16, 40), (1,), (6144, 24576)),
)


def draw(seed: int = SEED) -> list[tuple]:
    """The workloads: ``(group, batch, heads, K/V heads, queries, keys, causal, head dim)``,
    bf16; keys a multiple of 1024, heads a multiple of the group, batch 1-4, head dim 128
    (one in four 64)."""
    rng = random.Random(seed)
    out = []
    for group, n, (q0, q1), (h0, h1), groups, (k0, k1) in KINDS:
        for _ in range(n):
            g = rng.choice(groups)
            heads = rng.randrange(h0, h1 + 1)
            heads -= heads % (g if g > 1 else 1)
            hkv = heads // g if g > 1 else heads
            nq = rng.randint(q0, q1)
            nk = rng.randrange(k0, k1 + 1, 1024)
            batch = rng.randint(1, 4)
            d = 64 if rng.random() < 0.25 else 128
            out.append((group, batch, heads, hkv, nq, nk, True, d))
    return out


def heldout16_configs() -> list[LongContextConfig]:
    """The set in run order: each workload's candidates."""
    return configs_for(draw())


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 16 (issue 19): the tuner on inference workloads drawn by a seeded "
        "generator (python -m gpusim.validation.inference_tuning_heldout16 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("inference_tuning_heldout16", doc, heldout16_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
