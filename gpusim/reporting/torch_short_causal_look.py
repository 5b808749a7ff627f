"""A look on seen sets: PyTorch's forward on short grids, causal or not, lengths a multiple of
its tiles or not (judges nothing).

    python -m gpusim.reporting.torch_short_causal_look [--max-steps 16] [--binary]

Every measured run of the H100's PyTorch sets 36-43 (``data/h100/2026-12-07_torch_heldout<N>
_measured``) whose CTAs walk fewer than ``--max-steps`` K/V blocks on average: its forward by
the default model (``h100-sxm5``, PyTorch's tile traits), the steps a CTA walks, and whether
the length is a multiple of both tile sides (FlashAttention-2's ``Is_even_MN``: an uneven
causal kernel runs one masking step more). ``--binary`` adds, for the d64 and d128 runs (the
committed dump's bf16 instances), the binary's own counts (``--binary-timing counts``) and the
SM core model's replay (``h100-sxm5-core``), to tell instructions from anything else.
"""

from __future__ import annotations

import argparse
import statistics as st

from gpusim.data.layout import REPO_ROOT
from gpusim.reporting.backward_compare import last_records

SETS = tuple(range(36, 44))


def steps_per_cta(w, s) -> float:
    """K/V blocks a CTA walks on average (FlashAttention-2's forward bounds, ``n_block_max =
    ceil(min(Nk, (m + 1) Br + Nk - Nq) / Bc)``, are the tiling's visible blocks)."""
    from algorithms.tiling import visits_per_q_block

    walk = visits_per_q_block(w, s.block_m, s.block_n)
    return sum(walk) / len(walk)


def short_runs(max_steps: float):
    """``(set, run id, workload, PyTorch's schedule, steps a CTA, measured forward seconds)``
    of every measured forward of :data:`SETS` whose CTAs walk fewer than ``max_steps``."""
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    for n in SETS:
        path = REPO_ROOT / f"data/h100/2026-12-07_torch_heldout{n}_measured/runs.jsonl"
        for rid, r in last_records(path).items():
            if r.get("status", "ok") != "ok" or "fwd" not in r:
                continue
            w = workload(r, "fwd")
            s = torch_flash_schedule(w)
            steps = steps_per_cta(w, s)
            if steps < max_steps:
                yield n, rid, w, s, steps, r["fwd"]["median_s"]


def rows(max_steps: float, binary: bool) -> list[dict]:
    import gpusim

    out = []
    for n, rid, w, s, steps, t in short_runs(max_steps):
        even = w.seq_len_q % s.block_m == 0 and w.seq_len_k % s.block_n == 0
        err = gpusim.simulate("flash2", w, s, "h100-sxm5").runtime_s / t - 1
        row = {"set": n, "id": rid, "causal": w.causal, "even": even, "steps": steps,
               "err": err}  # fmt: skip
        if binary and w.head_dim in (64, 128):
            from gpusim.reporting.torch_sass import replay_args

            kw = replay_args(w.model_copy(update={"dtype": "bf16"}), s)
            plain = s.model_copy(update={"instruction_counts": None})
            counts = gpusim.simulate("flash2", w, plain, "h100-sxm5", **kw,
                                     binary_timing="counts")  # fmt: skip
            replay = gpusim.simulate("flash2", w, plain, "h100-sxm5-core", **kw)
            row["counts"] = counts.runtime_s / t - 1
            row["replay"] = replay.runtime_s / t - 1
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-steps", type=float, default=16.0)
    ap.add_argument("--binary", action="store_true", help="the binary's counts and replay too")
    args = ap.parse_args(argv)
    rs = sorted(rows(args.max_steps, args.binary), key=lambda r: (not r["causal"], r["steps"]))
    print("| set | run | causal | even | steps a CTA | default | counts | replay |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rs:
        extra = [f"{100 * r[k]:+.1f} %" if k in r else "" for k in ("counts", "replay")]
        head = f"| {r['set']} | {r['id']} | {int(r['causal'])} | {int(r['even'])} | "
        print(head + f"{r['steps']:.1f} | {100 * r['err']:+.1f} % | {extra[0]} | {extra[1]} |")
    print()
    for causal in (True, False):
        for even in (True, False):
            xs = [r["err"] for r in rs if r["causal"] == causal and r["even"] == even]
            if xs:
                mean, mape = 100 * st.mean(xs), 100 * st.mean(map(abs, xs))
                print(f"causal {int(causal)} even {int(even)}: {len(xs)} runs, "
                      f"mean {mean:+.1f} %, MAPE {mape:.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
