"""Device memory an attention algorithm allocates: its tensors' sizes, not its traffic.

Sizes follow the tile machine's conventions (``algorithms.tile_machine``): ``Q``
and ``O`` are Nq x d, ``K`` and ``V`` Nk x d, ``S`` and ``P`` Nq x Nk, all in the
storage type; ``m``, ``l`` (Nq) and ``Oacc`` (Nq x d) in fp32; each once per
(batch, head), K and V once per (batch, K/V head). ``standard`` keeps S and P as two
buffers, as seed 001 section 1 describes (S written, read, P written), so its footprint
grows with N². A split-KV schedule adds its partial outputs and log-sum-exps (fp32,
``kv_splits`` of each per query row). A backward pass adds the gradients (``dO``, ``dQ``
like Q; ``dK``, ``dV`` like K; ``dKexp``, ``dVexp`` Nk x d per query head; ``dP``, ``dS``
like P) and its fp32 state (``Dsum``, ``dQacc``, the forward's ``LSE``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from algorithms.base import KV_TENSORS
from algorithms.tracing import (
    FP32_BYTES,
    FP32_STATE_TENSORS,
    KEY_COLUMN_TENSORS,
    QUERY_ROW_TENSORS,
    VECTOR_TENSORS,
)
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def tensor_bytes(workload: Workload, tensor: str) -> int:
    """Bytes of one tensor over all (batch, head) pairs."""
    w = workload
    elem = FP32_BYTES if tensor in FP32_STATE_TENSORS else w.elem_bytes
    kv = tensor in (*KV_TENSORS, "dK", "dV")  # one per K/V head
    rows = w.seq_len_q if tensor in QUERY_ROW_TENSORS else w.seq_len_k
    if tensor in VECTOR_TENSORS:
        cols = 1
    elif tensor in KEY_COLUMN_TENSORS:
        cols = w.seq_len_k
    else:
        cols = w.head_dim
    return (w.batch_heads_kv if kv else w.batch_heads) * rows * cols * elem


def hbm_footprint_bytes(workload: Workload, tensors: Iterable[str]) -> int:
    """Bytes allocated in device memory for ``tensors`` (each counted once)."""
    return sum(tensor_bytes(workload, t) for t in sorted(set(tensors)))


@cache
def tensors_used(
    algorithm: str, causal: bool = False, pass_: str = "fwd", grouped: bool = False
) -> tuple[str, ...]:
    """The tensors ``algorithm`` reads or writes in ``pass_`` (traced once on a tiny problem;
    ``grouped``: with grouped K/V heads)."""
    from gpusim.counting import count
    from gpusim.tuning.rules import default_schedule

    w = Workload(batch=1, heads=2 if grouped else 1, heads_kv=1 if grouped else None,
                 seq_len_q=64, seq_len_k=64, head_dim=16, causal=causal, dtype="fp16",
                 pass_=pass_)  # fmt: skip
    s: Schedule = default_schedule(algorithm, w, 1 << 20)
    return tuple(sorted(count(algorithm, w, s).bytes_by_tensor))


def algorithm_footprint_bytes(
    algorithm: str, workload: Workload, schedule: Schedule | None = None
) -> int:
    """Device memory ``algorithm`` allocates for ``workload`` (under ``schedule``, whose
    split-KV partials count too), without simulating it."""
    w = workload
    used = tensors_used(algorithm, w.causal, w.pass_, w.group_size > 1)
    need = hbm_footprint_bytes(w, used)
    splits = 1 if schedule is None else schedule.kv_splits
    if splits > 1:  # Opart (d columns per split) and LSE (one per split), fp32
        need += workload.batch_heads * workload.seq_len_q * splits * (workload.head_dim + 1) * 4
    return need
