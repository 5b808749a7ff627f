"""The workloads the tuner's proofs on the H200 timed, fixed before they were measured.

The proof set (:func:`proof_workloads`) follows the FlashAttention-2 paper's sweep (batch x
length = 16k tokens, heads x head dim = 2048, bf16); the held-out set (:data:`HELD_OUT`) was
chosen before any of it was measured; the launch-caps proof (:data:`CAPS_WORKLOADS`) times two
of the proof's non-causal workloads at fewer CTAs per SM.
"""

from __future__ import annotations

from gpusim.workload import Workload

TOKENS = 16384
HIDDEN = 2048


def proof_workloads(quick: bool = False) -> list[Workload]:
    """>= 8 workloads: head dim 64/128 x causal or not x a short and a long sequence, then the
    README's example workload at both masks (``quick``: the 4 short ones only)."""
    lengths = (1024, 8192) if not quick else (1024,)
    out = []
    for d in (64, 128):
        for causal in (False, True):
            for n in lengths:
                out.append(
                    Workload(
                        batch=max(1, TOKENS // n),
                        heads=HIDDEN // d,
                        seq_len_q=n,
                        seq_len_k=n,
                        head_dim=d,
                        dtype="bf16",
                        causal=causal,
                    )
                )
    if not quick:
        for causal in (False, True):
            out.append(
                Workload(
                    batch=4,
                    heads=16,
                    seq_len_q=4096,
                    seq_len_k=4096,
                    head_dim=128,
                    dtype="bf16",
                    causal=causal,
                )
            )
    return out


#: Workloads the model was not judged or developed on (batch, heads, length, head dim, causal):
#: other lengths, and grids of a few waves or less, where the last wave's occupancy counts.
HELD_OUT = (
    (8, 32, 2048, 64, False),
    (1, 32, 16384, 64, True),
    (32, 32, 512, 64, True),
    (1, 8, 8192, 64, True),
    (8, 16, 2048, 128, True),
    (1, 16, 16384, 128, False),
    (32, 16, 512, 128, False),
    (2, 8, 4096, 128, False),
)


def held_out_workloads() -> list[Workload]:
    """The held-out set (``--set held-out`` of :mod:`gpusim.tuning.proof_measure`)."""
    return [
        Workload(batch=b, heads=h, seq_len_q=n, seq_len_k=n, head_dim=d, dtype="bf16", causal=c)
        for b, h, n, d, c in HELD_OUT
    ]


#: The launch-caps proof's workloads (:mod:`gpusim.tuning.caps_measure`).
CAPS_WORKLOADS = (
    Workload(batch=4, heads=16, seq_len_q=4096, seq_len_k=4096, head_dim=128, dtype="bf16"),
    Workload(batch=2, heads=32, seq_len_q=8192, seq_len_k=8192, head_dim=64, dtype="bf16"),
)
