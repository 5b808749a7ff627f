"""Correctness of one long-context run on a sample: float64 attention of a few rows and heads.

A 128k-token run has 2**31 outputs per head; its float64 reference would take longer than
the sweep. So each run is judged on a sample: two (batch, head) pairs (the first and the
last), and up to 128 query rows of each (the first 32, 32 from the middle, the last 64,
or all rows when there are no more than 128), each against every key it sees. The whole
output is also checked for NaN (the buffer was poisoned before the run).
"""

from __future__ import annotations

import math
from typing import Any

from gpusim.workload import Workload

SAMPLE_ROWS = 128


def sample_rows(nq: int) -> list[int]:
    """The query rows judged: all when ``nq <= 128``, else the first 32, 32 around the
    middle and the last 64 (the longest causal rows, and the ragged last block)."""
    if nq <= SAMPLE_ROWS:
        return list(range(nq))
    mid = nq // 2 - 16
    rows = [*range(32), *range(mid, mid + 32), *range(nq - 64, nq)]
    return sorted(set(rows))


def sample_heads(w: Workload) -> list[int]:
    """The (batch * head) indices judged: the first and the last."""
    return sorted({0, w.batch_heads - 1})


def reference_sample(cp: Any, w: Workload, q: Any, k: Any, v: Any) -> dict[str, Any]:
    """float64 outputs of the sampled rows: ``{"heads", "rows", "out": (heads, rows, d)}``.

    ``q`` (B, H, Nq, d) and ``k``, ``v`` (B, Hkv, Nk, d) are float32 values (bf16 decoded);
    query head ``h`` reads K/V head ``h // group`` (bottom-right causal alignment)."""
    rows = sample_rows(w.seq_len_q)
    heads = sample_heads(w)
    r = cp.asarray(rows)
    outs = []
    for bh in heads:
        b, h = divmod(bh, w.heads)
        kh = h // w.group_size
        qs = q[b, h, r].astype(cp.float64)
        ks = k[b, kh].astype(cp.float64)
        vs = v[b, kh].astype(cp.float64)
        s = qs @ ks.T / math.sqrt(w.head_dim)
        if w.causal:
            keys = cp.arange(w.seq_len_k)[None, :]
            s = cp.where(keys <= r[:, None] + w.causal_offset, s, -cp.inf)
        m = s.max(axis=1, keepdims=True)
        p = cp.exp(s - cp.where(cp.isfinite(m), m, 0.0))
        den = p.sum(axis=1, keepdims=True)
        outs.append((p @ vs) / cp.where(den > 0, den, 1.0))
    return {"heads": heads, "rows": rows, "out": cp.stack(outs)}


def judge_sample(cp: Any, w: Workload, got: Any, ref: dict[str, Any]) -> dict[str, float]:
    """Errors of an output (B, H, Nq, d) as float32 values against the sampled reference."""
    r = cp.asarray(ref["rows"])
    picked = cp.stack(
        [got[bh // w.heads, bh % w.heads, r].astype(cp.float64) for bh in ref["heads"]]
    )
    diff = picked - ref["out"]
    norm = float(cp.sqrt((ref["out"] ** 2).sum()))
    return {
        "sample_rows": len(ref["rows"]),
        "sample_heads": len(ref["heads"]),
        "nan_count": int(cp.isnan(got).sum()),
        "max_abs_err": float(cp.abs(diff).max()),
        "rel_err": float(cp.sqrt((diff**2).sum())) / norm if norm > 0 else float("nan"),
    }
