"""Correctness of kernel instances on the GPU against a float64 reference.

Inputs are random normal (never zeros), the output buffer is poisoned with NaN before each
run and followed by a guard region that must come back untouched, and every element is
compared. The fp32 kernel must be within a relative error of 1e-5 (norm-wise); the fp16/bf16
kernel's largest error must be at most twice that of a baseline computed in the same dtype
(FlashAttention's criterion; the baseline is PyTorch's ``scaled_dot_product_attention``
when the caller passes it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernels.runner import Flash2Runner
from gpusim.kernels.schedule_timing import from_bf16_bits, random_inputs
from gpusim.workload import Workload

FP32_REL_TOL = 1e-5
#: Rounding-level slack added to twice the baseline error (both errors are ~1e-3 in bf16).
TC_ABS_SLACK = 1e-6
GUARD_ELEMS = 4096

#: (batch, heads, seq_len_q, seq_len_k, causal): ragged lengths, Nq > Nk (rows that see no
#: key), Nq < Nk, and one aligned case with full tiles only.
CASES = (
    (2, 3, 257, 389, False),
    (2, 3, 389, 257, True),
    (1, 2, 200, 461, True),
    (1, 2, 512, 512, False),
    (1, 2, 512, 512, True),
)


def visible_mask(cp: Any, nq: int, nk: int, causal: bool) -> Any:
    """Boolean (nq, nk): query i sees key j (bottom-right causal alignment)."""
    if not causal:
        return cp.ones((nq, nk), dtype=bool)
    i = cp.arange(nq)[:, None]
    j = cp.arange(nk)[None, :]
    return j <= i + (nk - nq)


def expand_kv_heads(cp: Any, x: Any, heads: int) -> Any:
    """(B, Hkv, N, d) K or V -> (B, heads, N, d): each K/V head repeated for its group
    (arrays without a head axis, or with ``heads`` heads already, come back as they are)."""
    if x.ndim < 4 or x.shape[-3] == heads:
        return x
    return cp.repeat(x, heads // x.shape[-3], axis=-3)


def reference_attention(cp: Any, q: Any, k: Any, v: Any, causal: bool) -> Any:
    """float64 attention; rows with no visible key give 0. K and V may have fewer heads than
    Q (GQA): query head h reads K/V head h // (heads / heads_kv)."""
    k, v = (expand_kv_heads(cp, x, q.shape[-3] if q.ndim >= 4 else 0) for x in (k, v))
    q, k, v = (x.astype(cp.float64) for x in (q, k, v))
    s = cp.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(q.shape[-1])
    mask = visible_mask(cp, q.shape[-2], k.shape[-2], causal)
    s = cp.where(mask, s, -cp.inf)
    m = s.max(axis=-1, keepdims=True)
    m = cp.where(cp.isfinite(m), m, 0.0)
    p = cp.exp(s - m)
    denom = p.sum(axis=-1, keepdims=True)
    return cp.matmul(p, v) / cp.where(denom > 0, denom, 1.0)


def as_float(cp: Any, x: Any, dtype: str) -> Any:
    """Storage array -> float32 values (bf16 bits decoded)."""
    return from_bf16_bits(cp, x) if dtype == "bf16" else x.astype(cp.float32)


def poisoned_output(cp: Any, workload: Workload, like: Any) -> tuple[Any, Any]:
    """(out, whole buffer): out is a contiguous view followed by GUARD_ELEMS of NaN."""
    n = like.size
    buf = cp.empty(n + GUARD_ELEMS, dtype=like.dtype)
    if workload.dtype == "bf16":
        buf.fill(0x7FC0)  # a bf16 NaN
    else:
        buf.fill(cp.nan)
    return buf[:n].reshape(like.shape), buf


Baseline = Callable[[Any, Any, Any, bool, str], Any]


def check_case(
    runner: Flash2Runner,
    inst: KernelInstance,
    case: tuple,
    seed: int,
    baseline: Baseline | None = None,
) -> dict:
    """Run one instance on one case; returns errors and ``ok``."""
    b, h, nq, nk, causal = case
    w = Workload(
        batch=b, heads=h, seq_len_q=nq, seq_len_k=nk, head_dim=inst.head_dim,
        dtype=inst.dtype, causal=causal,
    )  # fmt: skip
    return check_workload(runner, inst, w, inst.schedule(), seed, baseline)


def check_workload(
    runner: Flash2Runner,
    inst: KernelInstance,
    w: Workload,
    schedule: Any,
    seed: int,
    baseline: Baseline | None = None,
    split: Any = None,
) -> dict:
    """Run ``schedule`` (instance ``inst``) on ``w`` with fresh random inputs into a poisoned
    output; every element against the float64 reference. ``split``: a split-KV workspace to
    use (the caller may poison it and read it afterwards)."""
    cp = runner.cp
    b, h, nq, nk, causal = w.batch, w.heads, w.seq_len_q, w.seq_len_k, w.causal
    q, k, v = random_inputs(cp, w, seed)
    out, buf = poisoned_output(cp, w, q)
    runner.run(w, schedule, q, k, v, out, split=split)
    cp.cuda.Device().synchronize()
    guard = as_float(cp, buf[out.size :], w.dtype)
    qf, kf, vf = (as_float(cp, x, w.dtype) for x in (q, k, v))
    ref = reference_attention(cp, qf, kf, vf, causal)
    got = as_float(cp, out, w.dtype).astype(cp.float64)
    err = cp.abs(got - ref)
    rec = {
        "instance": inst.key,
        "case": {"batch": b, "heads": h, "seq_len_q": nq, "seq_len_k": nk, "causal": causal}
        | ({"heads_kv": w.kv_heads} if w.kv_heads != h else {})
        | ({"kv_splits": schedule.kv_splits} if schedule.kv_splits > 1 else {}),
        "nan_count": int(cp.isnan(got).sum()),
        "guard_intact": bool(cp.isnan(guard).all()),
        "max_abs_err": float(err.max()),
        "rel_err": float(cp.sqrt(((got - ref) ** 2).sum() / (ref**2).sum())),
    }
    ok = rec["nan_count"] == 0 and rec["guard_intact"]
    if inst.variant == "simt":
        ok = ok and rec["rel_err"] < FP32_REL_TOL
    elif baseline is not None:
        kf, vf = (expand_kv_heads(cp, x, h) for x in (kf, vf))
        base = baseline(qf, kf, vf, causal, w.dtype).astype(cp.float64)
        rows_seen = visible_mask(cp, nq, nk, causal).any(axis=1)[None, None, :, None]
        base = cp.where(rows_seen, cp.nan_to_num(base), 0.0)
        rec["baseline_max_abs_err"] = float(cp.abs(base - ref).max())
        ok = ok and rec["max_abs_err"] <= 2 * rec["baseline_max_abs_err"] + TC_ABS_SLACK
    rec["ok"] = bool(ok)
    return rec


def check_instances(
    runner: Flash2Runner,
    instances: list[KernelInstance],
    baseline: Baseline | None = None,
    cases: tuple = CASES,
    seed: int = 1,
) -> list[dict]:
    """Every case for every instance, each with fresh random inputs."""
    out = []
    for n, inst in enumerate(instances):
        for c, case in enumerate(cases):
            try:
                out.append(check_case(runner, inst, case, seed + 1000 * n + c, baseline))
            except Exception as exc:  # a failed launch is a result too; keep the others
                out.append(
                    {"instance": inst.key, "case": list(case), "ok": False, "error": str(exc)}
                )
                if "illegal" in str(exc).lower() or "launch failure" in str(exc).lower():
                    return out  # the CUDA context is lost; nothing after this can run
    return out
