"""The GPU side of :mod:`gpusim.validation.torch_bwd_measure`: :class:`TorchBwdMeasurer`
times PyTorch's FlashAttention-2 backward for the runs of a manifest
(:mod:`gpusim.validation.bwd_manifest`) on the current CUDA device.

Per run: Q, K, V (K and V with ``heads_kv`` heads) and dO are drawn standard normal (never
zeros), stored as PyTorch's models hold them (batch, seq, heads, dim) and passed transposed;
``scaled_dot_product_attention`` runs restricted to the flash backend
(:func:`~gpusim.validation.torch_sdpa_backends.sdpa_contexts`; the record says which API),
with ``enable_gqa`` when the heads differ. The forward runs once with gradients on, then:

- one checked backward: the gradients unset, the caching allocator's blocks of their sizes
  filled with NaN and freed first (so that the new gradients most likely land on NaN);
  dQ, dK, dV and the output compared with a float64 reference computed on the GPU from the
  same inputs (:func:`~gpusim.validation.bwd_reference.attention_reference`, in row chunks;
  K/V repeated per query head for GQA and the gradients summed back per group) by the
  relative Frobenius error, beside the error of PyTorch's math backend in the storage type
  against the same reference;
- ``out.backward(dO, retain_graph=True)`` timed with CUDA events, the gradients unset before
  each run and the L2 flushed (256 MB written), 3 warm-ups then the median of 20; the
  forward alone and forward + backward timed the same way.

Each run is recorded to a :class:`~gpusim.validation.store.RecordStore` as soon as it is
measured (a failed run too, with its error; the sweep goes on; what the store holds is
skipped). After all the timing (so that no timed run follows a profiler session) one
backward per run is traced with PyTorch's profiler (:func:`profiled_kernels`): the kernels'
names, grids, registers and shared memory, and the tiles read back from their names
(:func:`gpusim.validation.torch_flash_bwd_schedule.observed_bwd_tiles`) against those
expected (:func:`~gpusim.validation.torch_flash_bwd_schedule.bwd_tiles`) are added to the
run's record. Torch is imported when a measurer is made, never at import.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from gpusim.validation.bwd_manifest import BwdRun, expected
from gpusim.validation.bwd_reference import (
    TorchOps,
    attention_reference,
    group_sum,
    nan_count,
    rel_fro_err,
    verdict,
)
from gpusim.validation.store import RecordStore
from gpusim.validation.torch_flash_bwd_schedule import observed_bwd_tiles, short_name, tiles_match
from gpusim.validation.torch_profile import profiled_kernels
from gpusim.validation.torch_sdpa_backends import max_smem_per_block_optin, sdpa_contexts

WARMUP, REPEATS = 3, 20
L2_FLUSH_BYTES = 256 * 1024 * 1024
#: Bytes the storage-type math-backend check may take (a few score matrices in fp32), else
#: it is done per batch element, else skipped.
MATH_CHECK_BYTES = 40 * 1024**3


def log(msg: str) -> None:
    """Progress on standard error, flushed."""
    print(msg, file=sys.stderr, flush=True)


def timing_summary(times_s: list[float], flops: int) -> dict[str, Any]:
    """Median, minimum, all times (seconds) and the median's TFLOP/s."""
    med = statistics.median(times_s)
    return {
        "median_s": med,
        "min_s": min(times_s),
        "times_s": times_s,
        "tflops": flops / med / 1e12 if med > 0 else None,
    }


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
        return profiled_kernels(lambda: out.backward(do, retain_graph=True))

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
