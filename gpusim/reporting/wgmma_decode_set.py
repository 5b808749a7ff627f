"""The Hopper kernel's split-KV and grouped-head instances on a set fixed before measuring
(issue 20's "split-KV and GQA", judged by issue 18's decode target).

    python -m gpusim.reporting.wgmma_decode_set [--set S] manifest --out FILE
    python -m gpusim.reporting.wgmma_decode_set [--set S] predict --profile P [--variant V] --out F
    python -m gpusim.reporting.wgmma_decode_set [--set S] build --cubin-dir DIR [--jobs N] (nvcc)
    python -m gpusim.reporting.wgmma_decode_set [--set S] measure --out DIR [--cubin-dir DIR] (GPU)
    python -m gpusim.reporting.wgmma_decode_set [--set S] compare --measured F --predictions F...

``flash3_wgmma``'s GQA instances read K/V head h / group for query head h, its split
instances give each (query block, split) a CTA that walks its slice of the key blocks and
writes fp32 partials that ``flash2_combine`` merges (the mma.sync kernels' rules, as
:mod:`algorithms.split_kv` models them). The sets
(:mod:`gpusim.reporting.wgmma_decode_sets`) are decodes (1-256 queries against 2k-128k keys,
MHA and GQA, 1-16 splits) and grouped-head prefills, d 64, 128 and 256. The model is given
each run's schedule (its tile, warpgroups, stages and split count), nothing else.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.kernel_catalog.wgmma_instances import WgmmaInstance
from gpusim.reporting.wgmma_decode_sets import PROFILES, SET1, SETS, DecodeSet, variant
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Datasheet peaks of the roofline (dense 16-bit tensor FLOP/s; HBM bytes/s by card).
ROOF_FLOPS = 989.4e12
ROOF_DRAM = {"h100-sxm5": 3.35e12, "h200-sxm": 4.8e12}


def config_id(c: tuple) -> str:
    dtype, d, b, h, hkv, nq, nk, causal, bc, st, nc, sp = c
    return (f"{dtype}_d{d}_b{b}h{h}kv{hkv}_q{nq}k{nk}{'_causal' if causal else ''}"
            f"_m{64 * nc}n{bc}s{st}c{nc}_x{sp}")  # fmt: skip


def workload(c: tuple) -> Workload:
    dtype, d, b, h, hkv, nq, nk, causal, *_ = c
    return Workload(batch=b, heads=h, heads_kv=hkv, seq_len_q=nq, seq_len_k=nk, head_dim=d,
                    dtype=dtype, causal=causal)  # fmt: skip


def schedule(c: tuple) -> Schedule:
    *_, bc, st, nc, sp = c
    return Schedule(block_m=64 * nc, block_n=bc, warps=4 * nc, stages=st, kv_splits=sp,
                    mma="wgmma", tile_copy="tma", producer_warps=4)  # fmt: skip


def instance(c: tuple) -> WgmmaInstance:
    dtype, d, _b, h, hkv, *_, bc, st, nc, sp = c
    return WgmmaInstance(dtype, d, bc, st, nc, gqa=hkv != h, split=sp > 1)


def manifest(s: DecodeSet = SET1) -> dict[str, Any]:
    configs = [{"id": config_id(c), "config": list(c), "instance": instance(c).key}
               for c in s.configs]  # fmt: skip
    text = json.dumps(configs, sort_keys=True)
    out = {"set": s.name, "rule": s.rule, "profiles": list(PROFILES), "configs": configs,
           "configs_sha256": hashlib.sha256(text.encode()).hexdigest()}  # fmt: skip
    return out | ({"variants": list(s.variants)} if s.variants != ("model",) else {})


def predict(profile_name: str, s: DecodeSet = SET1, name: str = "model") -> dict[str, Any]:
    """The model's runtime of every configuration (the public API, the run's schedule), as
    model variant ``name`` (:func:`gpusim.reporting.wgmma_decode_sets.variant`)."""
    from gpusim.api import simulate
    from gpusim.profiles.loader import load_profile
    from gpusim.source_commit import git_commit

    if name not in s.variants:
        raise ValueError(f"{s.name} has no variant {name}")
    out = {}
    with variant(name, load_profile(profile_name)) as hw:
        for c in s.configs:
            r = simulate("flash2", workload(c), schedule(c), hw)
            out[config_id(c)] = {"runtime_s": r.runtime_s, "bound": r.bound,
                                 "kernels": [k.name for k in r.kernels]}  # fmt: skip
    doc = {"set": s.name, "profile": profile_name, "commit": git_commit(),
           "manifest_sha256": manifest(s)["configs_sha256"], "predictions": out}  # fmt: skip
    return doc | ({"variant": name} if s.variants != ("model",) else {})


def compulsory_bytes(c: tuple) -> int:
    _dtype, d, b, h, hkv, nq, nk, *_ = c
    return 2 * d * (2 * b * h * nq + 2 * b * hkv * nk)


def roofline_s(c: tuple, profile: str) -> float:
    return max(workload(c).model_flops() / ROOF_FLOPS, compulsory_bytes(c) / ROOF_DRAM[profile])


def _torch_error(q, k, v, dtype: str, causal: bool, ref, heads: int) -> float | None:
    """PyTorch SDPA's max |error| on batch 0, heads 0-1 against the same float64 reference
    (None where PyTorch is missing or cannot run it)."""
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return None
    try:
        tq, tk, tv = (torch.as_tensor(x, device="cuda") for x in (q, k, v))
        if dtype == "bf16":  # CuPy holds bf16 as its bits
            tq, tk, tv = (t.view(torch.bfloat16) for t in (tq, tk, tv))
        group = heads // tk.shape[1]
        tk, tv = (t.repeat_interleave(group, dim=1) for t in (tk, tv))
        nq, nk = tq.shape[2], tk.shape[2]
        mask = None
        if causal:
            i = torch.arange(nq, device="cuda")[:, None]
            mask = torch.arange(nk, device="cuda")[None, :] <= i + (nk - nq)
        got = F.scaled_dot_product_attention(tq[:1, :2], tk[:1, :2], tv[:1, :2], attn_mask=mask)
        return float((got.double() - torch.as_tensor(ref, device="cuda")).abs().max())
    except Exception:  # PyTorch without this dtype or shape: no baseline, said in the row
        return None


#: Awkward shapes the new instances must get right (not timed): Nq = 1, splits that do not
#: divide the key blocks, ragged key tails, MQA, Nq > Nk with a causal mask (rows with no key
#: give 0), a split of more blocks than a causal query block sees. Tuples as a set's configs.
CHECKS: tuple[tuple, ...] = (
    ("bf16", 128, 2, 4, 2, 1, 1000, False, 128, 2, 1, 3),
    ("fp16", 64, 1, 6, 2, 77, 333, True, 128, 2, 1, 2),
    ("bf16", 128, 1, 2, 1, 130, 70, True, 64, 2, 1, 2),
    ("bf16", 256, 1, 4, 1, 1, 5000, False, 64, 2, 1, 7),
    ("fp16", 128, 1, 8, 2, 200, 300, True, 128, 2, 2, 1),
    ("bf16", 64, 2, 4, 4, 65, 4100, True, 128, 3, 1, 5),
)


def check_shapes(runner: Any, cp: Any) -> list[dict[str, Any]]:
    """Every :data:`CHECKS` case on every head against float64 (and PyTorch's error)."""
    from gpusim.kernels.check import reference_attention
    from gpusim.kernels.schedule_timing import from_bf16_bits
    from gpusim.kernels.wgmma_bench import inputs

    rows = []
    for n, c in enumerate(CHECKS):
        dtype, d, b, h, hkv, nq, nk, causal, *_ = c
        row: dict[str, Any] = {"id": config_id(c), "instance": instance(c).key}
        try:
            (q, k, v), vals = inputs(cp, (b, h, nq, d), (b, hkv, nk, d), dtype, 500 + n)
            out = cp.empty_like(q)
            out.view(cp.uint16).fill(0x7FC0 if dtype == "bf16" else 0x7E00)  # NaN
            runner.run(instance(c), q, k, v, out, causal, c[-1])
            cp.cuda.Device().synchronize()
            got = from_bf16_bits(cp, out) if dtype == "bf16" else out.astype(cp.float32)
            ref = reference_attention(cp, *vals, causal)
            row["nan_count"] = int(cp.isnan(got).sum())
            row["max_abs_err"] = float(cp.abs(got.astype(cp.float64) - ref).max())
            row["torch_max_abs_err"] = _torch_error(q, k, v, dtype, causal, ref[:1, :2], h)
            row["ok"] = accurate(row)
        except Exception as exc:
            row |= {"ok": False, "error": str(exc)[:300]}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def measure(
    out_dir: Path, cubin_dir: str | None, s: DecodeSet = SET1, repeats: int = 20, warmup: int = 3
) -> Path:
    """Time every configuration (CUDA events, L2 flushed, median; the split kernel and its
    combine together), outputs poisoned and checked against float64 on heads 0-1; rows saved
    as they come."""
    import cupy as cp

    from gpusim.kernels.check import reference_attention
    from gpusim.kernels.measurement_provenance import provenance
    from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES, from_bf16_bits, time_launches
    from gpusim.kernels.wgmma_bench import inputs
    from gpusim.kernels.wgmma_runner import WgmmaRunner

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / ("decode_set.json" if s is SET1 else f"{s.name}.json")
    runner = WgmmaRunner(cubin_dir, by_value=True)
    flush = cp.empty(L2_FLUSH_BYTES, dtype=cp.uint8)
    doc: dict[str, Any] = {
        "provenance": provenance(cp),
        "method": {"timer": "CUDA events around the launch (split: both kernels)",
                   "l2_flush_bytes": L2_FLUSH_BYTES, "repeats": repeats, "warmup": warmup,
                   "statistic": "median",
                   "check": "output poisoned with NaN; max |err| against float64 on batch 0, "
                            "heads 0-1, beside PyTorch SDPA's on the same inputs"},
        "set": s.name, "manifest_sha256": manifest(s)["configs_sha256"], "rows": [],
    }  # fmt: skip
    doc["shape_checks"] = check_shapes(runner, cp)
    atomic.write_text(path, json.dumps(doc, indent=1))
    for n, c in enumerate(s.configs):
        dtype, d, b, h, hkv, nq, nk, causal, *_ = c
        inst, sp = instance(c), c[-1]
        row: dict[str, Any] = {"id": config_id(c), "instance": inst.key}
        try:
            (q, k, v), vals = inputs(cp, (b, h, nq, d), (b, hkv, nk, d), dtype, 1000 + n)
            kv = [hq * hkv // h for hq in (0, 1)]  # the K/V heads of query heads 0 and 1
            ref = reference_attention(cp, vals[0][:1, :2], vals[1][:1, kv], vals[2][:1, kv],
                                      causal)  # fmt: skip
            out = cp.empty_like(q)
            out.view(cp.uint16).fill(0x7FC0 if dtype == "bf16" else 0x7E00)  # NaN
            launch = runner.prepare(inst, q, k, v, out, causal, sp)
            launch()
            cp.cuda.Device().synchronize()
            got = from_bf16_bits(cp, out) if dtype == "bf16" else out.astype(cp.float32)
            row["nan_count"] = int(cp.isnan(got).sum())
            row["max_abs_err"] = float(cp.abs(got[:1, :2].astype(cp.float64) - ref).max())
            row["torch_max_abs_err"] = _torch_error(q, k, v, dtype, causal, ref, h)
            row["attributes"] = runner.attributes(inst)
            times = time_launches(cp, launch, repeats, warmup, flush)
            row |= {"median_s": statistics.median(times), "times_s": times}
            del q, k, v, out
        except Exception as exc:  # one failing run must not lose the others
            row["error"] = str(exc)[:300]
        doc["rows"].append(row)
        atomic.write_text(path, json.dumps(doc, indent=1))
        print(json.dumps({k: v for k, v in row.items() if k != "times_s"}), flush=True)
    return path


def accurate(row: dict[str, Any]) -> bool:
    """NaN-free and within the rule's error bound (twice PyTorch's error, else 0.02)."""
    if row.get("nan_count", 1) or "max_abs_err" not in row:
        return False
    torch_err = row.get("torch_max_abs_err")
    return row["max_abs_err"] <= (2 * torch_err if torch_err else 0.02)


def counted(row: dict[str, Any]) -> bool:
    """Timed and :func:`accurate`."""
    return "median_s" in row and accurate(row)


def _errors(pairs: list[tuple[str, float, float]]) -> dict[str, Any]:
    errs = [(i, p / m - 1) for i, p, m in pairs]
    if not errs:
        return {"n": 0}
    worst = sorted(errs, key=lambda e: -abs(e[1]))[:3]
    return {"n": len(errs), "mape": statistics.fmean(abs(e) for _, e in errs),
            "mean_signed": statistics.fmean(e for _, e in errs),
            "worst": [{"id": i, "err": e} for i, e in worst]}  # fmt: skip


def compare(
    measured: dict[str, Any], predictions: list[dict[str, Any]], s: DecodeSet = SET1
) -> dict[str, Any]:
    """Each profile's errors on the counted runs, beside the roofline and the
    constant-efficiency model (the first configuration its reference, left out)."""
    by_id = {config_id(c): c for c in s.configs}
    rows = {r["id"]: r for r in measured["rows"]}
    ref_id = config_id(s.configs[0])
    judged = [i for i in by_id if i != ref_id and i in rows and counted(rows[i])]
    out: dict[str, Any] = {"set": s.name, "rule": s.rule, "runs": len(rows),
                           "counted": len(judged) + (ref_id in rows and counted(rows[ref_id])),
                           "not_counted": sorted(i for i in rows if not counted(rows[i])),
                           "methods": {}}  # fmt: skip
    for doc in predictions:
        prof, pred = doc["profile"], doc["predictions"]
        meas = {i: rows[i]["median_s"] for i in judged}
        model = [(i, pred[i]["runtime_s"], meas[i]) for i in judged]
        roof = [(i, roofline_s(by_id[i], prof), meas[i]) for i in judged]
        eff = None
        if ref_id in rows and counted(rows[ref_id]):
            eff = roofline_s(by_id[ref_id], prof) / rows[ref_id]["median_s"]
        const = [(i, roofline_s(by_id[i], prof) / eff, meas[i]) for i in judged] if eff else []
        key = prof if "variant" not in doc else f"{prof} {doc['variant']}"
        out["methods"][key] = {
            "model": _errors(model),
            "roofline": _errors(roof),
            "constant_efficiency": _errors(const) | {"reference": ref_id, "efficiency": eff},
            "runs": {i: {"measured_s": m, "model_s": p} for i, p, m in model},
        }
    return out


def build(cubin_dir: Path, jobs: int, s: DecodeSet = SET1) -> dict[str, Any]:
    """nvcc's cubins of every instance the set and its checks run, with ptxas's registers and
    spills and the SASS opcode counts of each (the kernel's build record)."""
    from gpusim.kernels.wgmma_runner import build_cubins

    return build_cubins(sorted({instance(c) for c in s.configs + CHECKS}), cubin_dir, jobs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.wgmma_decode_set",
                                 description=__doc__.splitlines()[0])  # fmt: skip
    ap.add_argument("--set", choices=SETS, default="decode_set1")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("manifest").add_argument("--out", type=Path, required=True)
    p = sub.add_parser("predict")
    p.add_argument("--profile", choices=PROFILES, required=True)
    p.add_argument("--variant", default="model")
    p.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("build")
    p.add_argument("--cubin-dir", type=Path, required=True)
    p.add_argument("--jobs", type=int, default=2)
    p = sub.add_parser("measure")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--cubin-dir")
    p = sub.add_parser("compare")
    p.add_argument("--measured", type=Path, required=True)
    p.add_argument("--predictions", type=Path, nargs="+", required=True)
    p.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    try:
        _run(a, SETS[a.set])
    except (OSError, ValueError, KeyError) as exc:  # a bad variant, file or record: one line
        print(f"wgmma_decode_set: error: {exc}", file=sys.stderr)
        return 2
    return 0


def _run(a: argparse.Namespace, s: DecodeSet) -> None:
    if a.cmd == "manifest":
        atomic.write_text(a.out, json.dumps(manifest(s), indent=1) + "\n")
    elif a.cmd == "predict":
        doc = predict(a.profile, s, a.variant)
        atomic.write_text(a.out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    elif a.cmd == "build":
        build(a.cubin_dir, a.jobs, s)
    elif a.cmd == "measure":
        measure(a.out, a.cubin_dir, s)
    else:
        docs = [json.loads(p.read_text()) for p in a.predictions]
        res = compare(json.loads(a.measured.read_text()), docs, s)
        text = json.dumps(res, indent=1, sort_keys=True) + "\n"
        atomic.write_text(a.out, text) if a.out else sys.stdout.write(text)


if __name__ == "__main__":
    sys.exit(main())
