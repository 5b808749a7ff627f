"""The float64 reference of attention's backward and the error arithmetic that judges
PyTorch's gradients against it (:mod:`gpusim.validation.torch_bwd_measure`'s checked
backward).

:func:`attention_reference` computes O, dQ, dK and dV of softmax(scale Q K^T) V in the
arrays' own precision, in row chunks (:func:`reference_chunks`), through a small set of
array operations: :class:`NumpyOps` for numpy arrays (the tests), :class:`TorchOps` for
torch tensors on the GPU (float64 there). K and V come repeated per query head for GQA;
:func:`group_sum` adds their gradients back per group. :func:`rel_fro_err` is the relative
Frobenius error and :func:`verdict` says whether a run's gradients pass. Torch is never
imported here: :class:`TorchOps` is handed the module.
"""

from __future__ import annotations

import math
from typing import Any

#: Score elements (rows x keys x heads) per chunk of the float64 reference: 2 GiB a matrix.
REFERENCE_CHUNK_ELEMS = 1 << 28
#: A gradient passes when its relative error is under this, or under MATH_FACTOR times the
#: math backend's in the same storage type.
REL_ERR_LIMIT = {"bf16": 2e-2, "fp16": 3e-3}
MATH_FACTOR = 3.0


def rel_fro_err(got: Any, ref: Any) -> float:
    """``||got - ref||_F / ||ref||_F`` (NaN when ``got`` holds NaN; inf against zero)."""
    d = got - ref
    num = float((d * d).sum())
    den = float((ref * ref).sum())
    if math.isnan(num):
        return math.nan
    return math.sqrt(num / den) if den > 0 else (0.0 if num == 0 else math.inf)


def nan_count(x: Any) -> int:
    """Elements of ``x`` that are NaN."""
    return int((x != x).sum())


def group_sum(x: Any, batch: int, heads_kv: int, group: int) -> Any:
    """(batch * heads, n, d) gradients of K/V repeated per query head, summed back per group
    into (batch * heads_kv, n, d) (query head ``h`` uses K/V head ``h // group``)."""
    n, d = x.shape[-2], x.shape[-1]
    return x.reshape(batch, heads_kv, group, n, d).sum(2).reshape(batch * heads_kv, n, d)


def reference_chunks(bh: int, nq: int, nk: int, budget: int) -> list[tuple[int, int, int, int]]:
    """(head0, head1, row0, row1) pieces of a (bh, nq, nk) score tensor, each of at most
    ``budget`` elements (one row at least): several whole heads, or rows of one head."""
    if nq * nk <= budget:
        per = max(1, budget // (nq * nk))
        return [(h, min(bh, h + per), 0, nq) for h in range(0, bh, per)]
    rows = max(1, budget // nk)
    return [(h, h + 1, r, min(nq, r + rows)) for h in range(bh) for r in range(0, nq, rows)]


class NumpyOps:
    """The array operations :func:`attention_reference` needs, for numpy arrays."""

    def __init__(self):
        import numpy as np

        self.np = np

    def t(self, x: Any) -> Any:
        return self.np.swapaxes(x, -1, -2)

    def rowmax(self, x: Any) -> Any:
        return x.max(axis=-1, keepdims=True)

    def rowsum(self, x: Any) -> Any:
        return x.sum(axis=-1, keepdims=True)

    def exp(self, x: Any) -> Any:
        return self.np.exp(x)

    def zeros_like(self, x: Any) -> Any:
        return self.np.zeros_like(x)

    def causal_mask(self, r0: int, r1: int, nq: int, nk: int) -> Any:
        """True where a key is after its query (bottom-right aligned, FlashAttention's)."""
        rows = self.np.arange(r0, r1)[:, None] + (nk - nq)
        return self.np.arange(nk)[None, :] > rows

    def masked_fill(self, x: Any, mask: Any, value: float) -> Any:
        return self.np.where(mask, value, x)


class TorchOps:
    """The same operations for torch tensors (on their device)."""

    def __init__(self, torch: Any, device: Any):
        self.torch, self.device = torch, device

    def t(self, x: Any) -> Any:
        return x.transpose(-1, -2)

    def rowmax(self, x: Any) -> Any:
        return x.amax(dim=-1, keepdim=True)

    def rowsum(self, x: Any) -> Any:
        return x.sum(dim=-1, keepdim=True)

    def exp(self, x: Any) -> Any:
        return self.torch.exp(x)

    def zeros_like(self, x: Any) -> Any:
        return self.torch.zeros_like(x)

    def causal_mask(self, r0: int, r1: int, nq: int, nk: int) -> Any:
        rows = self.torch.arange(r0, r1, device=self.device)[:, None] + (nk - nq)
        return self.torch.arange(nk, device=self.device)[None, :] > rows

    def masked_fill(self, x: Any, mask: Any, value: float) -> Any:
        return x.masked_fill(mask, value)


def attention_reference(
    ops: Any,
    q: Any,
    k: Any,
    v: Any,
    do: Any,
    causal: bool,
    scale: float,
    budget: int = REFERENCE_CHUNK_ELEMS,
) -> tuple[Any, Any, Any, Any]:
    """(O, dQ, dK, dV) of softmax(scale Q K^T) V for (bh, n, d) arrays (K and V one per query
    head), in the arrays' precision, chunked by :func:`reference_chunks`; the softmax's
    gradient written out: dS = P * (dP - rowsum(dO * O))."""
    bh, nq, _ = q.shape
    nk = k.shape[1]
    o, dq, dk, dv = ops.zeros_like(q), ops.zeros_like(q), ops.zeros_like(k), ops.zeros_like(v)
    for h0, h1, r0, r1 in reference_chunks(bh, nq, nk, budget):
        qc, kc, vc, doc = q[h0:h1, r0:r1], k[h0:h1], v[h0:h1], do[h0:h1, r0:r1]
        s = (qc @ ops.t(kc)) * scale
        if causal:
            s = ops.masked_fill(s, ops.causal_mask(r0, r1, nq, nk), -math.inf)
        p = ops.exp(s - ops.rowmax(s))
        del s
        p = p / ops.rowsum(p)
        oc = p @ vc
        dv[h0:h1] += ops.t(p) @ doc
        ds = doc @ ops.t(vc)  # dP
        ds = p * (ds - ops.rowsum(doc * oc))
        del p
        o[h0:h1, r0:r1] = oc
        dq[h0:h1, r0:r1] = (ds @ kc) * scale
        dk[h0:h1] += (ops.t(ds) @ qc) * scale
        del ds
    return o, dq, dk, dv


def verdict(rel: dict[str, float], math_rel: dict[str, float] | None, dtype: str) -> str | None:
    """None when every gradient passes, else why not (see REL_ERR_LIMIT, MATH_FACTOR)."""
    bad = []
    for name, e in rel.items():
        if e is None or not math.isfinite(e):
            bad.append(f"{name} error {e}")
            continue
        limit = REL_ERR_LIMIT[dtype]
        m = (math_rel or {}).get(name)
        if m is not None and math.isfinite(m):
            limit = max(limit, MATH_FACTOR * m)
        if e > limit:
            bad.append(f"{name} error {e:.3g} > {limit:.3g}")
    return "; ".join(bad) or None
