"""A look on seen sets: would charging a kernel's code once per CTA, at the instruction
cache's measured cost, explain PyTorch's short causal grids? (judges nothing)

    python -m gpusim.reporting.torch_icache_look [--max-steps 16]

The short runs of ``torch_short_causal_look`` (the H100's PyTorch sets 36-43, CTAs of fewer
than ``--max-steps`` K/V blocks), each by the default model, then with one charge added once
per CTA: its kernel's code (``data/h100/2026-12-07_torch_code_sizes``, the instance the run
launches) run as straight code at the cost ``python -m gpusim.calibrate.icache`` measured for
code of that length (``data/h100/2026-12-07_icache_rotated``, an H100): ``L s / (1 - s)``
warp-instructions a warp, ``L`` the kernel's instructions and ``s`` the share of issue
slots the straight code loses against a cached loop at that length, on the issue lane as
the schedule's ``cta_issue_per_warp``. Two curves: the CTAs of an SM running the code in
step (``straight``) or each at its own place (``rotated``, as a causal grid's CTAs are).
"""

from __future__ import annotations

import argparse
import json
import statistics as st

from gpusim.reporting.torch_short_causal_look import short_runs
from gpusim.validation.torch_kernel_code import ICACHE, charge_per_warp, lost_share_curve


def rows(max_steps: float) -> list[dict]:
    import gpusim
    from gpusim.validation.torch_kernel_code import kernel_code_bytes

    record = json.loads(ICACHE.read_text())
    curves = {v: lost_share_curve(record, v) for v in ("straight", "rotated")}
    out = []
    for _, rid, w, s, _, t in short_runs(max_steps):
        code = kernel_code_bytes(w, s)
        row = {"id": rid, "causal": w.causal, "code_kib": code / 1024,
               "even": w.seq_len_q % s.block_m == 0 and w.seq_len_k % s.block_n == 0,
               "default": gpusim.simulate("flash2", w, s, "h100-sxm5").runtime_s / t - 1}
        for v, curve in curves.items():
            charged = s.model_copy(update={"cta_issue_per_warp": charge_per_warp(code, curve)})
            row[v] = gpusim.simulate("flash2", w, charged, "h100-sxm5").runtime_s / t - 1
        out.append(row)  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-steps", type=float, default=16.0)
    args = ap.parse_args(argv)
    rs = sorted(rows(args.max_steps), key=lambda r: (not r["causal"], r["even"], r["code_kib"]))
    print("| run | causal | even | code KiB | default | + straight | + rotated |")
    print("|---|---|---|---|---|---|---|")
    for r in rs:
        errs = " | ".join(f"{100 * r[k]:+.1f} %" for k in ("default", "straight", "rotated"))
        head = f"| {r['id']} | {int(r['causal'])} | {int(r['even'])} | {r['code_kib']:.0f}"
        print(f"{head} | {errs} |")
    print()
    for causal in (True, False):
        for even in (True, False):
            grp = [r for r in rs if r["causal"] == causal and r["even"] == even]
            if grp:
                parts = [f"{k} mean {100 * st.mean(r[k] for r in grp):+.1f} % MAPE "
                         f"{100 * st.mean(abs(r[k]) for r in grp):.1f} %"
                         for k in ("default", "straight", "rotated")]  # fmt: skip
                head = f"causal {int(causal)} even {int(even)} ({len(grp)} runs): "
                print(head + "; ".join(parts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
