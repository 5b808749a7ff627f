"""Predictions for the FlashAttention-2 paper's forward sweep on GPUs the project has not
measured, with the source of every profile number they rest on.

The sweep (Dao, "FlashAttention-2", 2023, section 4.1): batch x sequence length = 16k
tokens, hidden size 2048 (32 heads of d 64 or 16 of d 128), lengths 512 to 16k, causal and
not, fp16. Each point is simulated with the tiles FlashAttention-2's forward kernel runs
(:func:`gpusim.validation.torch_flash_schedule.torch_flash_schedule`: the same launch
template on sm80 and sm90). Nothing here was measured: the table is the model's
prediction, committed so that a measurement on an H100 or A100 can judge it later.

``python -m gpusim.reporting.paper_sweep --out reports/paper_sweep`` writes
``predictions.json``, ``README.md`` (the table) and ``sources_<profile>.md`` (each number of
the profile with its source).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim.api import simulate
from gpusim.errors import GpusimError
from gpusim.profiles import HardwareProfile, load_profile
from gpusim.reporting.profile_sources import sources_markdown
from gpusim.validation.torch_flash_schedule import torch_flash_schedule
from gpusim.workload import Workload

PROFILES = ("h100-sxm5", "a100-sxm4-80gb", "h200-sxm")
TOKENS = 16 * 1024
HIDDEN = 2048
SEQ_LENS = (512, 1024, 2048, 4096, 8192, 16384)
HEAD_DIMS = (64, 128)
DTYPE = "fp16"


def workloads() -> list[Workload]:
    """The sweep's workloads, in the paper's order."""
    return [
        Workload(
            batch=TOKENS // n,
            heads=HIDDEN // d,
            seq_len_q=n,
            seq_len_k=n,
            head_dim=d,
            dtype=DTYPE,
            causal=causal,
        )
        for d in HEAD_DIMS
        for causal in (False, True)
        for n in SEQ_LENS
    ]


def predict(profile: HardwareProfile, w: Workload) -> dict[str, Any]:
    """One point: the schedule FlashAttention-2 runs and the model's runtime for it."""
    s = torch_flash_schedule(w, profile.sm_count.value)
    r = simulate("flash2", w, s, profile)
    return {
        "seq_len": w.seq_len_q, "batch": w.batch, "heads": w.heads, "head_dim": w.head_dim,
        "causal": w.causal, "dtype": w.dtype, "block_m": s.block_m, "block_n": s.block_n,
        "warps": s.warps, "stages": s.stages, "runtime_s": r.runtime_s,
        "tflops": round(r.tflops, 2), "bound": r.bound,
    }  # fmt: skip


def table(rows: list[dict[str, Any]], profiles: tuple[str, ...]) -> str:
    """Markdown: TFLOP/s per length, one column per profile, a block per (d, causal)."""
    by = {(r["profile"], r["head_dim"], r["causal"], r["seq_len"]): r for r in rows}
    out = []
    for d in HEAD_DIMS:
        for causal in (False, True):
            out.append(f"\n**d {d}, {'causal' if causal else 'not causal'}** (TFLOP/s, bound)\n")
            out.append("| length | " + " | ".join(profiles) + " |")
            out.append("|---:|" + "---:|" * len(profiles))
            for n in SEQ_LENS:
                cells = [by[(p, d, causal, n)] for p in profiles]
                out.append(
                    f"| {n} | " + " | ".join(f"{c['tflops']:.0f} ({c['bound']})" for c in cells)
                    + " |"
                )  # fmt: skip
    return "\n".join(out) + "\n"


README = """# The FlashAttention-2 paper's forward sweep, predicted

Written by `python -m gpusim.reporting.paper_sweep --out reports/paper_sweep`; do not edit.

Predictions only: no H100 or A100 was measured. Batch x length = 16k tokens, hidden 2048
(32 heads of d 64, 16 of d 128), fp16, FlashAttention-2's own forward tiles (d 64: 128 x 128,
d 128: 128 x 64, 4 warps, one K/V buffer; `gpusim/validation/torch_flash_schedule.py`).
TFLOP/s counts the model FLOPs (4 B H N^2 d, halved when causal). `h200-sxm` is the
measured profile, shown beside the two GPUs it has not seen; where the H200 was measured
(reports/long_context, PyTorch's flash backend), the model's error is known there.

Every number of each profile and its source: {sources}.
{table}"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.paper_sweep")
    ap.add_argument("--out", type=Path, required=True, help="folder to write")
    ap.add_argument("--profiles", default=",".join(PROFILES), help="comma-separated names")
    args = ap.parse_args(argv)
    try:
        profiles = tuple(p for p in args.profiles.split(",") if p)
        loaded = {p: load_profile(p) for p in profiles}
        rows = [{"profile": p} | predict(loaded[p], w) for p in profiles for w in workloads()]
    except GpusimError as e:
        print(f"gpusim: error: {e}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "predictions.json").write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    for p in profiles:
        (args.out / f"sources_{p}.md").write_text(sources_markdown(loaded[p]))
    links = ", ".join(f"[{p}](sources_{p}.md)" for p in profiles)
    (args.out / "README.md").write_text(README.format(sources=links, table=table(rows, profiles)))
    print(f"{len(rows)} points written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
