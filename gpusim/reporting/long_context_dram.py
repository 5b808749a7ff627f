"""DRAM bytes of long-context runs: the engine's tile L2 and the K/V trace L2 against
Nsight Compute, beside two baselines; and the engine's runtime against CUDA events.

    python -m gpusim.reporting.long_context_dram predict --manifest M --out PRED.json
    python -m gpusim.reporting.long_context_dram compare --manifest M --predictions PRED.json \
        --measured DIR [--out DOC.json]

``predict`` simulates each configuration that Nsight Compute counts (``ncu``) with the
engine (:func:`gpusim.api.simulate`: runtime, its tile L2's DRAM bytes, the occupancy),
then traces its K/V reads at that occupancy through the reuse-distance LRU
(:mod:`gpusim.engine.kv_trace_l2`), once with all bytes alike (``kv_trace``, the model judged
on held-out set 2) and once with K/V bytes aging the L2 as the H200's measured shared
traffic does (``kv_trace_shared``, :data:`SHARED_AGING_RUN` read by
:mod:`gpusim.calibrate.l2_shared_aging`), and once more with that aging, CTAs in lockstep
and the SM-mates sharing an SM by age (``kv_trace_mates``,
:func:`gpusim.engine.kv_trace_l2.kv_trace_of_record`: the profile's ``sm_mate_priority`` at
the run's tile step; both measured by kv_walk, no attention kernel in either).
Baselines: ``compulsory`` (Q, K, V, O once each;
K and V once per K/V head) and ``no_reuse`` (Q and O once, every K/V tile a CTA reads
from DRAM). ``compare`` prints per run measured and predicted bytes, and per method MAPE,
mean signed error and the worst runs, at every length and at 64k and 128k (the issue's
target), and the runtime MAPE.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import simulate
from gpusim.engine.kv_trace_l2 import kv_trace_for, kv_trace_of_record
from gpusim.engine.rates import rates_for
from gpusim.errors import GpusimError
from gpusim.profiles.loader import load_profile
from gpusim.source_commit import git_commit
from gpusim.validation.long_context_compare import DRAM_TARGET_TOKENS, rel_err, summarise
from gpusim.validation.long_context_configs import LongContextConfig, read_manifest

PROFILE = "h200-sxm"
METHODS = ("kv_trace", "kv_trace_shared", "kv_trace_mates", "engine", "compulsory", "no_reuse")
#: the recorded ``calibrate.l2_bytes --hot`` run of the H200 (PROFILE's GPU) that gives the
#: shared-traffic aging: the microbenchmark's own records, no attention kernel in them
SHARED_AGING_RUN = "data/h200/2026-11-30_calibration_l2_survive/l2-survive-hot-h200.json"
ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def shared_aging_h200() -> float:
    """The profile's measured ``l2_shared_aging`` (1.28: :data:`SHARED_AGING_RUN` read by
    :mod:`gpusim.calibrate.l2_shared_aging`)."""
    return load_profile(PROFILE).l2_shared_aging.value


KIND = "gpusim.long_context_dram_predictions"


def predict_one(c: LongContextConfig, profile_name: str = PROFILE) -> dict[str, Any]:
    """The engine's runtime and DRAM bytes, the trace's DRAM bytes, and the baselines."""
    profile = load_profile(profile_name)
    w, s = c.workload, c.schedule
    r = simulate("flash2", w, s, profile)
    rates = rates_for(profile, w.dtype, s.warps)
    t = kv_trace_for(w, s, rates, r.ctas_per_sm)
    ts = kv_trace_for(w, s, rates, r.ctas_per_sm, shared_aging=rates.l2_shared_aging)
    tm = kv_trace_of_record(w, s, rates, r.ctas_per_sm, r.runtime_s)
    q_o = 2 * w.batch_heads * w.seq_len_q * w.head_dim * w.elem_bytes
    return {
        "runtime_s": r.runtime_s,
        "ctas_per_sm": r.ctas_per_sm,
        "registers_from": r.registers_from,
        "kv_trace": t.dram_read_bytes + t.dram_write_bytes,
        "kv_trace_shared": ts.dram_read_bytes + ts.dram_write_bytes,
        "kv_trace_mates": tm.result.dram_read_bytes + tm.result.dram_write_bytes,
        "mate_priority": tm.priority,
        "mate_step_outside_calibration": tm.step_outside_calibration,
        "engine": r.dram_read_bytes + r.dram_write_bytes,
        "compulsory": w.qkvo_bytes(),
        "no_reuse": q_o + t.kv_sm_read_bytes,
    }


def predict(
    configs: list[LongContextConfig], log=print, profile_name: str = PROFILE
) -> dict[str, Any]:
    """Every ncu-counted config on ``profile_name``, as one JSON-ready document."""
    out: dict[str, Any] = {}
    for n, c in enumerate([c for c in configs if c.ncu], 1):
        out[c.config_id] = predict_one(c, profile_name)
        log(f"[{n}] {c.config_id}: {out[c.config_id]['kv_trace'] / 1e9:.3f} GB")
    aging = load_profile(profile_name).l2_shared_aging
    aging_doc = {"value": aging.value, "source": aging.source} if aging is not None else None
    return {"kind": KIND, "model_commit": git_commit(), "profile": profile_name,
            "shared_aging": aging_doc, "by_config": out}  # fmt: skip


def compare(configs, predictions: dict, ncu: dict, sweep: dict) -> dict[str, Any]:
    """Per method: DRAM-byte errors at every length and at 64k/128k; runtime errors."""
    pred = predictions["by_config"]
    # predictions made before a method existed do not carry it: those methods are left out
    present = [k for k in METHODS if all(k in p for p in pred.values())]
    rows: dict[str, list] = {m: [] for m in present}
    runtime: list[dict] = []
    missing = []
    for c in configs:
        p, m = pred.get(c.config_id), (ncu.get(c.config_id) or {})
        if p is None or m.get("dram_read_bytes") is None:
            missing.append(c.config_id)
            continue
        meas = m["dram_read_bytes"] + (m.get("dram_write_bytes") or 0)
        for k in present:
            rows[k].append(
                {"id": c.config_id, "tokens": c.workload.seq_len_k, "kernel": c.kernel,
                 "measured": meas, "predicted": p[k], "err": rel_err(p[k], meas)}
            )  # fmt: skip
        rec = sweep.get(c.config_id)
        if rec and rec.get("status") == "ok":
            runtime.append(
                {"id": c.config_id, "kernel": c.kernel, "measured": rec["median_s"],
                 "predicted": p["runtime_s"], "err": rel_err(p["runtime_s"], rec["median_s"])}
            )  # fmt: skip
    doc: dict[str, Any] = {"missing": missing, "dram": {}, "rows": rows["kv_trace"]}
    for r, rs in zip(doc["rows"], rows.get("kv_trace_shared", []), strict=False):
        r["predicted_shared"], r["err_shared"] = rs["predicted"], rs["err"]
    for r, rm in zip(doc["rows"], rows.get("kv_trace_mates", []), strict=False):
        r["predicted_mates"], r["err_mates"] = rm["predicted"], rm["err"]
    for k, rs in rows.items():
        doc["dram"][k] = {
            "all": summarise(rs),
            "at_64k_128k": summarise([r for r in rs if r["tokens"] in DRAM_TARGET_TOKENS]),
            "project": summarise([r for r in rs if r["kernel"] == "project"]),
            "by_tokens": {n: summarise([r for r in rs if r["tokens"] == n])
                          for n in sorted({r["tokens"] for r in rs})},
        }  # fmt: skip
    doc["runtime"] = {
        kern: summarise([r for r in runtime if r["kernel"] == kern])
        for kern in ("project", "torch")
    }
    return doc


def _pct(x) -> str:
    return "    -" if x is None else f"{100 * x:+6.1f}"


def text(doc: dict) -> str:
    """Per-run rows and the summary table."""
    lines = [f"{'run':78} {'ncu GB':>8} {'pred GB':>8} {'err%':>7} {'shared GB':>9} {'err%':>7}"
             f" {'mates GB':>9} {'err%':>7}"]  # fmt: skip
    for r in doc["rows"]:
        shared = ""
        if "err_shared" in r:
            shared = f" {r['predicted_shared'] / 1e9:9.3f} {_pct(r['err_shared'])}"
        if "err_mates" in r:
            shared += f" {r['predicted_mates'] / 1e9:9.3f} {_pct(r['err_mates'])}"
        lines.append(
            f"{r['id']:78} {r['measured'] / 1e9:8.3f} {r['predicted'] / 1e9:8.3f} {_pct(r['err'])}"
            + shared
        )
    lines.append(f"{'method':12} {'set':12} {'n':>3} {'MAPE%':>7} {'mean%':>7} worst")
    for k, d in doc["dram"].items():
        for part in ("all", "at_64k_128k", "project"):
            s = d[part]
            if not s["n"]:
                continue
            w = s["worst"][0]
            lines.append(f"{k:12} {part:12} {s['n']:3d} {_pct(s['mape'])} {_pct(s['mean_signed'])}"
                         f" {_pct(w['err'])} {w['id']}")  # fmt: skip
    for kern, s in doc["runtime"].items():
        if s["n"]:
            worst = _pct(s["worst"][0]["err"])
            lines.append(f"runtime {kern:8} n {s['n']} MAPE {_pct(s['mape'])} mean "
                         f"{_pct(s['mean_signed'])} worst {worst}")  # fmt: skip
    return "\n".join(lines)


def read_measured(folder: Path) -> tuple[dict, dict]:
    """(Nsight Compute's counts by config, the timed records by id) of a measured set."""
    ncu = json.loads((folder / "ncu.json").read_text())["by_config"]
    sweep = {}
    path = folder / "sweep.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                sweep[rec["id"]] = rec
    return ncu, sweep


def main(argv: list[str] | None = None) -> int:
    """``predict`` or ``compare`` (see the module's docstring)."""
    ap = argparse.ArgumentParser(prog="long_context_dram", description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=("predict", "compare"))
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--predictions", type=Path, default=None)
    ap.add_argument("--measured", type=Path, default=None)
    ap.add_argument("--profile", default=PROFILE, help="the profile predict runs on")
    args = ap.parse_args(argv)
    try:
        configs = read_manifest(args.manifest)
        if args.cmd == "predict":
            doc = predict(configs, profile_name=args.profile)
        else:
            if args.measured is None:
                raise GpusimError("compare needs --measured DIR")
            preds = (
                json.loads(args.predictions.read_text())
                if args.predictions
                else predict(configs, log=lambda _m: None)
            )
            doc = compare(configs, preds, *read_measured(args.measured))
            print(text(doc))
    except (GpusimError, OSError, ValueError) as exc:
        print(f"gpusim: error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
