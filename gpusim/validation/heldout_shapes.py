"""A held-out set of the project's own kernels at shapes no earlier set judged or tuned on.

The validation sweep (:mod:`gpusim.validation.configs`) runs the FlashAttention-2 paper's shape
(batch x length = 16k tokens, heads x head dim = 2048, Nq = Nk, lengths 512 .. 16384, head dims
64 and 128); the tuning sets (:mod:`gpusim.tuning.proof_workloads`) bf16 at Nq = Nk and powers
of two. This set takes head dims 32 and 256 as well (the tensor-core kernel has them), lengths
that are not powers of two (some not multiples of the tile), other batch and head counts,
Nq != Nk both ways, causal and not, block shapes across the compiled grid, fp16 and bf16 on the
mma.sync kernel and fp32 on the FFMA kernel. It was fixed (written to its manifest, and the
model's predictions committed) before any of it was measured.

    python -m gpusim.validation.heldout_shapes manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.heldout_shapes predict --profile NAME --out FILE
    python -m gpusim.validation.heldout_shapes compare --dataset DATASET --predictions FILE...

The GPU run is the validation sweep's harness: ``python -m gpusim.validation.gpu_sweep --set
heldout_shapes --out DIR`` (see reports/heldout_shapes/README.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.profiles.gaps import launch_overhead_s
from gpusim.schedule import Schedule
from gpusim.validation.configs import ValidationConfig
from gpusim.workload import Workload

#: (dtype, head_dim, batch, heads, seq_len_q, seq_len_k, causal, (block_m, block_n, warps, stages))
SHAPES: tuple[tuple, ...] = (
    # mma.sync kernel, head dim 32
    ("bf16", 32, 4, 32, 3072, 3072, False, (128, 64, 4, 2)),
    ("fp16", 32, 2, 24, 6144, 6144, True, (128, 128, 8, 2)),
    ("bf16", 32, 16, 16, 1536, 1536, False, (64, 64, 4, 3)),
    ("bf16", 32, 1, 40, 1024, 8192, False, (128, 32, 8, 1)),
    # head dim 256
    ("bf16", 256, 2, 16, 4096, 4096, False, (64, 64, 4, 2)),
    ("fp16", 256, 4, 8, 2048, 2048, True, (128, 64, 8, 2)),
    ("bf16", 256, 1, 16, 8192, 8192, True, (128, 32, 8, 3)),
    ("bf16", 256, 8, 8, 512, 2048, True, (64, 32, 4, 2)),
    # head dim 64
    ("bf16", 64, 3, 20, 3000, 3000, False, (128, 128, 8, 3)),
    ("fp16", 64, 6, 12, 2500, 2500, True, (128, 64, 8, 1)),
    ("bf16", 64, 1, 48, 2048, 6144, True, (64, 128, 4, 2)),
    ("bf16", 64, 24, 16, 768, 768, False, (128, 32, 4, 3)),
    ("fp16", 64, 2, 64, 5120, 5120, True, (64, 64, 4, 1)),
    # head dim 128
    ("bf16", 128, 5, 12, 3584, 3584, False, (128, 64, 4, 2)),
    ("bf16", 128, 2, 28, 6000, 6000, True, (128, 64, 4, 2)),
    ("fp16", 128, 1, 32, 4096, 12288, False, (128, 128, 8, 3)),
    ("bf16", 128, 12, 10, 1280, 1280, True, (64, 64, 4, 3)),
    ("bf16", 128, 3, 16, 8192, 2048, False, (128, 32, 8, 2)),
    ("fp16", 128, 7, 8, 2816, 2816, False, (64, 128, 4, 1)),
    ("bf16", 128, 1, 96, 1024, 1024, True, (128, 64, 8, 1)),
    ("bf16", 128, 4, 16, 10240, 10240, True, (128, 64, 4, 3)),
    ("fp16", 128, 16, 20, 640, 640, False, (128, 128, 8, 1)),
    # FFMA kernel (fp32), head dims 64 and 128
    ("fp32", 64, 4, 16, 1536, 1536, False, (64, 64, 8, 2)),
    ("fp32", 64, 2, 12, 3072, 3072, True, (128, 32, 8, 3)),
    ("fp32", 64, 8, 8, 1000, 1000, False, (64, 32, 4, 1)),
    ("fp32", 64, 1, 32, 1024, 4096, True, (64, 128, 8, 2)),
    ("fp32", 64, 3, 20, 2304, 2304, True, (128, 64, 8, 1)),
    ("fp32", 128, 2, 10, 2560, 2560, False, (64, 32, 8, 2)),
    ("fp32", 128, 1, 24, 4096, 4096, True, (128, 32, 8, 1)),
    ("fp32", 128, 6, 8, 1200, 1200, False, (64, 64, 8, 2)),
    ("fp32", 128, 2, 16, 2048, 3072, False, (64, 32, 4, 3)),
)
SET_NAME = "heldout_shapes"
#: Profiles the set's predictions are committed for.
PROFILES = ("h200-sxm-calibrated",)
WORST = 5


def configs_for(shapes: tuple[tuple, ...]) -> list[ValidationConfig]:
    """Validation configs of flash2 for rows shaped as :data:`SHAPES`, in order."""
    out = []
    for dtype, d, b, h, nq, nk, causal, (bm, bn, w, st) in shapes:
        wl = Workload(batch=b, heads=h, seq_len_q=nq, seq_len_k=nk, head_dim=d, dtype=dtype,
                      causal=causal)  # fmt: skip
        out.append(ValidationConfig("flash2", wl, Schedule(block_m=bm, block_n=bn, warps=w,
                                                           stages=st)))  # fmt: skip
    return out


def heldout_configs() -> list[ValidationConfig]:
    """The set, in run order."""
    return configs_for(SHAPES)


def manifest_for(set_name: str, configs: list[ValidationConfig], what: str) -> dict[str, Any]:
    """A set of validation configs as its committed manifest holds it."""
    return {"set": set_name, "what": what, "configs": [c.as_dict() for c in configs]}


def manifest(configs: list[ValidationConfig]) -> dict[str, Any]:
    """The set as its committed manifest holds it."""
    return manifest_for(
        SET_NAME,
        configs,
        "held-out shapes of the project's flash2 kernels (mma.sync fp16/bf16, FFMA "
        "fp32), fixed before they were measured: gpusim/validation/heldout_shapes.py",
    )


def configs_from_manifest(path: Path) -> list[ValidationConfig]:
    return [ValidationConfig.from_dict(d) for d in json.loads(Path(path).read_text())["configs"]]


def compiled_record(c: ValidationConfig) -> dict[str, Any]:
    """A record of ``c`` as the validation comparison reads one, with the registers of the
    offline nvcc build (data/sm90/2026-11-30_kernels_build) in place of measured ones: what
    the prediction uses before the run."""
    from gpusim.kernel_catalog.compiled import compiled_footprints
    from gpusim.kernel_catalog.instances import instance_for

    inst = instance_for(c.workload, c.schedule)
    compiled = compiled_footprints("9.0")[inst.key]
    attrs = {"num_regs": compiled.registers, "dynamic_smem_bytes": inst.smem_bytes}
    return c.as_dict() | {"instance": inst.key, "attributes": attrs, "status": "ok",
                          "median_s": float("nan")}  # fmt: skip


def predict(
    profile_name: str,
    configs: list[ValidationConfig],
    counts: str | None = None,
    set_name: str = SET_NAME,
    profile=None,
) -> dict[str, Any]:
    """The model's predicted runtime of every config, with the compiled registers;
    ``counts`` sets the schedules' ``instruction_counts`` (None: the default); ``profile``: a
    profile object to use under ``profile_name`` (a variant not shipped as a file)."""
    from gpusim.profiles.loader import load_profile
    from gpusim.source_commit import git_commit
    from gpusim.validation.predicted_vs_measured import compare_record

    profile = profile or load_profile(profile_name)
    rows = {}
    for c in configs:
        rec = compiled_record(c)
        if counts is not None:
            rec["schedule"] = rec["schedule"] | {"instruction_counts": counts}
        row = compare_record(rec, profile)
        rows[c.config_id] = {"predicted_s": row.predicted_s, "instance": rec["instance"],
                             "registers": rec["attributes"]["num_regs"],
                             "ctas_per_sm": row.ctas_per_sm, "bound": row.bound}  # fmt: skip
    doc = {"set": set_name, "profile": profile_name, "commit": git_commit(), "predictions": rows}
    return doc | ({"instruction_counts": counts} if counts else {})


def set_main(
    argv: list[str] | None,
    description: str,
    set_name: str,
    configs: list[ValidationConfig],
    rule: str,
    what: str,
    profiles: tuple[str, ...],
    variants: dict[str, Any] | None = None,
) -> int:
    """The command line of a new-shapes held-out set: ``manifest --out FILE`` (write-once, the
    set under its ``rule``) and ``predict --profile P --out FILE`` (``variants``: profile name
    -> a function giving the profile object of a variant not shipped as a file)."""
    import sys

    ap = argparse.ArgumentParser(description=description)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("manifest").add_argument("--out", type=Path, required=True)
    p = sub.add_parser("predict")
    p.add_argument("--profile", default=profiles[0], choices=profiles)
    p.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "manifest":
        if args.out.exists():
            print(f"{set_name}: error: {args.out} exists (write-once)", file=sys.stderr)
            return 2
        doc = manifest_for(set_name, configs, what) | {"decision_rule": rule}
    else:
        variant = (variants or {}).get(args.profile)
        doc = predict(args.profile, configs, set_name=set_name,
                      profile=variant() if variant else None)  # fmt: skip
    atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


def error_summary(errs: list[tuple[str, float]]) -> dict[str, Any]:
    """Count, MAPE, mean signed and largest error, and the worst runs of ``(id, error)``."""
    if not errs:
        return {"n": 0}
    worst = sorted(errs, key=lambda e: abs(e[1]), reverse=True)[:WORST]
    return {
        "n": len(errs),
        "mape": statistics.fmean(abs(e) for _, e in errs),
        "mean_signed": statistics.fmean(e for _, e in errs),
        "max_abs": abs(worst[0][1]),
        "worst": [{"id": i, "err": e} for i, e in worst],
    }


def compare(dataset: Path, predictions: list[Path], efficiency_dataset: Path) -> dict[str, Any]:
    """Each prediction file's errors on the measured runs, beside a roofline and a
    constant-efficiency baseline (the roofline over the median roofline / measured of the
    validation sweep's tensor-core runs, ``efficiency_dataset``; FFMA runs at the fp32 peak
    over the same median of the sweep's fp32 runs), overall and by kernel."""
    from gpusim.profiles.loader import load_profile

    data = json.loads(Path(dataset).read_text())
    measured = {r["id"]: r for r in data["records"] if r.get("status") == "ok"}
    failed = [r["id"] for r in data["records"] if r.get("status") != "ok"]
    out: dict[str, Any] = {"dataset": str(dataset), "n_measured": len(measured),
                           "failed": failed, "methods": {}}  # fmt: skip
    profile_name = None
    profiles = {json.loads(Path(p).read_text())["profile"] for p in predictions}
    for p in predictions:
        doc = json.loads(Path(p).read_text())
        profile_name = profile_name or doc["profile"]
        # files of several profiles (or labelled) are told apart by it
        tag = doc.get("label") or (doc["profile"] if len(profiles) > 1 else None)
        label = f"model@{doc['commit'][:7]}" + (f" ({tag})" if tag else "")
        pred = doc["predictions"]
        out["methods"][label] = _by_variant(measured, lambda i, pred=pred: pred[i]["predicted_s"])
    hw = load_profile(profile_name or PROFILES[0])
    eff = _efficiencies(efficiency_dataset, hw)
    out["baselines_efficiency"] = eff
    out["methods"]["roofline"] = _by_variant(measured, lambda i: roofline(measured[i], hw))
    out["methods"]["constant_efficiency"] = _by_variant(
        measured, lambda i: const_efficiency(measured[i], hw, eff)
    )
    out["runs"] = {i: {"measured_s": r["median_s"], "variant": r["variant"]}
                   for i, r in measured.items()}  # fmt: skip
    return out


def _by_variant(measured: dict, predicted) -> dict[str, Any]:
    errs = {"all": [], "tc": [], "simt": []}
    for i, r in measured.items():
        e = (predicted(i) - r["median_s"]) / r["median_s"]
        errs["all"].append((i, e))
        errs[r["variant"]].append((i, e))
    return {k: error_summary(v) for k, v in errs.items()}


def roofline(rec: dict, hw) -> float:
    """Launch overhead + max(FLOPs / the product pipe's peak, compulsory bytes / DRAM)."""
    w = Workload(**rec["workload"])
    if w.dtype == "fp32":
        peak = hw.fp32_flops_per_clk_per_sm.value * hw.sm_count.value * hw.sm_clock_hz.value
    else:
        clock = hw.sm_clock_tensor_load_hz or hw.sm_clock_hz
        rate = getattr(hw.mma_sync_flops_per_clk_per_sm, w.dtype).value
        peak = rate * hw.sm_count.value * clock.value
    memory = w.compulsory_bytes() / hw.dram_bandwidth_bytes_per_s.value
    return launch_overhead_s(hw) + max(w.model_flops() / peak, memory)


def _efficiencies(path: Path, hw) -> dict[str, float]:
    data = json.loads(Path(path).read_text())
    out = {}
    for variant in ("tc", "simt"):
        fr = [roofline(r, hw) / r["median_s"] for r in data["records"]
              if r.get("status") == "ok" and r.get("kind") == "flash2"
              and r.get("variant") == variant]  # fmt: skip
        out[variant] = statistics.median(fr)
    return out


def const_efficiency(rec: dict, hw, eff: dict[str, float]) -> float:
    return roofline(rec, hw) / eff[rec["variant"]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("manifest")
    m.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("predict")
    p.add_argument("--profile", default=PROFILES[0])
    p.add_argument("--label", default=None)
    p.add_argument("--instruction-counts", default=None, choices=("formulas", "sass-fit"))
    p.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("--dataset", type=Path, required=True)
    c.add_argument("--predictions", type=Path, nargs="+", required=True)
    c.add_argument(
        "--efficiency-dataset",
        type=Path,
        default=Path("data/h200/2026-11-30_validation_dram21/h200-dataset.json"),
    )
    c.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "manifest":
        doc = manifest(heldout_configs())
    elif args.cmd == "predict":
        doc = predict(args.profile, heldout_configs(), args.instruction_counts)
        doc |= {"label": args.label} if args.label else {}
    else:
        doc = compare(args.dataset, args.predictions, args.efficiency_dataset)
    atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
