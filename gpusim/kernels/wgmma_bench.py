"""Correctness and speed of every ``flash3_wgmma`` instance on the GPU, in one run.

    python -m gpusim.kernels.wgmma_bench --cubin-dir CUBINS --out OUT

1. Check: every instance on ragged and aligned shapes (Nq != Nk, causal and not), fresh
   random inputs, output poisoned with NaN plus a NaN guard after it; the largest error
   against a float64 reference must be at most twice that of PyTorch's SDPA in the same dtype
   on the same inputs (bottom-right causal mask given explicitly).
2. Benchmark, only instances that passed: the FlashAttention-2 paper sweep (B·N = 16k,
   H·d = 2048), beside PyTorch's flash and cuDNN SDPA backends in the same process; CUDA
   events, L2 flushed before each repeat, median. TFLOP/s = 4·B·H·N²·d / t, halved when
   causal. Rows use paper_bench's format (``ours_best``, ``ours_tflops``,
   ``torch_flash_tflops``, ``torch_cudnn_tflops``, ...).

A launch that loses the CUDA context (illegal address) ends the check; the instances not yet
checked are then checked in a fresh process, so one bad instance cannot hide the others.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from gpusim.kernel_catalog.wgmma_instances import WgmmaInstance, all_instances
from gpusim.kernels.wgmma_runner import WgmmaRunner

#: (batch, heads, seq_len_q, seq_len_k, causal)
CASES = (
    (2, 3, 257, 389, False),
    (2, 3, 389, 257, True),
    (1, 2, 200, 461, True),
    (1, 2, 512, 512, False),
    (1, 2, 512, 512, True),
    (1, 3, 1000, 1000, True),
    (1, 1, 64, 2000, False),
)
SLACK = 1e-6
SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384)
FATAL = ("illegal", "launch failure", "misaligned", "unspecified")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def inputs(cp, shape_q, shape_k, dtype, seed):
    """Standard-normal q, k, v stored as 16-bit (bf16 as bits), and their float32 values."""
    from gpusim.kernels.schedule_timing import from_bf16_bits, to_bf16_bits

    rng = cp.random.default_rng(seed)
    out, vals = [], []
    for shape in (shape_q, shape_k, shape_k):
        x = rng.standard_normal(shape, dtype=cp.float32)
        s = to_bf16_bits(cp, x) if dtype == "bf16" else x.astype(cp.float16)
        out.append(s)
        vals.append(from_bf16_bits(cp, s) if dtype == "bf16" else s.astype(cp.float32))
    return out, vals


def check_one(runner: WgmmaRunner, inst: WgmmaInstance, case: tuple, seed: int, base) -> dict:
    """One instance on one case against float64 and the PyTorch baseline."""
    from gpusim.kernels.check import reference_attention, visible_mask

    cp = runner.cp
    b, h, nq, nk, causal = case
    (q, k, v), (qf, kf, vf) = inputs(cp, (b, h, nq, inst.head_dim), (b, h, nk, inst.head_dim),
                                     inst.dtype, seed)  # fmt: skip
    buf = cp.empty(q.size + 4096, dtype=q.dtype)
    buf.fill(0x7FC0 if inst.dtype == "bf16" else cp.nan)
    if inst.dtype == "fp16":
        buf = buf.view(cp.float16) if buf.dtype != cp.float16 else buf
    out = buf[: q.size].reshape(q.shape)
    runner.run(inst, q, k, v, out, causal)
    cp.cuda.Device().synchronize()

    def as_f(x):
        if inst.dtype == "bf16":
            return (x.astype(cp.uint32) << 16).view(cp.float32)
        return x.astype(cp.float32)

    got = as_f(out).astype(cp.float64)
    ref = reference_attention(cp, qf, kf, vf, causal)
    bl = base(qf, kf, vf, causal, inst.dtype).astype(cp.float64)
    seen = visible_mask(cp, nq, nk, causal).any(axis=1)[None, None, :, None]
    bl = cp.where(seen, cp.nan_to_num(bl), 0.0)
    rec = {
        "instance": inst.key,
        "case": {"batch": b, "heads": h, "seq_len_q": nq, "seq_len_k": nk, "causal": causal},
        "nan_count": int(cp.isnan(got).sum()),
        "guard_intact": bool(cp.isnan(as_f(buf[q.size :])).all()),
        "max_abs_err": float(cp.nan_to_num(cp.abs(got - ref), nan=cp.inf).max()),
        "rel_err": float(cp.sqrt(cp.nansum((got - ref) ** 2) / (ref**2).sum())),
        "baseline_max_abs_err": float(cp.abs(bl - ref).max()),
    }
    rec["ok"] = bool(
        rec["nan_count"] == 0
        and rec["guard_intact"]
        and rec["max_abs_err"] <= 2 * rec["baseline_max_abs_err"] + SLACK
    )
    return rec


def check(runner: WgmmaRunner, insts: list[WgmmaInstance]) -> tuple[list[dict], list[str]]:
    """Records for every instance and case; the keys left unchecked after a fatal error."""
    from gpusim.kernels.check_all import torch_baseline

    base = torch_baseline()
    recs = []
    for n, inst in enumerate(insts):
        for c, case in enumerate(CASES):
            try:
                try:
                    rec = check_one(runner, inst, case, 7 + 100 * n + c, base)
                except Exception as exc:  # the first launch decides how maps travel
                    if recs or runner.by_value or any(f in str(exc).lower() for f in FATAL):
                        raise
                    log(f"cuLaunchKernel path failed ({str(exc)[:200]}); CuPy by-value next")
                    runner.by_value = True
                    runner._fn.clear()
                    rec = check_one(runner, inst, case, 7 + 100 * n + c, base)
            except Exception as exc:
                rec = {"instance": inst.key, "case": list(case), "ok": False, "error": str(exc)}
                recs.append(rec)
                log(f"{inst.key} {case}: ERROR {str(exc)[:200]}")
                if any(f in str(exc).lower() for f in FATAL):
                    return recs, [i.key for i in insts[n + 1 :]]
                continue
            recs.append(rec)
        bad = [r for r in recs if r["instance"] == inst.key and not r["ok"]]
        log(f"check {inst.key}: {len(CASES) - len(bad)}/{len(CASES)} ok")
    return recs, []


def bench(runner, insts, dtype, dims, seq_lens, repeats, warmup, log_fn):
    """Paper-sweep rows and per-instance records for one dtype."""
    from gpusim.kernels.paper_bench import paper_workload, time_torch
    from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES, time_launches

    cp = runner.cp
    flush = cp.empty(L2_FLUSH_BYTES, dtype=cp.uint8)
    rows, per = [], []
    for d in dims:
        cands = [i for i in insts if i.dtype == dtype and i.head_dim == d]
        if not cands:
            continue
        for causal in (False, True):
            for n in seq_lens:
                w = paper_workload(n, d, causal, dtype)
                (q, k, v), _ = inputs(cp, (w.batch, w.heads, n, d), (w.batch, w.heads, n, d),
                                      dtype, n + d)  # fmt: skip
                out = cp.empty_like(q)
                recs = []
                for inst in cands:
                    try:
                        launch = runner.prepare(inst, q, k, v, out, causal)
                        times = time_launches(cp, launch, repeats, warmup, flush)
                    except Exception as exc:
                        recs.append({"instance": inst.key, "error": str(exc)[:300]})
                        continue
                    med = statistics.median(times)
                    recs.append({
                        "instance": inst.key, "median_s": med, "min_s": min(times),
                        "times_s": times, "tflops": w.model_flops() / med / 1e12,
                    })  # fmt: skip
                ok = [r for r in recs if "median_s" in r]
                for r in recs:
                    per.append(r | {"dtype": dtype, "head_dim": d, "causal": causal, "seq_len": n})
                if not ok:
                    continue
                best = min(ok, key=lambda r: r["median_s"])
                row = {
                    "dtype": dtype, "head_dim": d, "causal": causal, "seq_len": n,
                    "batch": w.batch, "heads": w.heads, "ours_best": best["instance"],
                    "ours_tflops": best["tflops"], "ours_median_s": best["median_s"],
                    "instances_timed": len(ok),
                }  # fmt: skip
                for b in ("flash", "cudnn"):
                    t = time_torch(w, b, repeats, warmup)
                    row[f"torch_{b}_tflops"] = t.get("tflops")
                    row[f"torch_{b}_median_s"] = t.get("median_s")
                    if "error" in t:
                        row[f"torch_{b}_error"] = t["error"]
                for b in ("flash", "cudnn"):
                    ref = row.get(f"torch_{b}_tflops")
                    row[f"ratio_to_{b}"] = best["tflops"] / ref if ref else None
                rows.append(row)
                log_fn(
                    f"{dtype} d{d} causal={causal} N={n}: {best['tflops']:.0f} TFLOP/s "
                    f"({best['instance']}), flash {row['torch_flash_tflops'] or 0:.0f}, "
                    f"cudnn {row['torch_cudnn_tflops'] or 0:.0f}"
                )
                del q, k, v, out
    return rows, per


def main(argv: list[str] | None = None) -> int:
    """Check (optionally in a fresh process for the rest), then benchmark what passed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin-dir", default=None)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", default="", help="comma-separated instance keys")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--nvrtc", default="", help="instance keys to build with NVRTC as well")
    ap.add_argument("--bench-dims", default="64,128,256")
    ap.add_argument("--fp16-dims", default="128")
    ap.add_argument("--seq-lens", default=",".join(map(str, SEQ_LENS)))
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--pp-timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    insts = all_instances()
    if args.only:
        keep = set(args.only.split(","))
        insts = [i for i in insts if i.key in keep]
    pp = [i for i in insts if i.pingpong and not args.check_only]
    insts = [i for i in insts if i not in pp]
    runner = WgmmaRunner(args.cubin_dir)
    nvrtc = {}
    for key in [x for x in args.nvrtc.split(",") if x]:
        inst = next(i for i in insts if i.key == key)
        t = time.time()
        probe = WgmmaRunner(None)
        probe.compile_nvrtc([inst])
        nvrtc[key] = {"build_s": time.time() - t, **probe.attributes(inst)}
        log(f"NVRTC built {key} in {nvrtc[key]['build_s']:.1f} s: {nvrtc[key]}")
    recs, rest = check(runner, insts)
    attrs = {}
    for i in insts:
        try:
            runner.load(i)
            attrs[i.key] = runner.attributes(i)
        except Exception as exc:
            attrs[i.key] = {"error": str(exc)[:300]}
    part = args.out / f"check_{len(list(args.out.glob('check_*.json')))}.json"
    path = "cupy structured scalar" if runner.by_value else "cuLaunchKernel parameter array"
    doc = {"records": recs, "attributes": attrs, "nvrtc": nvrtc, "tensor_maps_passed_by": path}
    part.write_text(json.dumps(doc))
    if rest:
        log(f"context lost; checking {len(rest)} instances in a fresh process")
        cmd = [sys.executable, "-m", "gpusim.kernels.wgmma_bench", "--out", str(args.out)]
        cmd += ["--only", ",".join(rest), "--check-only"]
        if args.cubin_dir:
            cmd += ["--cubin-dir", args.cubin_dir]
        subprocess.run(cmd, check=False)
    if pp:
        # A ping-pong bug would hang on a named barrier (no timeout there): its own process,
        # killed after --pp-timeout seconds, so the rest of the run goes on.
        cmd = [sys.executable, "-m", "gpusim.kernels.wgmma_bench", "--out", str(args.out)]
        cmd += ["--only", ",".join(i.key for i in pp), "--check-only"]
        if args.cubin_dir:
            cmd += ["--cubin-dir", args.cubin_dir]
        try:
            subprocess.run(cmd, check=False, timeout=args.pp_timeout)
        except subprocess.TimeoutExpired:
            log(f"ping-pong check timed out after {args.pp_timeout} s; not benchmarked")
    if args.check_only:
        return 0
    from gpusim.kernels.measurement_provenance import provenance

    all_recs = []
    for p in sorted(args.out.glob("check_*.json")):
        all_recs += json.loads(p.read_text())["records"]
    passed = {i.key for i in all_instances()} - {r["instance"] for r in all_recs if not r["ok"]}
    checked = {r["instance"] for r in all_recs}
    good = [i for i in all_instances() if i.key in passed & checked]
    log(f"{len(good)} instances passed every case; benchmarking them")
    if rest:
        runner = WgmmaRunner(args.cubin_dir)  # this process's context may be gone
    seq = [int(x) for x in args.seq_lens.split(",")]
    rows, per = [], []
    for dtype, dims in (("bf16", args.bench_dims), ("fp16", args.fp16_dims)):
        dl = [int(x) for x in dims.split(",") if x]
        r, p = bench(runner, good, dtype, dl, seq, args.repeats, args.warmup, log)
        rows += r
        per += p
    doc = {
        "provenance": provenance(runner.cp),
        "method": {
            "timer": "CUDA events around one launch",
            "l2_flush_bytes": 256 * 1024 * 1024,
            "repeats": args.repeats,
            "warmup": args.warmup,
            "statistic": "median",
            "tflops": "4*B*H*N^2*d / t, halved when causal",
            "benchmarked": "instances that passed every correctness case",
        },
        "rows": rows,
        "per_instance": per,
        "wall_s": time.time() - t0,
    }
    (args.out / "bench.json").write_text(json.dumps(doc))
    for r in rows:
        print(
            f"{r['dtype']} d{r['head_dim']:3d} causal={r['causal']!s:5} N={r['seq_len']:5d} "
            f"ours {r['ours_tflops']:6.1f} flash {r['torch_flash_tflops'] or 0:6.1f} "
            f"cudnn {r['torch_cudnn_tflops'] or 0:6.1f} x{r['ratio_to_cudnn'] or 0:.2f} "
            f"{r['ours_best']}"
        )
    print(f"wall {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
