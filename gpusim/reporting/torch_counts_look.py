"""A look (judges nothing): PyTorch's forward timed with its binary's own loop counts
(``simulate --binary-timing counts``) against the default fit, on forward runs measured before.

    python -m gpusim.reporting.torch_counts_look

The pipe model charges a step the instruction count fitted to the project's own compiled
loops; PyTorch's loop (the committed dump ``data/h200/2026-12-02_torch_flash_sass``, bf16,
d64 and d128) issues more. This prints, per seen set, both models' forward MAPE, mean signed
error and worst run: the H100's runs of held-out set 36 (d64/d128), the paper sweep and the
ragged look, and the H200's PyTorch runs of the long-context and partition sweeps. The dump
holds bf16 instances only; an fp16 run is given the bf16 instance of its template (the
same code but its conversions and product type), which this look says and a judged set
avoids: held-out set 37 (bf16 only) judges the mechanism (``reports/torch_heldout37``).
"""

from __future__ import annotations

from pathlib import Path

from gpusim.reporting import torch_sass as TS
from gpusim.reporting.backward_compare import last_records
from gpusim.validation.backward_heldout15 import workload
from gpusim.validation.torch_flash_schedule import compiled_counts, torch_flash_schedule

H100_SETS = {
    "set 36 (H100)": "data/h100/2026-12-07_torch_heldout36_measured/runs.jsonl",
    "paper sweep (H100)": "data/h100/2026-12-05_paper_sweep_measured/runs.jsonl",
    "ragged look (H100)": "data/h100/2026-12-07_torch_ragged_look_measured/bwd/runs.jsonl",
}
MODELS = ("fit", "counts")


def _both(w, s, profile: str, sm_count=None) -> dict[str, float]:
    import gpusim

    kernel = TS.torch_kernel(w.model_copy(update={"dtype": "bf16"}), s)
    counts = {"sass": TS.SASS, "res_usage": TS.RES_USAGE, "kernel": kernel,
              "binary_timing": "counts"}  # fmt: skip
    from gpusim.engine.cta_issue import cta_issue

    with cta_issue(False):  # the counts this look found (the per-CTA issue came with set 40)
        return {
            "fit": gpusim.simulate("flash2", w, s, profile, sm_count=sm_count).runtime_s,
            "counts": gpusim.simulate("flash2", w, s, profile, sm_count=sm_count,
                                      **counts).runtime_s,
        }  # fmt: skip


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def h100_rows() -> list[dict]:
    rows = []
    for name, path in H100_SETS.items():
        for rid, r in last_records(Path(path)).items():
            if r.get("status", "ok") != "ok" or "fwd" not in r or r["head_dim"] not in (64, 128):
                continue
            w = workload(r, "fwd")
            s = torch_flash_schedule(w)
            rows.append({"set": name, "id": rid, "measured": r["fwd"]["median_s"]}
                        | _both(w, s, "h100-sxm5"))  # fmt: skip
    return rows


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def h200_rows() -> list[dict]:
    import gpusim

    rows = []
    for name in TS.SETS:
        for r in TS.runs(name):
            w, s = gpusim.Workload(**r["workload"]), gpusim.Schedule(**r["schedule"])
            rows.append({"set": f"{name} (H200)", "id": r["id"], "measured": r["median_s"]}
                        | _both(w, s, "h200-sxm", r.get("sm_count")))  # fmt: skip
    return rows


def table(rows: list[dict], models: tuple[str, ...] = MODELS) -> str:
    """Per seen set and model (a key of each row, beside ``measured``): MAPE, mean signed
    error and the worst run."""
    lines = ["| seen set | runs | model | MAPE | mean signed | worst |"]
    lines.append("|---|---|---|---|---|---|")
    for name in dict.fromkeys(r["set"] for r in rows):
        sub = [r for r in rows if r["set"] == name]
        for m in models:
            errs = [r[m] / r["measured"] - 1 for r in sub]
            worst = max(errs, key=abs)
            lines.append(
                f"| {name} | {len(sub)} | {m} | {100 * sum(map(abs, errs)) / len(errs):.1f} % | "
                f"{100 * sum(errs) / len(errs):+.1f} % | {100 * worst:+.1f} % |"
            )
    return "\n".join(lines)


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def issue_table() -> str:
    """Warp-instructions a warp issues per steady step besides HMMA and LDSM: each plain bf16
    instance of the dump (PyTorch's tiles; causal or not, even or not) against the fit."""
    import gpusim
    from gpusim.instruction_mix import StepShape, fitted_cta_issue
    from gpusim.kernel_class import resolve_class
    from gpusim.kernels.binary_dump import load_binary_loop

    lines = ["| instance | causal | even | the binary | the fit |", "|---|---|---|---|---|"]
    for d, n in ((64, 4096), (64, 4000), (128, 4096), (128, 4000)):
        for causal in (False, True):
            w = gpusim.Workload(seq_len=n, head_dim=d, dtype="bf16", causal=causal)
            s = torch_flash_schedule(w)
            loop = load_binary_loop(TS.torch_kernel(w, s), sass=TS.SASS, res_usage=TS.RES_USAGE)
            shape = StepShape(s.block_m / s.warps, s.block_n, d, s.warps, s.stages, 2, s.block_n)
            fit = fitted_cta_issue(resolve_class(s, "bf16"), shape) / s.warps
            tile = f"d{d} {s.block_m} x {s.block_n} w{s.warps}"
            even, own = n % s.block_m == 0, loop.issue_besides_products
            lines.append(f"| {tile} | {causal} | {even} | {own} | {fit:.0f} |")
    return "\n".join(lines)


def main() -> int:
    print(issue_table() + "\n")
    print(table(h100_rows() + h200_rows()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
