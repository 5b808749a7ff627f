"""Held-out set 10: the SM core model replaying the long-context switch instances (issues 18, 19).

    python -m gpusim.validation.switch_replay_heldout10 --write PATH   # the manifest (JSON)
    python -m gpusim.validation.switch_replay_heldout10 --list

``h200-sxm-core`` replays each compiled instance's committed loop (the SM core model), but the
tensor-core kernel's long-context switches (split-KV, the backward K/V walk, first-first
launch, grouped K/V heads, packed heads) had no committed loop, so their kernels fell to the
pipe model, whose decode tile (64 x 64, d128, 4 warps) runs 10-15 % slow. The candidate:
replay a switch instance with its base instance's committed loop. The switches change how a
CTA finds its tiles, not its step: 84 sampled switch instances, compiled with the offline
build's nvcc, replay within a few per cent of their bases
(``data/sm90/2026-12-04_switch_loops``, ``tests/kernels/test_switch_loops.py``). No GPU
timing went into it. This set's runs are new (no earlier set has them): split and unsplit
decode, grouped and packed heads, on the 64 x 64 decode tile and on others, and prefill with
the backward walk, first-first launch and grouped heads, all of the project's kernel; a few
of PyTorch's flash backend's runs beside them (reported, not judged: the model of PyTorch's
kernel given its tile traits runs the project's loop on the core profile).

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.schedule import Schedule
from gpusim.validation.long_context_configs import (
    LongContextConfig,
    run_group,
    set_command,
    set_workload,
    torch_runs,
)

#: decode of the project's kernel: (batch, heads, K/V heads, queries, keys, K/V splits,
#: pack GQA, (Br, Bc, warps, stages))
DECODE = (
    (1, 32, 32, 1, 32768, 4, False, (64, 64, 4, 2)),
    (8, 16, 16, 1, 16384, 2, False, (64, 64, 4, 2)),
    (2, 40, 40, 8, 49152, 8, False, (64, 64, 4, 2)),
    (1, 64, 64, 1, 65536, 2, False, (64, 64, 4, 2)),
    (16, 32, 32, 1, 4096, 2, False, (64, 64, 4, 2)),
    (2, 32, 32, 1, 32768, 4, False, (64, 128, 4, 2)),
    (4, 16, 16, 4, 24576, 3, False, (128, 64, 4, 2)),
    (1, 48, 48, 1, 40960, 6, False, (64, 32, 4, 2)),
    (4, 32, 4, 1, 32768, 4, False, (64, 64, 4, 2)),
    (2, 64, 8, 1, 65536, 8, False, (64, 64, 4, 2)),
    (8, 28, 4, 1, 16384, 1, False, (64, 64, 4, 2)),
    (4, 32, 8, 1, 32768, 2, True, (64, 64, 4, 2)),
    (2, 48, 12, 2, 57344, 1, True, (64, 64, 4, 2)),
)
#: prefill of the project's kernel: (batch, heads, K/V heads, tokens, head dim, causal,
#: K/V order, Q order, (Br, Bc, warps, stages))
PREFILL = (
    (1, 16, 16, 16384, 128, True, "backward", "last-first", (128, 64, 4, 2)),
    (2, 16, 16, 8192, 128, True, "forward", "first-first", (128, 64, 4, 2)),
    (1, 32, 8, 8192, 128, False, "forward", "last-first", (128, 64, 4, 2)),
    (2, 24, 6, 4096, 128, True, "backward", "first-first", (128, 64, 4, 2)),
    (1, 32, 4, 16384, 64, True, "forward", "last-first", (128, 64, 4, 2)),
    (4, 16, 16, 3072, 64, False, "backward", "last-first", (64, 128, 4, 2)),
    (2, 20, 20, 6144, 128, True, "backward", "last-first", (128, 32, 4, 2)),
)
#: PyTorch's flash backend (the schedule it runs): (batch, heads, K/V heads, queries, keys,
#: head dim, causal)
TORCH = (
    (1, 32, 32, 1, 32768, 128, True),
    (4, 32, 4, 1, 32768, 128, True),
    (1, 32, 8, 8192, 8192, 128, False),
)
RULE = (
    "judged: h200-sxm-core replaying the long-context switch instances with their base "
    "instances' committed loops (the candidate) against h200-sxm-core as it was (their "
    "kernels timed by the pipe model), both predicted before the run and committed, on the "
    "project's runs; reported per model: MAPE, mean signed error and the worst runs, by "
    "group, beside the roofline and constant-efficiency baselines, and the default profile "
    "h200-sxm on the same runs. The candidate is kept if its MAPE over the project's runs "
    "here is lower; PyTorch's runs are reported, not judged; nothing is tuned on this set"
)


def heldout10_configs() -> list[LongContextConfig]:
    """The set in run order: the project's decode, its prefill, then PyTorch's runs."""
    out = []
    for b, h, hkv, nq, nk, splits, pack, (bm, bn, wp, st) in DECODE:
        w = set_workload(b, h, hkv, nq, nk, True)
        s = Schedule(block_m=bm, block_n=bn, warps=wp, stages=st, kv_splits=splits, pack_gqa=pack)
        out.append(LongContextConfig("project", run_group(w), w, s))
    for b, h, hkv, n, d, causal, kv_order, q_order, (bm, bn, wp, st) in PREFILL:
        w = set_workload(b, h, hkv, n, n, causal, d)
        s = Schedule(
            block_m=bm, block_n=bn, warps=wp, stages=st, kv_order=kv_order, q_order=q_order
        )
        out.append(LongContextConfig("project", run_group(w), w, s))
    return out + torch_runs(TORCH)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "held-out set 10 (issues 18, 19): the SM core model replaying the long-context switch "
        "instances (python -m gpusim.validation.switch_replay_heldout10 --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("switch_replay_heldout10", doc, heldout10_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
