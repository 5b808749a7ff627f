"""A look (judges nothing): PyTorch's forward timed with its binary's counts, with and without
the binary's per-CTA issue outside its loop (:mod:`gpusim.engine.cta_issue`), on the H100's
PyTorch forwards measured before.

    python -m gpusim.reporting.torch_cta_issue_look

Prints, per seen set, both variants' forward MAPE and mean signed error, and every causal
run's two errors (the mechanism moves short causal grids most). Held-out set 40
(``reports/torch_heldout40``) judges it.
"""

from __future__ import annotations

from pathlib import Path

from gpusim.reporting import torch_sass as TS
from gpusim.reporting.backward_compare import last_records
from gpusim.validation.backward_heldout15 import workload
from gpusim.validation.torch_flash_schedule import compiled_counts, torch_flash_schedule

SETS = {
    "set 36": "data/h100/2026-12-07_torch_heldout36_measured/runs.jsonl",
    "paper sweep": "data/h100/2026-12-05_paper_sweep_measured/runs.jsonl",
    "ragged look": "data/h100/2026-12-07_torch_ragged_look_measured/bwd/runs.jsonl",
    "set 37": "data/h100/2026-12-07_torch_heldout37_measured/runs.jsonl",
    "set 38": "data/h100/2026-12-07_torch_heldout38_measured/runs.jsonl",
    "set 39": "data/h100/2026-12-07_torch_heldout39_measured/runs.jsonl",
}


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def both(r: dict) -> tuple[float, float]:
    """One measured run's forward (s) by counts, and by counts with the per-CTA issue."""
    import gpusim
    from gpusim.engine.cta_issue import cta_issue

    w = workload(r, "fwd")
    s = torch_flash_schedule(w)
    args = {"sass": TS.SASS, "res_usage": TS.RES_USAGE, "binary_timing": "counts",
            "kernel": TS.torch_kernel(w.model_copy(update={"dtype": "bf16"}), s)}  # fmt: skip
    with cta_issue(False):
        off = gpusim.simulate("flash2", w, s, "h100-sxm5", **args).runtime_s
    with cta_issue(True):
        on = gpusim.simulate("flash2", w, s, "h100-sxm5", **args).runtime_s
    return off, on


def rows() -> list[tuple[str, str, float, float]]:
    """(set, run, counts' error, with the per-CTA issue) of each d64/d128 forward."""
    out = []
    for name, path in SETS.items():
        for rid, r in last_records(Path(path)).items():
            if r.get("status", "ok") != "ok" or "fwd" not in r or r["head_dim"] not in (64, 128):
                continue
            off, on = both(r)
            t = r["fwd"]["median_s"]
            out.append((name, rid, off / t - 1, on / t - 1))
    return out


def report(rs: list[tuple[str, str, float, float]]) -> str:
    lines = ["| seen set (H100) | runs | counts: MAPE (mean) | + per-CTA issue: MAPE (mean) |"]
    lines.append("|---|---|---|---|")
    for name in dict.fromkeys(x[0] for x in rs):
        sub = [x for x in rs if x[0] == name]
        cols = []
        for i in (2, 3):
            errs = [x[i] for x in sub]
            mape, mean = sum(map(abs, errs)) / len(errs), sum(errs) / len(errs)
            cols.append(f"{100 * mape:.1f} % ({100 * mean:+.1f} %)")
        lines.append(f"| {name} | {len(sub)} | {cols[0]} | {cols[1]} |")
    lines += ["", "| causal run | counts | + per-CTA issue |", "|---|---|---|"]
    lines += [f"| {x[0]}: {x[1]} | {100 * x[2]:+.1f} % | {100 * x[3]:+.1f} % |"
              for x in rs if x[1].endswith("_c1")]  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    print(report(rows()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
