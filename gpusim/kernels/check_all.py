"""Correctness of every flash2 kernel instance on the GPU; writes one JSON file.

    python -m gpusim.kernels.check_all --cubin-dir build/kernels --out OUT/correctness.json

Every feasible instance (fp32 SIMT, fp16/bf16 tensor core; every head dim) runs the cases of
``gpusim.kernels.check.CASES`` (ragged, causal, Nq != Nk) from cubins built offline, and a
few instances are also built by NVRTC (``cupy.RawModule(code=..., name_expressions=...)``)
to check that path. The tensor-core baseline is PyTorch's scaled_dot_product_attention in
the same dtype. Prints a summary per instance class.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from gpusim.kernel_catalog.instances import all_instances, rejected_instances
from gpusim.kernels.check import check_instances
from gpusim.kernels.measurement_provenance import provenance
from gpusim.kernels.runner import Flash2Runner

NVRTC_SAMPLE = (
    "tc_bf16_d128_m128_n64_w4_s2",
    "tc_fp16_d64_m64_n32_w4_s3",
    "simt_fp32_d64_m64_n64_w8_s2",
)


def torch_baseline():
    """PyTorch SDPA in the storage dtype, with an explicit bottom-right causal mask."""
    import cupy as cp
    import torch

    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16}

    def run(qf, kf, vf, causal, dtype):
        tq, tk, tv = (torch.from_dlpack(x).to(tdt[dtype]) for x in (qf, kf, vf))
        mask = None
        if causal:
            nq, nk = qf.shape[-2], kf.shape[-2]
            mask = torch.ones(nq, nk, dtype=torch.bool, device=tq.device).tril(nk - nq)
        o = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=mask)
        return cp.from_dlpack(o.float().contiguous())

    return run


def main() -> int:
    """Check every instance (and the NVRTC sample), write ``--out``, print a summary."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin-dir", default="build/kernels")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="substring filter on instance keys")
    args = ap.parse_args()

    t0 = time.time()
    runner = Flash2Runner(cubin_dir=args.cubin_dir)
    insts = [
        i for i in all_instances(smem_limit_bytes=runner.smem_optin_bytes) if args.only in i.key
    ]
    try:
        baseline = torch_baseline()
    except ImportError:
        baseline = None
    records = check_instances(runner, insts, baseline)
    attrs = {}
    for i in insts:
        try:
            attrs[i.key] = runner.load(i).attributes()
        except Exception as exc:
            attrs[i.key] = {"error": str(exc)}

    nvrtc = Flash2Runner(cubin_dir=None)
    sample = [i for i in insts if i.key in NVRTC_SAMPLE]
    t1 = time.time()
    try:
        nvrtc.compile(sample)
        nvrtc_compile_s = time.time() - t1
        nvrtc_records = check_instances(nvrtc, sample, baseline, seed=7)
        nvrtc_attrs = {i.key: nvrtc.load(i).attributes() for i in sample}
    except Exception as exc:
        nvrtc_compile_s = time.time() - t1
        nvrtc_records = [{"instance": "nvrtc", "ok": False, "error": str(exc)[:2000]}]
        nvrtc_attrs = {}

    by_class: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        key = r["instance"]
        cls = "_".join(key.split("_")[:3])  # variant_dtype_dN
        by_class[cls].append(r)
    summary = {}
    for cls, rs in sorted(by_class.items()):
        summary[cls] = {
            "runs": len(rs),
            "failed": sum(not r["ok"] for r in rs),
            "max_abs_err": max(r.get("max_abs_err", float("nan")) for r in rs),
            "max_rel_err": max(r.get("rel_err", float("nan")) for r in rs),
            "max_baseline_abs_err": max(r.get("baseline_max_abs_err", 0.0) for r in rs),
            "worst_ratio_to_baseline": max(
                (
                    r.get("max_abs_err", float("inf")) / r["baseline_max_abs_err"]
                    for r in rs
                    if r.get("baseline_max_abs_err")
                ),
                default=None,
            ),
        }
    result = {
        "provenance": provenance(runner.cp),
        "instances": [i.as_dict() for i in insts],
        "rejected": [
            {"key": i.key, "reason": why} for i, why in rejected_instances(runner.smem_optin_bytes)
        ],
        "attributes": attrs,
        "summary": summary,
        "records": records,
        "nvrtc": {
            "compile_s": nvrtc_compile_s,
            "records": nvrtc_records,
            "attributes": nvrtc_attrs,
        },
        "wall_s": time.time() - t0,
    }
    Path(args.out).write_text(json.dumps(result, indent=1))
    cols = ("runs", "fail", "max_abs", "max_rel", "base_abs", "ratio")
    print(f"{'class':22} " + " ".join(f"{c:>10}" for c in cols))
    for cls, s in summary.items():
        ratio = s["worst_ratio_to_baseline"]
        print(
            f"{cls:22} {s['runs']:10d} {s['failed']:10d} {s['max_abs_err']:10.3e} "
            f"{s['max_rel_err']:10.3e} {s['max_baseline_abs_err']:10.3e} "
            f"{'' if ratio is None else f'{ratio:10.2f}'}"
        )
    bad = [r for r in records + nvrtc_records if not r["ok"]]
    print(
        f"nvrtc: {len(sample)} instances compiled in {nvrtc_compile_s:.1f} s, "
        f"{sum(not r['ok'] for r in nvrtc_records)} failed runs"
    )
    for r in bad[:20]:
        print("FAIL", json.dumps(r))
    runs = len(records) + len(nvrtc_records)
    print(f"correctness: {runs} runs, {len(bad)} failed, {time.time() - t0:.1f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
