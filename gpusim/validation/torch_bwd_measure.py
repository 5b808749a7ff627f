"""Timing PyTorch's FlashAttention-2 backward on the GPU: the measurements the model's
backward pass is validated against.

    python -m gpusim.validation.torch_bwd_measure --manifest M.json --out DIR [--budget-s S]
    python -m gpusim.validation.torch_bwd_measure --manifest M.json --dry-run   # no GPU

The manifest is a JSON object whose ``runs`` is a list of objects with exactly the keys
``id``, ``batch``, ``heads``, ``heads_kv``, ``seq_len_q``, ``seq_len_k``, ``head_dim``,
``dtype`` (bf16 or fp16) and ``causal``. Per run: Q, K, V (K and V with ``heads_kv`` heads)
and dO are drawn standard normal (never zeros), stored as PyTorch's models hold them
(batch, seq, heads, dim) and passed transposed; ``scaled_dot_product_attention`` runs
restricted to the flash backend (``torch.nn.attention.sdpa_kernel``, or the older
``torch.backends.cuda.sdp_kernel`` where that is missing; the record says which), with
``enable_gqa`` when the heads differ. The forward runs once with gradients on, then:

- one checked backward: the gradients unset, the caching allocator's blocks of their sizes
  filled with NaN and freed first (so that the new gradients most likely land on NaN);
  dQ, dK, dV and the output compared with a float64 reference computed on the GPU from the
  same inputs (:func:`attention_reference`, in row chunks; K/V repeated per query head for
  GQA and the gradients summed back per group) by the relative Frobenius error, beside the
  error of PyTorch's math backend in the storage type against the same reference;
- ``out.backward(dO, retain_graph=True)`` timed with CUDA events, the gradients unset before
  each run and the L2 flushed (256 MB written), 3 warm-ups then the median of 20; the
  forward alone and forward + backward timed the same way.

Each run is one JSON line of ``DIR/runs.jsonl`` as soon as it is measured (a failed run too,
with its error; the sweep goes on; a rerun skips what is there). After all the timing (so that
no timed run follows a profiler session) one backward per run is traced with PyTorch's
profiler: the kernels' names, grids, registers and shared memory, and the tiles read back
from their names (:func:`gpusim.validation.torch_flash_bwd_schedule.observed_bwd_tiles`)
against those expected (:func:`~gpusim.validation.torch_flash_bwd_schedule.bwd_tiles`) are
added to the run's record (a new line; the last line of an id wins). ``DIR/provenance.json``
says where the numbers came from. Torch is imported inside :func:`main`'s GPU path only,
and nothing here needs the project's own dependencies (pydantic, simpy), so on the GPU
machine, from the checkout's root and with no wheels carried::

    GPUSIM_COMMIT=<hash> PYTHONUNBUFFERED=1 python3 -m gpusim.validation.torch_bwd_measure \
        --manifest M.json --out "$OUT/bwd" --budget-s 400

``--budget-s`` stops starting runs after that many seconds and tracing 60 s later; give the
call's limit room for the longest run past it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation.store import RecordStore
from gpusim.validation.torch_flash_bwd_schedule import (
    bwd_grids,
    bwd_head_dim_bucket,
    bwd_tiles,
    observed_bwd_tiles,
    short_name,
    tiles_match,
)

RUNS_FILE, PROVENANCE_FILE = "runs.jsonl", "provenance.json"
WARMUP, REPEATS = 3, 20
L2_FLUSH_BYTES = 256 * 1024 * 1024
#: Score elements (rows x keys x heads) per chunk of the float64 reference: 2 GiB a matrix.
REFERENCE_CHUNK_ELEMS = 1 << 28
#: Bytes the storage-type math-backend check may take (a few score matrices in fp32), else
#: it is done per batch element, else skipped.
MATH_CHECK_BYTES = 40 * 1024**3
#: A gradient passes when its relative error is under this, or under MATH_FACTOR times the
#: math backend's in the same storage type.
REL_ERR_LIMIT = {"bf16": 2e-2, "fp16": 3e-3}
MATH_FACTOR = 3.0
RUN_KEYS = ("id", "batch", "heads", "heads_kv", "seq_len_q", "seq_len_k", "head_dim", "dtype")
METHOD = {
    "warmup": WARMUP,
    "repeats": REPEATS,
    "statistic": "median",
    "l2_flush_bytes": L2_FLUSH_BYTES,
    "timer": "torch.cuda.Event pairs on the current stream around each call",
    "backward": "out.backward(dO, retain_graph=True), q/k/v .grad set to None before each",
    "inputs": "standard normal; q, k, v, dO stored (batch, seq, heads, dim), passed transposed",
    "reference": "float64 on the GPU, explicit softmax and its gradient, row chunks",
    "error": "relative Frobenius norm of (got - ref) over ref",
    "poison": "grads None; allocator blocks of the grads' sizes NaN-filled and freed before",
    "rel_err_limit": REL_ERR_LIMIT,
    "math_factor": MATH_FACTOR,
    "flops": "backward 10*B*H*Nq*Nk*d, forward 4*B*H*Nq*Nk*d, halved when causal",
}


def log(msg: str) -> None:
    """Progress on standard error, flushed."""
    print(msg, file=sys.stderr, flush=True)


# --- the manifest (pure) ----------------------------------------------------------------
@dataclass(frozen=True)
class BwdRun:
    """One measurement of the manifest."""

    id: str
    batch: int
    heads: int
    heads_kv: int
    seq_len_q: int
    seq_len_k: int
    head_dim: int
    dtype: str
    causal: bool

    @property
    def group(self) -> int:
        """Query heads per K/V head."""
        return self.heads // self.heads_kv

    def flops_bwd(self) -> int:
        """FlashAttention's count for the backward: 2.5 times the forward's."""
        return bwd_flops(
            self.batch, self.heads, self.seq_len_q, self.seq_len_k, self.head_dim, self.causal
        )

    def flops_fwd(self) -> int:
        """FlashAttention's count for the forward."""
        return fwd_flops(
            self.batch, self.heads, self.seq_len_q, self.seq_len_k, self.head_dim, self.causal
        )

    def seed(self) -> int:
        """The inputs' seed: the same inputs for the same id, on every rerun."""
        return zlib.crc32(self.id.encode())


def fwd_flops(batch: int, heads: int, seq_q: int, seq_k: int, head_dim: int, causal: bool) -> int:
    """``4 B H Nq Nk d`` (Q K^T and P V), halved when causal (FlashAttention's papers)."""
    f = 4 * batch * heads * seq_q * seq_k * head_dim
    return f // 2 if causal else f


def bwd_flops(batch: int, heads: int, seq_q: int, seq_k: int, head_dim: int, causal: bool) -> int:
    """``10 B H Nq Nk d`` (S and dP recomputed, dV, dQ, dK), halved when causal."""
    f = 10 * batch * heads * seq_q * seq_k * head_dim
    return f // 2 if causal else f


def _positive_int(run: dict[str, Any], key: str, where: str) -> int:
    v = run[key]
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise GpusimError(f"{where}: {key} must be a positive integer, not {v!r}")
    return v


def parse_run(run: Any, where: str) -> BwdRun:
    """One run object of a manifest, checked (a one-line GpusimError otherwise)."""
    if not isinstance(run, dict):
        raise GpusimError(f"{where}: a run must be an object, not {type(run).__name__}")
    keys = (*RUN_KEYS, "causal")
    missing = [k for k in keys if k not in run]
    extra = sorted(set(run) - set(keys))
    if missing or extra:
        what = "; ".join(
            s
            for s in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown {', '.join(extra)}" if extra else "",
            )
            if s
        )
        raise GpusimError(f"{where}: {what} (a run has exactly {', '.join(keys)})")
    if not isinstance(run["id"], str) or not run["id"].strip():
        raise GpusimError(f"{where}: id must be a non-empty string, not {run['id']!r}")
    where = f"{where} ({run['id']})"
    ints = {
        k: _positive_int(run, k, where)
        for k in ("batch", "heads", "heads_kv", "seq_len_q", "seq_len_k", "head_dim")
    }
    if run["dtype"] not in ("bf16", "fp16"):
        raise GpusimError(f"{where}: dtype must be bf16 or fp16, not {run['dtype']!r}")
    if not isinstance(run["causal"], bool):
        raise GpusimError(f"{where}: causal must be true or false, not {run['causal']!r}")
    if ints["heads"] % ints["heads_kv"]:
        raise GpusimError(f"{where}: heads_kv {ints['heads_kv']} must divide heads {ints['heads']}")
    if run["causal"] and ints["seq_len_q"] != ints["seq_len_k"]:
        raise GpusimError(
            f"{where}: PyTorch's flash backend refuses is_causal with seq_len_q != seq_len_k "
            "(check_flash_causal_non_square_seqlens)"
        )
    try:
        bwd_head_dim_bucket(ints["head_dim"])
    except GpusimError as exc:
        raise GpusimError(f"{where}: {exc}") from None
    return BwdRun(id=run["id"], dtype=run["dtype"], causal=run["causal"], **ints)


def parse_manifest(doc: Any, where: str = "manifest") -> list[BwdRun]:
    """The runs of a manifest document, checked: ids unique, at least one run."""
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise GpusimError(f"{where}: a manifest is an object with a list 'runs'")
    if not doc["runs"]:
        raise GpusimError(f"{where}: 'runs' is empty")
    runs = [parse_run(r, f"{where}: run {i}") for i, r in enumerate(doc["runs"])]
    seen: set[str] = set()
    for r in runs:
        if r.id in seen:
            raise GpusimError(f"{where}: id {r.id!r} appears twice")
        seen.add(r.id)
    return runs


def load_manifest(path: Path) -> list[BwdRun]:
    """The runs of the manifest file at ``path``."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as exc:
        raise GpusimError(f"{path}: cannot read the manifest: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise GpusimError(f"{path}: not JSON: {exc.msg} (line {exc.lineno})") from None
    return parse_manifest(doc, str(path))


def expected(run: BwdRun, max_smem_per_block: int | None = None) -> dict[str, Any]:
    """The tiles and grids the sources say this run gets (an H200 unless told otherwise)."""
    kw = {} if max_smem_per_block is None else {"max_smem_per_block": max_smem_per_block}
    tiles = bwd_tiles(run.head_dim, run.dtype, run.causal, **kw)
    grids = bwd_grids(tiles, run.batch, run.heads, run.seq_len_q, run.seq_len_k)
    return tiles | {"grids": {k: list(v) for k, v in grids.items()}, "gqa_sums": run.group > 1}


# --- the error arithmetic (pure: numpy arrays or torch tensors alike) ----------------------
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


def timing_summary(times_s: list[float], flops: int) -> dict[str, Any]:
    """Median, minimum, all times (seconds) and the median's TFLOP/s."""
    med = statistics.median(times_s)
    return {
        "median_s": med,
        "min_s": min(times_s),
        "times_s": times_s,
        "tflops": flops / med / 1e12 if med > 0 else None,
    }


# --- the GPU side (torch imported lazily) -------------------------------------------------
class TorchBwdMeasurer:
    """Measures manifest runs on the current CUDA device, records to ``store``."""

    def __init__(self, store: RecordStore, deadline: float | None = None, log=log):
        import torch

        self.torch, self.store, self.deadline, self.log = torch, store, deadline, log
        self.dev = torch.device("cuda")
        self.flush = torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device=self.dev)
        self.sdpa_api, self._flash_ctx, self._math_ctx = sdpa_contexts(torch)
        self.max_smem = max_smem_per_block_optin(torch)

    def past(self, grace_s: float = 0.0) -> bool:
        return self.deadline is not None and time.time() > self.deadline + grace_s

    # inputs and the attention call ------------------------------------------------------
    def inputs(self, run: BwdRun) -> dict[str, Any]:
        """q, k, v drawn from the run's seed: (batch, seq, heads, dim) storage, passed as
        (batch, heads, seq, dim) views that are leaves requiring grad."""
        torch = self.torch
        dt_ = {"bf16": torch.bfloat16, "fp16": torch.float16}[run.dtype]
        torch.manual_seed(run.seed())

        def leaf(n: int, h: int) -> Any:
            x = torch.randn(run.batch, n, h, run.head_dim, dtype=dt_, device=self.dev)
            return x.transpose(1, 2).requires_grad_()

        q = leaf(run.seq_len_q, run.heads)
        k = leaf(run.seq_len_k, run.heads_kv)
        v = leaf(run.seq_len_k, run.heads_kv)
        return {"q": q, "k": k, "v": v}

    def sdpa(self, run: BwdRun, q: Any, k: Any, v: Any, flash: bool = True) -> Any:
        f = self.torch.nn.functional.scaled_dot_product_attention
        kw = {"is_causal": run.causal}
        if run.group > 1:
            kw["enable_gqa"] = True
        with self._flash_ctx() if flash else self._math_ctx():
            return f(q, k, v, **kw)

    # timing ------------------------------------------------------------------------------
    def time_calls(self, call: Callable[[], Any], before: Callable[[], None]) -> list[float]:
        """Seconds of each of REPEATS calls (after WARMUP), ``before()`` and an L2 flush
        ahead of every one, outside the events."""
        torch = self.torch
        for i in range(WARMUP):
            before()
            self.flush.fill_(i & 0xFF)
            call()
        torch.cuda.synchronize()
        ev = [
            (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            for _ in range(REPEATS)
        ]
        for i, (a, b) in enumerate(ev):
            before()
            self.flush.fill_(i & 0xFF)
            a.record()
            call()
            b.record()
        torch.cuda.synchronize()
        return [a.elapsed_time(b) / 1e3 for a, b in ev]

    # one run -----------------------------------------------------------------------------
    def measure(self, run: BwdRun) -> dict[str, Any]:
        torch = self.torch
        x = self.inputs(run)
        q, k, v = x["q"], x["k"], x["v"]
        leaves = (q, k, v)

        def unset() -> None:
            for t in leaves:
                t.grad = None

        out = self.sdpa(run, q, k, v)
        do = torch.randn_like(out)  # out's strides: the backward's dO.contiguous() is free
        torch.cuda.synchronize()
        rec: dict[str, Any] = {"sdpa_api": self.sdpa_api, "seed": run.seed()}
        rec["out_layout"] = {"shape": list(out.shape), "stride": list(out.stride())}

        # the checked backward, into poisoned memory
        unset()
        poison = [torch.full_like(t, math.nan) for t in (q, k, v)]
        if run.group > 1:  # dk_expanded, dv_expanded: K/V with every query head
            shape = (run.batch, run.seq_len_k, run.heads, run.head_dim)
            poison += [torch.full(shape, math.nan, dtype=q.dtype, device=self.dev) for _ in "kv"]
        del poison
        out.backward(do, retain_graph=True)
        torch.cuda.synchronize()
        got = {"dq": q.grad.detach(), "dk": k.grad.detach(), "dv": v.grad.detach()}
        rec["nan"] = {n: nan_count(g) for n, g in got.items()} | {"out": nan_count(out)}
        ref = self.reference(run, q, k, v, do)
        rel = {n: rel_fro_err(got[n].double(), ref[n]) for n in ("dq", "dk", "dv")}
        rel["out"] = rel_fro_err(out.detach().double(), ref["out"])
        rec["rel_err"] = rel
        del got
        try:
            rec["math_rel_err"], rec["math_check"] = self.math_errors(run, q, k, v, do, ref)
        except Exception as exc:  # the yardstick is optional; say why it is missing
            rec["math_rel_err"], rec["math_check"] = (
                None,
                f"failed: {type(exc).__name__}: {exc}"[:300],
            )
        del ref
        torch.cuda.empty_cache()

        # timing
        rec["bwd"] = timing_summary(
            self.time_calls(lambda: out.backward(do, retain_graph=True), unset), run.flops_bwd()
        )

        def fwd() -> None:
            self.sdpa(run, q, k, v)

        rec["fwd"] = timing_summary(self.time_calls(fwd, unset), run.flops_fwd())

        def fwd_bwd() -> None:
            self.sdpa(run, q, k, v).backward(do)

        rec["fwd_bwd"] = timing_summary(
            self.time_calls(fwd_bwd, unset), run.flops_fwd() + run.flops_bwd()
        )
        why = verdict(rel, rec["math_rel_err"], run.dtype)
        if any(rec["nan"].values()):
            why = "; ".join(filter(None, (f"NaN {rec['nan']}", why)))
        rec["status"] = "ok" if why is None else "failed"
        if why:
            rec["error"] = f"wrong result: {why}"
        return rec

    def reference(self, run: BwdRun, q: Any, k: Any, v: Any, do: Any) -> dict[str, Any]:
        """The float64 reference of one run: (bh, n, d) arrays ``out``, ``dq``, ``dk``, ``dv``
        (dk, dv per K/V head)."""
        torch = self.torch
        b, h, hk, g = run.batch, run.heads, run.heads_kv, run.group

        def flat(x: Any, heads: int, n: int) -> Any:
            return x.detach().to(torch.float64).reshape(b * heads, n, run.head_dim)

        with torch.no_grad():
            q64 = flat(q, h, run.seq_len_q)
            do64 = flat(do, h, run.seq_len_q)
            k64 = flat(k.detach().repeat_interleave(g, dim=1), h, run.seq_len_k)
            v64 = flat(v.detach().repeat_interleave(g, dim=1), h, run.seq_len_k)
            ops = TorchOps(torch, self.dev)
            o, dq, dk, dv = attention_reference(
                ops, q64, k64, v64, do64, run.causal, run.head_dim**-0.5
            )
            del q64, do64, k64, v64
            if g > 1:
                dk, dv = group_sum(dk, b, hk, g), group_sum(dv, b, hk, g)
        shape = {"out": (b, h, run.seq_len_q), "dq": (b, h, run.seq_len_q)}
        shape |= {"dk": (b, hk, run.seq_len_k), "dv": (b, hk, run.seq_len_k)}
        arrays = {"out": o, "dq": dq, "dk": dk, "dv": dv}
        return {n: a.reshape(*shape[n], run.head_dim) for n, a in arrays.items()}

    def math_errors(
        self, run: BwdRun, q: Any, k: Any, v: Any, do: Any, ref: dict[str, Any]
    ) -> tuple[dict[str, float] | None, str]:
        """PyTorch's math backend in the storage type against the same reference: whole,
        or per batch element when the whole would take more than MATH_CHECK_BYTES."""
        torch = self.torch
        per_b = run.heads * run.seq_len_q * run.seq_len_k * 4 * 6
        if per_b * run.batch <= MATH_CHECK_BYTES:
            pieces, how = [(0, run.batch)], "whole"
        elif per_b <= MATH_CHECK_BYTES:
            pieces, how = [(i, i + 1) for i in range(run.batch)], "per batch element"
        else:
            return None, "skipped: too large"
        got: dict[str, list[Any]] = {"out": [], "dq": [], "dk": [], "dv": []}
        for b0, b1 in pieces:
            qb, kb, vb = (t.detach()[b0:b1].clone().requires_grad_() for t in (q, k, v))
            ob = self.sdpa(run, qb, kb, vb, flash=False)
            ob.backward(do[b0:b1])
            for n, t in (("out", ob), ("dq", qb.grad), ("dk", kb.grad), ("dv", vb.grad)):
                got[n].append(t.detach())
            del qb, kb, vb, ob
        errs = {n: rel_fro_err(torch.cat(got[n]).double(), ref[n]) for n in got}
        return {n: errs[n] for n in ("dq", "dk", "dv", "out")}, how

    # tracing -----------------------------------------------------------------------------
    def trace(self, run: BwdRun) -> list[dict[str, Any]]:
        """The GPU kernels of one backward of ``run`` (after one untraced)."""
        torch = self.torch
        x = self.inputs(run)
        q, k, v = x["q"], x["k"], x["v"]
        out = self.sdpa(run, q, k, v)
        do = torch.randn_like(out)
        out.backward(do, retain_graph=True)
        torch.cuda.synchronize()
        for t in (q, k, v):
            t.grad = None
        return profiled_kernels(torch, lambda: out.backward(do, retain_graph=True))

    # the sweep ---------------------------------------------------------------------------
    def run_all(self, runs: list[BwdRun], trace_grace_s: float = 60.0) -> None:
        todo = [r for r in runs if not self.store.done(r.id)]
        self.log(f"{len(runs) - len(todo)} of {len(runs)} runs already on disk")
        for n, run in enumerate(todo, 1):
            if self.past():
                self.log(f"deadline: {len(todo) - n + 1} runs left for a later call")
                break
            self.store.add(self.one(run, n, len(todo)))
        for run in runs:
            rec = self.store.records.get(run.id)
            if rec is None or "bwd" not in rec or "torch_kernels" in rec:
                continue  # unmeasured, failed before its timing, or traced
            if self.past(trace_grace_s):
                self.log("deadline: the rest left untraced")
                return
            self.store.add(rec | self.traced(run))
            self.log(f"traced {run.id}: match {self.store.records[run.id].get('tiles_match')}")

    def one(self, run: BwdRun, n: int, total: int) -> dict[str, Any]:
        t0 = time.perf_counter()
        base = asdict(run) | {"expected": expected(run, self.max_smem)}
        base |= {"flops_bwd": run.flops_bwd(), "flops_fwd": run.flops_fwd()}
        try:
            rec = base | self.measure(run)
        except Exception as exc:  # recorded; the sweep goes on
            rec = base | {"status": "failed", "error": f"{type(exc).__name__}: {exc}"[:2000]}
            rec["traceback_tail"] = traceback.format_exc().splitlines()[-4:]
        self.torch.cuda.empty_cache()
        rec["measured_at_utc"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        rec["wall_s"] = time.perf_counter() - t0
        what = (
            f"bwd {rec['bwd']['median_s'] * 1e3:.4f} ms, fwd {rec['fwd']['median_s'] * 1e3:.4f} "
            f"ms, rel_err dq {rec['rel_err']['dq']}, math {rec['math_rel_err']}"
            if "bwd" in rec
            else ""
        )
        tail = "" if rec["status"] == "ok" else f" FAILED {rec.get('error', '')[:200]}"
        self.log(f"[{n}/{total}] {run.id}: {what}{tail} ({rec['wall_s']:.1f} s)")
        return rec

    def traced(self, run: BwdRun) -> dict[str, Any]:
        try:
            kernels = self.trace(run)
        except Exception as exc:  # the timing stands; the trace says why it is missing
            return {"torch_kernels": None, "trace_error": f"{type(exc).__name__}: {exc}"[:500]}
        finally:
            self.torch.cuda.empty_cache()
        obs = observed_bwd_tiles([k["name"] for k in kernels])
        exp = expected(run, self.max_smem)
        grids = {}
        for kern in kernels:
            grids.setdefault(short_name(kern["name"]), kern.get("grid"))
        return {
            "torch_kernels": kernels,
            "observed_tiles": obs,
            "observed_grids": grids,
            "kernels_us": sum(kern.get("duration_us") or 0 for kern in kernels),
            "tiles_match": tiles_match(exp, obs),
        }


def sdpa_contexts(torch: Any) -> tuple[str, Callable[[], Any], Callable[[], Any]]:
    """(which API, flash-only context, math-only context): ``torch.nn.attention.sdpa_kernel``,
    else the older ``torch.backends.cuda.sdp_kernel``."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        old = torch.backends.cuda.sdp_kernel
        return (
            "torch.backends.cuda.sdp_kernel",
            lambda: old(enable_flash=True, enable_math=False, enable_mem_efficient=False),
            lambda: old(enable_flash=False, enable_math=True, enable_mem_efficient=False),
        )
    return (
        "torch.nn.attention.sdpa_kernel",
        lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION),
        lambda: sdpa_kernel(SDPBackend.MATH),
    )


def max_smem_per_block_optin(torch: Any) -> int | None:
    """The device's opt-in shared memory per block, as FlashAttention's launch code reads it
    (torch's device properties, else CuPy's runtime; None if neither says)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    v = getattr(props, "shared_memory_per_block_optin", None)
    if v:
        return int(v)
    with contextlib.suppress(Exception):  # an optional fact
        import cupy

        rt = cupy.cuda.runtime
        return int(rt.deviceGetAttribute(rt.cudaDevAttrMaxSharedMemoryPerBlockOptin, 0))
    return None


def profiled_kernels(torch: Any, launch: Callable[[], Any]) -> list[dict[str, Any]]:
    """The GPU kernels one ``launch()`` runs, as PyTorch's profiler traces them."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        launch()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text()).get("traceEvents", [])
    out = []
    for e in sorted((e for e in events if e.get("cat") == "kernel"), key=lambda e: e.get("ts", 0)):
        a = e.get("args", {})
        out.append(
            {
                "name": e.get("name", "")[:2000],
                "grid": a.get("grid"),
                "block": a.get("block"),
                "registers_per_thread": a.get("registers per thread"),
                "shared_memory_bytes": a.get("shared memory"),
                "duration_us": e.get("dur"),
            }
        )
    return out


def provenance(torch: Any, manifest: Path, measurer: TorchBwdMeasurer) -> dict[str, Any]:
    """GPU, driver, CUDA, torch, Python, clocks, date, commit (``$GPUSIM_COMMIT``)."""
    from gpusim.kernels.measurement_provenance import nvidia_smi

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    smi = nvidia_smi()
    out: dict[str, Any] = {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": os.environ.get("GPUSIM_COMMIT"),
        "python": platform.python_version(),
        "host": platform.node(),
        "gpu_name": torch.cuda.get_device_name(),
        "sm_count": props.multi_processor_count,
        "total_memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "compute_capability": f"{props.major}.{props.minor}",
        "max_smem_per_block_optin": measurer.max_smem,
        "driver": smi.get("driver_version"),
        "sm_clock_mhz": smi.get("clocks.sm"),
        "sm_clock_max_mhz": smi.get("clocks.max.sm"),
        "nvidia_smi": smi,
        "cuda": torch.version.cuda,
        "torch_version": torch.__version__,
        "sdpa_api": measurer.sdpa_api,
        "argv": list(sys.argv),
        "manifest": str(manifest),
        "manifest_sha256": hashlib.sha256(Path(manifest).read_bytes()).hexdigest(),
    }
    with contextlib.suppress(Exception):  # an optional fact (needs pynvml)
        out["torch_clock_rate_mhz"] = torch.cuda.clock_rate()
    with contextlib.suppress(Exception):  # an optional fact
        out["cudnn_version"] = torch.backends.cudnn.version()
    with contextlib.suppress(Exception):  # an optional fact: the math backend's precision
        out["math_sdp_fp16_bf16_reduction"] = (
            torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
        )
    return out


# --- the command ----------------------------------------------------------------------------
def dry_run(runs: list[BwdRun]) -> int:
    """Each run with the tiles and grids expected on an H200, and its FLOPs; no GPU."""
    for r in runs:
        e = expected(r)
        print(
            f"{r.id:40s} {r.dtype} d{r.head_dim} {'causal' if r.causal else 'full  '} "
            f"{e['block_m']}x{e['block_n']} {e['warps']} warps smem {e['smem_bytes']} "
            f"grid {e['grids'][e['kernels'][1]]} bwd {r.flops_bwd() / 1e12:.3f} TFLOP"
        )
    print(f"{len(runs)} runs")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="torch_bwd_measure", description=__doc__.splitlines()[0])
    p.add_argument("--manifest", type=Path, required=True)
    p.add_argument("--out", type=Path, help="the folder of runs.jsonl and provenance.json")
    p.add_argument("--budget-s", type=float, help="stop starting runs after this many seconds")
    p.add_argument("--retry-failed", action="store_true", help="measure failed runs again")
    p.add_argument("--dry-run", action="store_true", help="list the runs; no GPU")
    a = p.parse_args(argv)
    try:
        runs = load_manifest(a.manifest)
    except GpusimError as exc:
        print(f"torch_bwd_measure: error: {exc}", file=sys.stderr)
        return 2
    if a.dry_run:
        return dry_run(runs)
    if a.out is None:
        print("torch_bwd_measure: error: --out is needed to measure", file=sys.stderr)
        return 2
    import torch

    if not torch.cuda.is_available():
        print("torch_bwd_measure: error: no CUDA device", file=sys.stderr)
        return 2
    deadline = None if a.budget_s is None else time.time() + a.budget_s
    a.out.mkdir(parents=True, exist_ok=True)
    store = RecordStore(a.out / RUNS_FILE, retry_failed=a.retry_failed)
    measurer = TorchBwdMeasurer(store, deadline)
    doc = {"provenance": provenance(torch, a.manifest, measurer), "method": METHOD}
    atomic.write_text(a.out / PROVENANCE_FILE, json.dumps(doc, indent=1, default=str))
    t0 = time.perf_counter()
    measurer.run_all(runs)
    doc["method"] = METHOD | {"sweep_wall_s": time.perf_counter() - t0}
    atomic.write_text(a.out / PROVENANCE_FILE, json.dumps(doc, indent=1, default=str))
    recs = measurer.store.ordered([r.id for r in runs])
    ok = sum(r.get("status") == "ok" for r in recs)
    log(f"{ok} ok, {len(recs) - ok} failed, {len(runs) - len(recs)} not measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
