"""Markdown tables from recorded kernel results (bench.json, correctness.json, ptxas JSON).

    python -m gpusim.kernels.bench_tables data/h200/2026-11-30_kernels_bench \
        --build data/sm90/2026-11-30_kernels_build/ptxas_and_sass.json > tables.md

Reads only what the GPU run and the offline build wrote; prints the benchmark table (our best
instance per shape against PyTorch's SDPA backends), the correctness summary per instance
class and the register/spill/SASS summary.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def _f(x, spec=".1f") -> str:
    return "–" if x is None else format(x, spec)


def bench_table(bench: dict) -> str:
    """One row per shape: TFLOP/s of ours and PyTorch's backends, ratios."""
    out = [
        "| dtype | d | causal | N | B×H | ours | flash | efficient | cuDNN | ours/flash "
        "| ours/eff | ours/cuDNN | best instance |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in bench["rows"]:
        eff = r.get("torch_efficient_tflops")
        out.append(
            f"| {r['dtype']} | {r['head_dim']} | {'yes' if r['causal'] else 'no'} | "
            f"{r['seq_len']} | {r['batch']}×{r['heads']} | {_f(r['ours_tflops'])} | "
            f"{_f(r.get('torch_flash_tflops'))} | {_f(eff)} | {_f(r.get('torch_cudnn_tflops'))} | "
            f"{_f(r.get('ratio_to_flash'), '.2f')} | "
            f"{_f(r['ours_tflops'] / eff if eff else None, '.2f')} | "
            f"{_f(r.get('ratio_to_cudnn'), '.2f')} | `{r['ours_best']}` |"
        )
    return "\n".join(out)


def correctness_table(corr: dict) -> str:
    """Errors per instance class against the float64 reference and the PyTorch baseline."""
    out = [
        "| class | instances | runs | failed | max abs err | max rel err "
        "| PyTorch max abs err | worst ours/PyTorch |",
        "|---|---|---|---|---|---|---|---|",
    ]
    per_class = defaultdict(set)
    for r in corr["records"]:
        per_class["_".join(r["instance"].split("_")[:3])].add(r["instance"])
    for cls, s in corr["summary"].items():
        ratio = s["worst_ratio_to_baseline"]
        base = s["max_baseline_abs_err"] or None
        out.append(
            f"| {cls} | {len(per_class[cls])} | {s['runs']} | {s['failed']} | "
            f"{s['max_abs_err']:.2e} | {s['max_rel_err']:.2e} | "
            f"{'–' if base is None else f'{base:.2e}'} | {_f(ratio, '.2f')} |"
        )
    return "\n".join(out)


def resources_table(build: dict, corr: dict) -> str:
    """Per instance class: register range, spilling instances, SASS opcodes present."""
    out = [
        "| class | instances | registers (min–max) | spilling (bytes) | HMMA | LDSM | LDGSTS |",
        "|---|---|---|---|---|---|---|",
    ]
    groups = defaultdict(list)
    for key in build["ptxas"]:
        groups["_".join(key.split("_")[:3])].append(key)
    for cls, keys in sorted(groups.items()):
        regs = [build["ptxas"][k]["registers"] for k in keys]
        spills = {k: build["ptxas"][k]["spill_store_bytes"] for k in keys}
        sp = [f"{k.split('_', 3)[3]}: {v}" for k, v in spills.items() if v]
        sass = [build["sass_static_counts"][k] for k in keys]
        present = {op: sum(s[op] > 0 for s in sass) for op in ("HMMA", "LDSM", "LDGSTS")}
        out.append(
            f"| {cls} | {len(keys)} | {min(regs)}–{max(regs)} | "
            f"{', '.join(sp) if sp else 'none'} | "
            + " | ".join(f"{present[op]}/{len(keys)}" for op in ("HMMA", "LDSM", "LDGSTS"))
            + " |"
        )
    return "\n".join(out)


def main() -> int:
    """Print the provenance line and the three tables of one recorded run."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--build", type=Path)
    args = ap.parse_args()
    bench = json.loads((args.run_dir / "bench.json").read_text())
    corr = json.loads((args.run_dir / "correctness.json").read_text())
    p = bench["provenance"]
    print(
        f"{p['gpu_name']}, driver {p['nvidia_smi'].get('driver_version')}, CUDA runtime "
        f"{p['cuda_runtime_version']}, CuPy {p['cupy_version']}, torch {p['torch_version']} "
        f"(cuDNN {p['cudnn_version']}), SM clock {p['nvidia_smi'].get('clocks.sm')}, "
        f"{p['date_utc']}, commit {p['git_commit'][:10]}.\n"
    )
    print("### Speed (TFLOP/s)\n")
    print(bench_table(bench))
    print("\n### Correctness\n")
    print(correctness_table(corr))
    if args.build:
        print("\n### Registers, spills, SASS (sm_90 cubins built offline)\n")
        print(resources_table(json.loads(args.build.read_text()), corr))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
