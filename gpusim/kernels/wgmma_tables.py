"""Markdown tables of a recorded ``flash3_wgmma`` run (bench.json, check_*.json, build.json).

    python -m gpusim.kernels.wgmma_tables data/h200/2026-12-03_wgmma_bench

Reads only what the run and the offline build wrote. Speed: per class (dtype, d, causal,
N < 4096 or N >= 4096) the min and median of our best instance's TFLOP/s and its ratio to
cuDNN and to PyTorch's flash backend, recomputed from the rows; then every row. Correctness:
runs and failures per instance class, recomputed from the records. Resources: registers,
spills and SASS opcode counts per instance from the offline build of the cubins that ran.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

SLACK = 1e-6


def load(run_dir: Path) -> tuple[dict, list[dict], dict]:
    """(bench document, every check record, build report)."""
    bench = json.loads((run_dir / "bench.json").read_text())
    recs: list[dict] = []
    for p in sorted(run_dir.glob("check_*.json")):
        recs += json.loads(p.read_text())["records"]
    build = json.loads((run_dir / "build.json").read_text())
    return bench, recs, build


def record_ok(r: dict) -> bool:
    """The check's criterion recomputed from a record's numbers."""
    if "error" in r:
        return False
    return (
        r["nan_count"] == 0
        and r["guard_intact"]
        and r["max_abs_err"] <= 2 * r["baseline_max_abs_err"] + SLACK
    )


def class_summary(rows: list[dict]) -> list[dict]:
    """Min/median TFLOP/s and ratios per (dtype, d, causal, long) class."""
    groups = defaultdict(list)
    for r in rows:
        groups[(r["dtype"], r["head_dim"], r["causal"], r["seq_len"] >= 4096)].append(r)
    out = []
    for (dtype, d, causal, long), rs in sorted(groups.items()):
        ours = [r["ours_tflops"] for r in rs]
        cud = [r["ours_tflops"] / r["torch_cudnn_tflops"] for r in rs if r["torch_cudnn_tflops"]]
        fl = [r["ours_tflops"] / r["torch_flash_tflops"] for r in rs if r["torch_flash_tflops"]]
        out.append({
            "dtype": dtype, "head_dim": d, "causal": causal,
            "seq": "N >= 4096" if long else "N < 4096", "shapes": len(rs),
            "min_tflops": min(ours), "median_tflops": statistics.median(ours),
            "min_x_cudnn": min(cud) if cud else None,
            "median_x_cudnn": statistics.median(cud) if cud else None,
            "median_x_flash": statistics.median(fl) if fl else None,
        })  # fmt: skip
    return out


def _f(x, spec=".1f") -> str:
    return "–" if x is None else format(x, spec)


def speed_tables(bench: dict) -> str:
    """The class summary and the per-shape table."""
    lines = [
        "| dtype | d | causal | N | shapes | min TFLOP/s | median TFLOP/s | min x cuDNN "
        "| median x cuDNN | median x flash |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in class_summary(bench["rows"]):
        lines.append(
            f"| {c['dtype']} | {c['head_dim']} | {'yes' if c['causal'] else 'no'} | {c['seq']} "
            f"| {c['shapes']} | {_f(c['min_tflops'])} | {_f(c['median_tflops'])} "
            f"| {_f(c['min_x_cudnn'], '.2f')} | {_f(c['median_x_cudnn'], '.2f')} "
            f"| {_f(c['median_x_flash'], '.2f')} |"
        )
    lines += [
        "",
        "| dtype | d | causal | N | B×H | ours | flash | cuDNN | x flash | x cuDNN | best |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in bench["rows"]:
        fl, cu = r.get("torch_flash_tflops"), r.get("torch_cudnn_tflops")
        lines.append(
            f"| {r['dtype']} | {r['head_dim']} | {'yes' if r['causal'] else 'no'} "
            f"| {r['seq_len']} | {r['batch']}×{r['heads']} | {_f(r['ours_tflops'])} | {_f(fl)} "
            f"| {_f(cu)} | {_f(r['ours_tflops'] / fl if fl else None, '.2f')} "
            f"| {_f(r['ours_tflops'] / cu if cu else None, '.2f')} | `{r['ours_best']}` |"
        )
    return "\n".join(lines)


def correctness_table(recs: list[dict]) -> str:
    """Runs, failures and the worst error ratio to PyTorch per (dtype, d)."""
    groups = defaultdict(list)
    for r in recs:
        groups["_".join(r["instance"].split("_")[:3])].append(r)
    lines = [
        "| class | instances | runs | failed | max abs err | worst ours / PyTorch err |",
        "|---|---|---|---|---|---|",
    ]
    for cls, rs in sorted(groups.items()):
        good = [r for r in rs if "error" not in r]
        ratio = max((r["max_abs_err"] / r["baseline_max_abs_err"] for r in good), default=None)
        lines.append(
            f"| {cls} | {len({r['instance'] for r in rs})} | {len(rs)} "
            f"| {sum(not record_ok(r) for r in rs)} "
            f"| {_f(max((r['max_abs_err'] for r in good), default=None), '.2e')} "
            f"| {_f(ratio, '.2f')} |"
        )
    return "\n".join(lines)


def resources_table(build: dict) -> str:
    """Registers, spills and SASS opcode counts per instance (offline build)."""
    ops = ("HGMMA", "UTMALDG", "SYNCS", "WARPGROUP", "USETMAXREG", "LDL", "STL")
    lines = [
        "| instance | regs (entry) | spill st/ld B | " + " | ".join(ops) + " |",
        "|---|---|---|" + "---|" * len(ops),
    ]
    for key, r in sorted(build.items()):
        lines.append(
            f"| `{key}` | {r['registers']} | {r['spill_store_bytes']}/{r['spill_load_bytes']} | "
            + " | ".join(str(r["sass"][o]) for o in ops)
            + " |"
        )
    return "\n".join(lines)


def main() -> int:
    """Print the three tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    args = ap.parse_args()
    bench, recs, build = load(args.run_dir)
    p = bench["provenance"]
    print(
        f"{p.get('gpu_name')}, driver {p['nvidia_smi'].get('driver_version')}, CUDA runtime "
        f"{p.get('cuda_runtime_version')}, torch {p.get('torch_version')} (cuDNN "
        f"{p.get('cudnn_version')}), {p['date_utc']}, commit {p['git_commit'][:10]}.\n"
    )
    print("### Speed (TFLOP/s)\n\n" + speed_tables(bench))
    print("\n### Correctness\n\n" + correctness_table(recs))
    print("\n### Registers, spills, SASS\n\n" + resources_table(build))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
