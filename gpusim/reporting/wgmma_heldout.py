"""Issue 20's held-out set for the Hopper kernel: fixed, predicted, then measured.

    python -m gpusim.reporting.wgmma_heldout [--set NAME] manifest
    python -m gpusim.reporting.wgmma_heldout [--set NAME] predict [--variant V]
    python -m gpusim.reporting.wgmma_heldout [--set NAME] measure --out DIR [--cubin-dir DIR]  (GPU)
    python -m gpusim.reporting.wgmma_heldout [--set NAME] compare [--measured DIR/heldout.json]

The sets and their files are in :mod:`gpusim.reporting.wgmma_sets` (``heldout``, the default,
and ``heldout2``, which judges the burst clock against the sustained one).

The workloads are none of the FlashAttention-2 paper sweep's (other lengths, batch x heads,
fp16 at d64 and d256); every compiled ``flash3_wgmma`` instance of the workload's (dtype, d)
runs on each. Ping-pong instances are measured but not judged: the engine's kernel
description has no field for two consumer warpgroups taking turns, so it cannot describe
them (said in the manifest, before measuring). ``predict`` goes through the public API.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.kernel_catalog.wgmma_instances import WgmmaInstance, all_instances
from gpusim.profiles.derive import H100_DATASHEET_DRAM_BYTES_PER_S, H200_DATASHEET_DRAM_BYTES_PER_S
from gpusim.reporting.wgmma_set_kind import (
    FIXED_RULE,
    PINGPONG_RECORD,
    PROFILE,
    HeldoutSet,
    instances_for,
    make_workload,
    manifest,
    record_fields,
    workload_id,
)
from gpusim.reporting.wgmma_sets import SETS

#: Datasheet roofline of the H200 (dense 16-bit tensor rate, HBM3e bandwidth); the H100 SXM's
#: datasheet has the same tensor rate and its own HBM3 bandwidth.
ROOF_FLOPS, ROOF_BYTES_PER_S = 989.4e12, H200_DATASHEET_DRAM_BYTES_PER_S
ROOF_BYTES_BY_PROFILE = dict.fromkeys(("h100-sxm5", "h100-sxm5-measured"),
                                      H100_DATASHEET_DRAM_BYTES_PER_S)  # fmt: skip
SET1 = SETS["heldout"]


def _schedule(inst: WgmmaInstance, **fields: str):
    from gpusim.schedule import Schedule

    return Schedule(
        **fields,
        block_m=inst.block_m,
        block_n=inst.block_n,
        warps=4 * inst.consumer_wgs,
        stages=inst.stages,
        mma="wgmma",
        tile_copy="tma",
        producer_warps=inst.producer_warps,
    )


def variant_profile(s: HeldoutSet, variant: str) -> Any:
    """The profile a variant predicts with: :data:`PROFILE` less the fields it drops."""
    from gpusim.profiles.loader import load_profile

    if variant not in s.variants:
        raise ValueError(f"set {s.name} has no variant {variant!r}: {sorted(s.variants)}")
    hw = load_profile(s.profile_of(variant))
    hw = hw.model_copy(update=dict.fromkeys(s.variants[variant])) if s.variants[variant] else hw
    if variant in s.variant_pingpong:
        from gpusim.calibrate.wgmma_pingpong import with_fields
        from gpusim.data.layout import REPO_ROOT

        doc = json.loads((REPO_ROOT / PINGPONG_RECORD / "wgmma-step-h200.json").read_text())
        hw = with_fields(hw, doc, PINGPONG_RECORD, s.variant_pingpong[variant])
    if variant in s.variant_records:
        hw = record_fields(hw, *s.variant_records[variant][1:])
    return hw


def predict(
    s: HeldoutSet = SET1, variant: str = "model", only: Callable[[str], bool] | None = None
) -> dict[str, Any]:
    """The model's runtime for every judged configuration of the set's manifest (those whose
    ``workload:instance`` key ``only`` accepts, where given); a switch variant runs with
    its engine candidate on."""
    from gpusim.engine.wgmma_rates import lone_stream_masks

    hw = variant_profile(s, variant)
    keyed = {i.key: i for i in all_instances()}
    switch = s.variant_switches.get(variant, (None, None))[1]
    if switch == "lone_stream_masks":
        with lone_stream_masks():
            out = simulate_set(s, variant, hw, only)
    else:  # the caller's setting stands (the ranking look switches it around the whole set)
        out = simulate_set(s, variant, hw, only)
    assert all(k.split(":")[1] in keyed for k in out)
    doc: dict[str, Any] = {"profile": s.profile_of(variant), "predictions": out}
    if switch:
        doc |= {"set": s.name, "variant": variant, "engine_switch": switch}
    elif variant in s.variant_records:
        _, record, rows, fields = s.variant_records[variant]
        doc |= {"set": s.name, "variant": variant, "adds_profile_fields": list(fields),
                "from": f"{record}, {rows} rows"}  # fmt: skip
    elif variant != "model" and variant not in s.variant_profiles:
        doc |= {
            "set": s.name,
            "variant": variant,
            "drops_profile_fields": list(s.variants[variant]),
        }
        if variant in s.variant_pingpong:
            doc["adds_profile_fields_from"] = f"{PINGPONG_RECORD}, {s.variant_pingpong[variant]}"
    return doc


def simulate_set(s: HeldoutSet, variant: str, hw: Any, only) -> dict[str, Any]:
    from gpusim.api import simulate

    out = {}
    for w in s.workloads:
        wl = make_workload(w)
        for inst in instances_for(w[0], w[1]):
            if inst.pingpong or (only is not None and not only(f"{workload_id(w)}:{inst.key}")):
                continue
            r = simulate("flash2", wl, _schedule(inst, **s.variant_schedules.get(variant, {})), hw)
            out[f"{workload_id(w)}:{inst.key}"] = {
                "runtime_s": r.runtime_s,
                "bound": r.bound,
                "dram_bytes": r.dram_read_bytes + r.dram_write_bytes,
            }
    return out


def measure(
    s: HeldoutSet, out_dir: Path, cubin_dir: str | None, repeats: int = 20, warmup: int = 3
) -> Path:
    """Time every configuration (CUDA events, L2 flushed, median), outputs poisoned and
    checked against a float64 reference on two heads; rows saved as they come."""
    import cupy as cp

    from gpusim.kernels.measurement_provenance import provenance
    from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES, from_bf16_bits, time_launches
    from gpusim.kernels.wgmma_bench import inputs
    from gpusim.kernels.wgmma_runner import WgmmaRunner

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "heldout.json"
    # CuPy passes the tensor maps by value (the path the paper-sweep run used and checked)
    runner = WgmmaRunner(cubin_dir, by_value=True)
    flush = cp.empty(L2_FLUSH_BYTES, dtype=cp.uint8)
    doc: dict[str, Any] = {
        "provenance": provenance(cp),
        "method": {
            "timer": "CUDA events around one launch",
            "l2_flush_bytes": L2_FLUSH_BYTES,
            "repeats": repeats,
            "warmup": warmup,
            "statistic": "median",
            "check": "output poisoned with NaN; max |err| against float64 on heads 0-1",
        },
        "set": s.name,
        "manifest_sha256": manifest(s)["configs_sha256"],
        "rows": [],
    }
    for w in s.workloads:
        wl = make_workload(w)
        dtype, d, causal, b, h, n = w
        (q, k, v), vals = inputs(cp, (b, h, n, d), (b, h, n, d), dtype, n + d + b)
        ref = _reference(cp, vals, causal)
        out = cp.empty_like(q)
        for inst in instances_for(dtype, d):
            row: dict[str, Any] = {"workload": workload_id(w), "instance": inst.key}
            try:
                out.view(cp.uint16).fill(0x7FC0 if dtype == "bf16" else 0x7E00)  # NaN
                launch = runner.prepare(inst, q, k, v, out, causal)
                launch()
                cp.cuda.Device().synchronize()
                got = from_bf16_bits(cp, out) if dtype == "bf16" else out.astype(cp.float32)
                row["nan_count"] = int(cp.isnan(got).sum())
                row["max_abs_err"] = float(cp.abs(got[0, :2].astype(cp.float64) - ref).max())
                times = time_launches(cp, launch, repeats, warmup, flush)
                row |= {"median_s": statistics.median(times), "times_s": times}
                row["tflops"] = wl.model_flops() / row["median_s"] / 1e12
            except Exception as exc:  # one failing instance must not lose the others
                row["error"] = str(exc)[:300]
            doc["rows"].append(row)
            atomic.write_text(path, json.dumps(doc, indent=1))
            print(json.dumps({k: v for k, v in row.items() if k != "times_s"}), flush=True)
        del q, k, v, out
    return path


def _reference(cp: Any, vals: list, causal: bool) -> Any:
    q, k, v = (x[0, :2].astype(cp.float64) for x in vals)
    s = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = cp.where(cp.tril(cp.ones((n, n), dtype=bool)), s, -cp.inf)
    p = cp.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def _spearman(a: list[float], b: list[float]) -> float:
    def ranks(x: list[float]) -> list[float]:
        order = sorted(range(len(x)), key=lambda i: x[i])
        r = [0.0] * len(x)
        for pos, i in enumerate(order):
            r[i] = float(pos)
        return r

    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    den = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return num / den if den else float("nan")


def compare(
    measured: dict[str, Any], predictions: dict[str, Any], s: HeldoutSet = SET1
) -> dict[str, Any]:
    """Errors of the model and of the baselines on the judged runs; the tuner's ranking."""
    pred = predictions["predictions"]
    rows = [r for r in measured["rows"] if "median_s" in r and r["nan_count"] == 0]
    judged = [r for r in rows if not r["instance"].endswith("_pp")]
    wl = {workload_id(w): make_workload(w) for w in s.workloads}
    ref = _reference_efficiency(measured, judged)
    runs = []
    for r in judged:
        key = f"{r['workload']}:{r['instance']}"
        w = wl[r["workload"]]
        t = r["median_s"]
        flops = w.model_flops()
        nbytes = pred[key]["dram_bytes"]
        roof_bytes = ROOF_BYTES_BY_PROFILE.get(predictions.get("profile"), ROOF_BYTES_PER_S)
        roof = max(flops / ROOF_FLOPS, nbytes / roof_bytes)
        const = flops / (ref[r["instance"]] * ROOF_FLOPS)
        runs.append(
            {
                "id": key,
                "measured_s": t,
                "model_s": pred[key]["runtime_s"],
                "roofline_s": roof,
                "constant_efficiency_s": const,
            }
        )
    table = {m: _errors(runs, m) for m in ("model_s", "roofline_s", "constant_efficiency_s")}
    tune = []
    for wid in wl:
        mine = [x for x in runs if x["id"].startswith(wid + ":")]
        if len(mine) < 2:
            continue
        meas = [x["measured_s"] for x in mine]
        best = min(meas)
        pick = min(mine, key=lambda x: x["model_s"])
        d = wl[wid].head_dim
        m, n, s, c = FIXED_RULE[d]
        rule_key = f"wgmma_{wl[wid].dtype}_d{d}_m{m}_n{n}_s{s}_c{c}"
        rule = next((x for x in mine if x["id"].endswith(":" + rule_key)), None)
        tune.append(
            {
                "workload": wid,
                "instances": len(mine),
                "spearman": _spearman([x["model_s"] for x in mine], meas),
                "first_choice": pick["id"].split(":")[1],
                "first_choice_over_best": pick["measured_s"] / best - 1,
                "fixed_rule_over_best": (rule["measured_s"] / best - 1) if rule else None,
            }
        )
    pp = [r for r in rows if r["instance"].endswith("_pp")]
    return {
        "runs": len(runs),
        "errors": table,
        "worst_model_runs": sorted(runs, key=lambda x: -abs(x["model_s"] / x["measured_s"] - 1))[
            :5
        ],
        "tune": tune,
        "pingpong_measured_not_judged": len(pp),
        "max_abs_err": max((r["max_abs_err"] for r in rows), default=None),
        "constant_efficiency_reference": "each instance's achieved fraction of 989.4 TFLOP/s "
        "at the paper sweep's non-causal N=4096 point of its (dtype, d) (bf16's geometry "
        "where fp16 was not swept there)",
    }


def seen(profile: Any = PROFILE, o_store: str | None = None) -> dict[str, Any]:
    """The model on the paper sweep's runs (measured before any wgmma set was fixed, so a
    look at seen data, not a judgement): errors overall and by (d, causal, N >= 4096);
    ``o_store`` (``staged``: the model before set 3) in every schedule where given."""
    from gpusim.api import simulate
    from gpusim.data.layout import REPO_ROOT
    from gpusim.kernels.paper_bench import paper_workload

    bench = json.loads((REPO_ROOT / "data/h200/2026-12-03_wgmma_bench/bench.json").read_text())
    keyed = {i.key: i for i in all_instances()}
    errs: list[float] = []
    groups: dict[str, list[float]] = {}
    for r in bench["per_instance"]:
        if "median_s" not in r or keyed[r["instance"]].pingpong:
            continue
        w = paper_workload(r["seq_len"], r["head_dim"], r["causal"], r["dtype"])
        fields = {"o_store": o_store} if o_store else {}
        e = simulate("flash2", w, _schedule(keyed[r["instance"]], **fields), profile).runtime_s
        e = e / r["median_s"] - 1
        errs.append(e)
        long = ">=" if r["seq_len"] >= 4096 else "<"
        g = f"d{r['head_dim']} {'causal' if r['causal'] else 'full'} N{long}4096"
        groups.setdefault(g, []).append(e)
    return {
        "runs": len(errs),
        "mape": statistics.fmean(abs(e) for e in errs),
        "mean_signed": statistics.fmean(errs),
        "by_group_mean_signed": {g: statistics.fmean(v) for g, v in sorted(groups.items())},
    }


def _reference_efficiency(measured: dict[str, Any], judged: list[dict]) -> dict[str, float]:
    from gpusim.data.layout import REPO_ROOT

    bench = json.loads((REPO_ROOT / "data/h200/2026-12-03_wgmma_bench/bench.json").read_text())
    eff = {}
    for r in bench["per_instance"]:
        if r.get("causal") is False and r.get("seq_len") == 4096 and "median_s" in r:
            eff[r["instance"]] = r["tflops"] * 1e12 / ROOF_FLOPS
    out = {}
    for r in judged:
        key = r["instance"]
        out[key] = eff.get(key) or eff[key.replace("fp16", "bf16")]
    return out


def _errors(runs: list[dict], key: str) -> dict[str, float]:
    e = [x[key] / x["measured_s"] - 1 for x in runs]
    return {
        "mape": statistics.fmean(abs(v) for v in e),
        "mean_signed": statistics.fmean(e),
        "worst": max(e, key=abs),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.wgmma_heldout")
    ap.add_argument("--set", choices=sorted(SETS), default=SET1.name)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("manifest").add_argument("--write", type=Path, default=None)
    p = sub.add_parser("predict")
    p.add_argument("--variant", default=None, help="every variant of the set when left out")
    m = sub.add_parser("measure")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--cubin-dir", default=None)
    m.add_argument("--repeats", type=int, default=20, help="timed launches a configuration")
    m.add_argument("--warmup", type=int, default=3, help="untimed launches before them")
    sub.add_parser("seen").add_argument(
        "--o-store", choices=("staged", "fragments"), help="every schedule's o_store"
    )
    c = sub.add_parser("compare")
    c.add_argument("--measured", type=Path, default=None)
    c.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    s = SETS[a.set]
    if a.cmd == "manifest":
        path = a.write or s.manifest_path
        path.parent.mkdir(parents=True, exist_ok=True)  # a new set's folder
        atomic.write_text(path, json.dumps(manifest(s), indent=1) + "\n")
    elif a.cmd == "predict":
        for v in [a.variant] if a.variant else list(s.variants):
            doc = predict(s, v)
            atomic.write_text(s.predictions_path(v), json.dumps(doc, indent=1) + "\n")
    elif a.cmd == "measure":
        if a.repeats < 1 or a.warmup < 0:
            ap.error("--repeats must be at least 1 and --warmup at least 0")
        measure(s, a.out, a.cubin_dir, a.repeats, a.warmup)
    elif a.cmd == "seen":
        sys.stdout.write(json.dumps(seen(o_store=a.o_store), indent=1) + "\n")
    else:
        measured = json.loads((a.measured or s.measured).read_text())
        res = {
            v: compare(measured, json.loads(s.predictions_path(v).read_text()), s)
            for v in s.variants
        }
        text = json.dumps(res if len(res) > 1 else res["model"], indent=1) + "\n"
        if a.out:
            atomic.write_text(a.out, text)
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
