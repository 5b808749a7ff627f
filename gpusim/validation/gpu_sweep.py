"""The validation sweep on the GPU machine: time every config, count bytes with ncu, write the
dataset. Resumable: what ``--out`` already holds is not measured again.

    python -m gpusim.validation.gpu_sweep --out OUT [--cubin-dir DIR] [--only PART,...] [--no-ncu]
    python -m gpusim.validation.gpu_sweep --dry-run            # list the configs, no GPU
    python -m gpusim.validation.gpu_sweep --build-cubins DIR   # nvcc, any machine: the cubins

``--set heldout_shapes`` (or ``--configs MANIFEST``) runs another committed set with the same
harness instead of the validation sweep.

The comparison with the model needs no GPU: ``gpusim validate --from OUT/h200-dataset.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from gpusim.validation.configs import sweep_configs
from gpusim.validation.run_sweep import run_sweep, select


def log(msg: str) -> None:
    """Progress on standard error, flushed."""
    print(msg, file=sys.stderr, flush=True)


def set_configs(name: str | None, manifest: Path | None):
    """The configs of ``--configs`` (a committed manifest), else of ``--set`` (None: the sweep)."""
    if manifest is not None:
        from gpusim.validation.heldout_shapes import configs_from_manifest

        return configs_from_manifest(manifest)
    if name in (None, "validation"):
        return sweep_configs()
    if name == "heldout_shapes":
        from gpusim.validation.heldout_shapes import heldout_configs

        return heldout_configs()
    raise SystemExit(f"gpu_sweep: error: unknown --set {name!r}; use validation or heldout_shapes")


def dry_run(only: str | None, configs=None) -> int:
    """Print the configs (id, instance, shared memory, ncu) and their counts; no GPU."""
    from gpusim.errors import GpusimError
    from gpusim.kernel_catalog.instances import instance_for

    configs = select(sweep_configs() if configs is None else configs, only)
    for c in configs:
        if c.kind == "flash2":
            try:
                inst = instance_for(c.workload, c.schedule)
                what = f"{inst.key} smem {inst.smem_bytes}"
            except GpusimError as exc:
                what = f"NO INSTANCE: {exc}"
        else:
            what = "cuBLAS + row_softmax<128>"
        print(f"{c.config_id:58s} {what}{'  [ncu]' if c.ncu else ''}")
    kinds = {k: sum(c.variant == k for c in configs) for k in ("tc", "simt", "cublas")}
    print(f"{len(configs)} configs {kinds}, {sum(c.ncu for c in configs)} counted by ncu")
    return 0


def build_cubins(out_dir: Path, configs=None) -> int:
    """nvcc-built cubins of every flash2 instance of the sweep, plus the softmax kernel."""
    import subprocess

    from gpusim.kernel_catalog.instances import instance_for
    from gpusim.kernels.build import build_cubins as build_flash2
    from gpusim.kernels.build import find_tool, parse_ptxas
    from gpusim.validation.standard_gpu import SOFTMAX_NAME, SOFTMAX_SOURCE

    configs = sweep_configs() if configs is None else configs
    insts = sorted({instance_for(c.workload, c.schedule) for c in configs if c.kind == "flash2"})
    t0 = time.time()
    report = build_flash2(insts, out_dir, jobs=2)
    src = out_dir / "row_softmax_inst.cu"
    src.write_text(
        SOFTMAX_SOURCE.read_text()
        + f"\ntemplate __global__ void {SOFTMAX_NAME}(const __half*, __half*, int, float);\n"
    )
    proc = subprocess.run(
        [find_tool("nvcc") or "nvcc", "-arch=sm_90", "-std=c++17", "-cubin", "-Xptxas", "-v",
         str(src), "-o", str(out_dir / "row_softmax.cubin")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    report["row_softmax"] = next(iter(parse_ptxas(proc.stderr + proc.stdout).values()))
    (out_dir / "ptxas.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    spills = {
        k: v.get("spill_store_bytes") for k, v in report.items() if v.get("spill_store_bytes")
    }
    print(f"{len(report)} cubins in {out_dir} ({time.time() - t0:.0f} s); spilling: {spills}")
    return 0


def main() -> int:
    """Run the sweep (or list it, build its cubins, assemble a dataset); print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="the dataset's folder (a new one)")
    ap.add_argument("--cubin-dir", type=Path, default=None)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated parts of config ids")
    ap.add_argument("--no-ncu", action="store_true")
    ap.add_argument("--ncu-timeout", type=float, default=240)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--build-cubins", type=Path, default=None, metavar="DIR")
    ap.add_argument("--set", default=None, help="validation (default) or heldout_shapes")
    ap.add_argument("--configs", type=Path, default=None, help="a committed set's manifest")
    ap.add_argument(
        "--assemble-only", action="store_true", help="dataset from --out's files; no GPU"
    )
    args = ap.parse_args()
    if args.out is None and not (args.dry_run or args.build_cubins):
        print("gpu_sweep: error: --out is needed (a new folder for the dataset)", file=sys.stderr)
        return 2
    configs = set_configs(args.set, args.configs)
    if args.assemble_only:
        from gpusim.validation.run_sweep import assemble_dir

        print(assemble_dir(args.out, log, configs))
        return 0
    if args.dry_run:
        return dry_run(args.only, configs)
    if args.build_cubins:
        return build_cubins(args.build_cubins, configs)

    from gpusim.errors import GpusimError

    try:
        path = run_sweep(
            args.out,
            args.cubin_dir,
            repeats=args.repeats,
            warmup=args.warmup,
            use_ncu=not args.no_ncu,
            ncu_timeout_s=args.ncu_timeout,
            only=args.only,
            log=log,
            configs=configs,
        )
    except GpusimError as exc:
        print(f"validate_gpu: error: {exc}", file=sys.stderr)
        return 2
    data = json.loads(path.read_text())
    ok = [r for r in data["records"] if r["status"] == "ok"]
    print(f"{'config':58s} {'ms':>9s} {'TFLOP/s':>8s} regs  ncu DRAM GB")
    for r in data["records"]:
        if r["status"] != "ok":
            print(f"{r['id']:58s} FAILED {str(r.get('error'))[:60]}")
            continue
        from gpusim.workload import Workload

        tf = Workload(**r["workload"]).model_flops() / r["median_s"] / 1e12
        regs = (r.get("attributes") or {}).get("num_regs", "-")
        n = r.get("counts") or {}
        dram = n.get("dram_read_bytes")
        dram_s = f"{(dram + (n.get('dram_write_bytes') or 0)) / 1e9:.3f}" if dram else ""
        print(f"{r['id']:58s} {r['median_s'] * 1e3:9.3f} {tf:8.1f} {regs!s:>4} {dram_s}")
    print(f"{len(ok)}/{len(data['records'])} ok; dataset {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
