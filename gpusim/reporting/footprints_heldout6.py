"""Held-out set 6: does a simulation predict the project's kernel better with ptxas's registers
than with the estimate's, on tiles where the two give different occupancies?

    python -m gpusim.reporting.footprints_heldout6 --write PATH      # the manifest (JSON)
    python -m gpusim.reporting.footprints_heldout6 --list
    python -m gpusim.reporting.footprints_heldout6 predict --out PRED.json
    python -m gpusim.reporting.footprints_heldout6 compare --predictions PRED.json --measured DIR

``gpusim simulate`` took its registers per thread (and so the CTAs per SM) from the
algorithm's estimate until this set was fixed; since then from ptxas's report for the
schedule's CUDA instance where the offline build recorded it (``footprints="compiled"``, as
``gpusim tune`` always has; :mod:`gpusim.kernel_catalog.compiled_chips`). The change was
made after long-context held-out set 5 showed the d64 128x64 w4 instance running two CTAs per
SM where the estimate let the model run three; this set judges it on new runs. Its runs use
ten tiles whose compiled occupancy differs from the estimated one (d32, d64 and d128; 4 -> 3,
3 -> 2 and 2 -> 1 CTAs per SM) and one control tile where both agree, at 8k-16k tokens, bf16,
causal and not; every run timed (CUDA events, L2 flushed, median), none counted by ncu.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import simulate
from gpusim.reporting.pack_gqa import error_stats, measured_s
from gpusim.schedule import Schedule
from gpusim.source_commit import git_commit
from gpusim.validation.long_context_configs import LongContextConfig, set_command
from gpusim.workload import Workload

PROFILE = "h200-sxm"
#: (batch, heads, tokens, head dim, causal, (block m, block n, warps, stages))
RUNS = (
    (2, 16, 16384, 64, False, (128, 64, 4, 2)),
    (2, 16, 16384, 64, True, (128, 64, 4, 2)),
    (4, 16, 8192, 64, False, (128, 64, 4, 3)),
    (4, 16, 8192, 64, True, (64, 64, 4, 2)),
    (2, 16, 16384, 64, False, (64, 128, 4, 2)),
    (4, 16, 8192, 128, False, (64, 64, 4, 1)),
    (2, 16, 16384, 128, True, (64, 32, 4, 2)),
    (4, 16, 8192, 128, False, (128, 32, 8, 2)),
    (4, 16, 8192, 64, False, (128, 64, 8, 2)),
    (4, 32, 8192, 32, False, (64, 128, 4, 2)),
    (4, 32, 8192, 32, True, (128, 128, 8, 2)),
    (4, 16, 8192, 128, False, (128, 64, 4, 2)),  # control: both give 2 CTAs per SM
)
RULE = (
    "judged: gpusim simulate on h200-sxm with footprints='compiled' (ptxas's registers for the "
    "schedule's recorded CUDA instance; the new default) against footprints='estimate' (the "
    "algorithm's register formula; the default before), both predicted before the run and "
    "committed; reported: MAPE, mean signed error and the worst run of each, and the control "
    "run (both equal by construction). compiled stays the default if its MAPE over the ten "
    "runs whose occupancies differ is not higher than the estimate's; nothing is tuned on it"
)


def heldout6_configs() -> list[LongContextConfig]:
    """The set in run order."""
    out = []
    for b, h, n, d, causal, (bm, bn, wp, st) in RUNS:
        w = Workload(batch=b, heads=h, seq_len_q=n, seq_len_k=n, head_dim=d, dtype="bf16",
                     causal=causal)  # fmt: skip
        s = Schedule(block_m=bm, block_n=bn, warps=wp, stages=st)
        out.append(LongContextConfig("project", "prefill", w, s))
    return out


def predict(configs: list[LongContextConfig]) -> dict[str, Any]:
    """Both predictions of every run (runtime, CTAs per SM, where the registers came from)."""
    out: dict[str, Any] = {}
    for c in configs:
        row = {}
        for fp in ("compiled", "estimate"):
            r = simulate("flash2", c.workload, c.schedule, PROFILE, footprints=fp)
            row[fp] = {"runtime_s": r.runtime_s, "ctas_per_sm": r.ctas_per_sm,
                       "registers_from": r.registers_from}  # fmt: skip
        out[c.config_id] = row
    return {"kind": "gpusim.footprints_heldout6_predictions", "profile": PROFILE,
            "model_commit": git_commit(), "by_config": out}  # fmt: skip


def compare(predictions: dict[str, Any], measured: dict[str, float]) -> dict[str, Any]:
    """Errors of both predictions, on the runs whose occupancies differ and on the control."""
    rows, errs = [], {"compiled": [], "estimate": []}
    for cid, p in predictions["by_config"].items():
        if cid not in measured:
            continue
        e = {fp: p[fp]["runtime_s"] / measured[cid] - 1 for fp in errs}
        differ = p["compiled"]["ctas_per_sm"] != p["estimate"]["ctas_per_sm"]
        rows.append({"id": cid, "measured_s": measured[cid], "differ": differ, **{
            f"err_{fp}": e[fp] for fp in errs}, **{
            f"ctas_{fp}": p[fp]["ctas_per_sm"] for fp in errs}})  # fmt: skip
        if differ:
            for fp in errs:
                errs[fp].append(e[fp])
    return {"rows": rows, "differ": {fp: error_stats(v) for fp, v in errs.items() if v}}


def text(doc: dict[str, Any]) -> str:
    """The comparison as a table."""
    lines = [f"{'run':72} {'ms':>8} {'CTAs c/e':>8} {'compiled':>9} {'estimate':>9}"]
    for r in doc["rows"]:
        lines.append(
            f"{r['id']:72} {1e3 * r['measured_s']:8.3f} {r['ctas_compiled']:>4}/"
            f"{r['ctas_estimate']:<3} {100 * r['err_compiled']:+8.1f}% "
            f"{100 * r['err_estimate']:+8.1f}%"
        )
    for fp, s in doc["differ"].items():
        lines.append(
            f"{fp:9} n {s['n']} MAPE {100 * s['mape']:.1f} % mean {100 * s['mean_signed']:+.1f} % "
            f"worst {100 * s['worst']:+.1f} %"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] not in (["predict"], ["compare"]):
        what = (
            "held-out set 6 (issue 19): simulate's registers from ptxas against the estimate "
            "(python -m gpusim.reporting.footprints_heldout6 --write)"
        )
        doc = __doc__.splitlines()[0]
        return set_command("footprints_heldout6", doc, heldout6_configs(), what, RULE, argv)
    ap = argparse.ArgumentParser(prog="footprints_heldout6")
    ap.add_argument("cmd", choices=("predict", "compare"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--predictions", type=Path)
    ap.add_argument("--measured", type=Path)
    a = ap.parse_args(argv)
    if a.cmd == "predict":
        if a.out is None:
            ap.error("predict needs --out")
        atomic.write_text(a.out, json.dumps(predict(heldout6_configs()), indent=1))
        return 0
    if a.predictions is None or a.measured is None:
        ap.error("compare needs --predictions and --measured")
    doc = compare(json.loads(a.predictions.read_text()), measured_s(a.measured))
    if a.out is not None:
        atomic.write_text(a.out, json.dumps(doc, indent=1))
    print(text(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
