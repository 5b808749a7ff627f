"""A look (judges nothing): PyTorch's FlashAttention-2 backward with the step's instruction
count as compiled, on backward runs measured before.

    python -m gpusim.reporting.torch_bwd_counts_look [--jobs N]

The pipe model's described backward step (``--instruction-counts formulas``, the default)
counts the source's arithmetic, one instruction an operation. PyTorch's compiled loop (the
committed dump ``data/h200/2026-12-05_torch_flash_bwd_sass``) issues more. This prints,
first, each instance's steady step besides HMMA and LDSM: the binary, the formulas and
``compiled`` (:data:`gpusim.instruction_mix.BWD_COMPILED_PER_ELEMENT`); then, per seen set,
the backward's MAPE, mean signed error and worst run for four models: ``formulas``,
``compiled``, ``counts`` (the binary's own count on the pipe model, ``--binary-timing
counts``) and ``replay`` (the SM core model replaying the binary, the ``-core`` profile),
on the runs whose head dim the dump holds (64, 128, 256).
A held-out set judges what this suggests (``reports/torch_heldout38``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gpusim.reporting.backward_compare import last_records
from gpusim.reporting.torch_counts_look import table as counts_table
from gpusim.validation.backward_heldout15 import backward_schedule
from gpusim.validation.torch_bwd_kernel import RES_USAGE, SASS
from gpusim.validation.torch_bwd_models import MODELS, binary_args, simulate_backward

#: seen set -> (its runs.jsonl, the lent card's profile)
SETS = {
    "set 15 (H200)": ("data/h200/2026-12-04_backward_heldout15/runs.jsonl", "h200-sxm"),
    "set 17 (H200)": ("data/h200/2026-12-05_backward_heldout17/runs.jsonl", "h200-sxm"),
    "paper sweep (H100)": ("data/h100/2026-12-05_paper_sweep_measured/runs.jsonl", "h100-sxm5"),
    "set 36 (H100)": ("data/h100/2026-12-07_torch_heldout36_measured/runs.jsonl", "h100-sxm5"),
    "set 37 (H100)": ("data/h100/2026-12-07_torch_heldout37_measured/runs.jsonl", "h100-sxm5"),
}


def predict(run: dict, model: str, profile: str) -> float:
    """The backward's runtime (s) of one run by ``model`` on ``profile``."""
    return simulate_backward(run, model, profile).runtime_s


def _row(item: tuple[str, str, dict, str]) -> dict:
    name, rid, r, profile = item
    row = {"set": name, "id": rid, "measured": r["bwd"]["median_s"]}
    return row | {m: predict(r, m, profile) for m in MODELS}


def rows(jobs: int = 1) -> list[dict]:
    from gpusim.parallel_map import pmap

    items = []
    for name, (path, profile) in SETS.items():
        for rid, r in last_records(Path(path)).items():
            # the dump holds d64, d128 and d256 instances only; the four models on the same runs
            if r.get("status", "ok") == "ok" and "bwd" in r and r["head_dim"] in (64, 128, 256):
                items.append((name, rid, r, profile))
    return list(pmap(_row, items, jobs))


def table(rs: list[dict]) -> str:
    """:func:`gpusim.reporting.torch_counts_look.table` over the backward's four models."""
    return counts_table(rs, MODELS)


def issue_table() -> str:
    """Each bf16 instance's steady step, warp-instructions a warp besides HMMA and LDSM."""
    from gpusim.instruction_mix import StepShape, bwd_barriers_per_step, bwd_step_mix, issued
    from gpusim.kernel_class import resolve_class
    from gpusim.kernels.binary_dump import load_binary_loop

    lines = ["| instance | causal | even | the binary | formulas | compiled |"]
    lines.append("|---|---|---|---|---|---|")
    for d in (64, 128, 256):
        for n, causal in ((4096, False), (4000, False), (4096, True), (4000, True)):
            run = {"batch": 1, "heads": 1, "heads_kv": None, "seq_len_q": n, "seq_len_k": n,
                   "head_dim": d, "dtype": "bf16", "causal": causal}  # fmt: skip
            s = backward_schedule(run)
            loop = load_binary_loop(binary_args(run)["kernel"], sass=SASS, res_usage=RES_USAGE)
            shape = StepShape(s.block_m / s.warps, s.block_n, d, s.warps, s.stages, 2, s.block_n)
            out = []
            for counts in ("formulas", "compiled"):
                cls = resolve_class(s.model_copy(update={"instruction_counts": counts}), "bf16")
                out.append(issued(bwd_step_mix(cls, shape, bwd_barriers_per_step(s.stages))))
            tile = f"d{d} {s.block_m} x {s.block_n} w{s.warps}"
            even = n % s.block_m == 0 and n % s.block_n == 0
            lines.append(
                f"| {tile} | {causal} | {even} | {loop.issue_besides_products} | "
                f"{out[0]:.0f} | {out[1]:.0f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    print(issue_table() + "\n")
    print(table(rows(args.jobs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
