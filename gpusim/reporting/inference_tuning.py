"""Held-out set 13's verdict: the tuner's ranking of each workload's measured candidates.

    python -m gpusim.reporting.inference_tuning \
        --manifest data/h200/2026-12-04_inference_tuning_heldout13/manifest_configs.json \
        --predictions reports/inference_tuning_heldout13/predictions.json \
        --measured data/h200/2026-12-04_inference_tuning_heldout13 [--out FILE.json]

Per workload and profile: Spearman's rank correlation between predicted and measured times
over the workload's candidates, the first choice (least predicted time) measured over the
measured best, and the fixed rule's pick (the paper rule's tile snapped onto the candidates'
tiles, one split: :func:`gpusim.tuning.rule_snap.rule_picks`) measured over the best; the
runtime MAPE and mean signed error over every run (the roofline and constant-efficiency
baselines on the same runs: ``python -m gpusim.reporting.long_context compare``). What the
set's rule (:data:`gpusim.validation.inference_tuning_heldout13.RULE`) asks of them is
computed in :func:`verdict`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.tuning.proof import spearman

#: issue 19's tuner target: first choice within this of the best, in every workload ...
FIRST_CHOICE_WITHIN = 0.03
#: ... and Spearman at least this in every workload; the set qualifies if the fixed rule
#: loses at least this somewhere.
SPEARMAN_AT_LEAST, RULE_LOSES_AT_LEAST = 0.85, 0.05


def workload_key(config) -> str:
    """The workload part of a config id (everything before the schedule)."""
    return config.config_id.split("_m")[0] + (
        f"_d{config.workload.head_dim}" if config.workload.head_dim != 128 else ""
    )


def rankings(configs, measured: dict, predictions: dict, profile: str) -> list[dict]:
    """Per workload: its candidates' measured and predicted times and the three figures."""
    from gpusim.profiles.loader import load_profile
    from gpusim.tuning.rule_snap import rule_picks

    hw = load_profile(profile)
    sram = hw.smem_per_block_bytes.value
    by_wl: dict[str, list] = {}
    for c in configs:
        m = measured.get(c.config_id)
        p = (predictions["by_config"].get(c.config_id) or {}).get(profile) or {}
        if m is None or m.get("status") != "ok" or p.get("runtime_s") is None:
            continue
        by_wl.setdefault(workload_key(c), []).append((c, m["median_s"], p["runtime_s"]))
    out = []
    for wl, runs in by_wl.items():
        meas = [t for _, t, _ in runs]
        pred = [t for _, _, t in runs]
        best = min(meas)
        first = min(runs, key=lambda r: r[2])
        plain = [(c.schedule, t) for c, t, _ in runs if c.schedule.kv_splits == 1]
        pick = next(p for p in rule_picks(runs[0][0].workload, sram, plain) if p.rule == "paper")
        rule_run = next(r for r in runs if r[0].schedule == pick.schedule)
        out.append(
            {
                "workload": wl,
                "candidates": len(runs),
                "spearman": spearman(pred, meas),
                "first_choice": first[0].config_id,
                "first_choice_over_best": first[1] / best - 1,
                "fixed_rule": rule_run[0].config_id,
                "fixed_rule_over_best": rule_run[1] / best - 1,
                "best": min(runs, key=lambda r: r[1])[0].config_id,
                "runs": [
                    {"id": c.config_id, "measured_s": t, "predicted_s": q} for c, t, q in runs
                ],
            }
        )
    return out


def runtime_errors(ranked: list[dict]) -> dict[str, float]:
    """MAPE and mean signed error of the predicted times over every run."""
    errs = [r["predicted_s"] / r["measured_s"] - 1 for w in ranked for r in w["runs"]]
    if not errs:
        return {"n": 0}
    return {
        "n": len(errs),
        "mape": statistics.fmean(abs(e) for e in errs),
        "mean_signed": statistics.fmean(errs),
    }


def verdict(ranked: list[dict]) -> dict[str, Any]:
    """What the set's rule asks: does it qualify, and is the target met."""
    return {
        "qualifies": any(w["fixed_rule_over_best"] >= RULE_LOSES_AT_LEAST for w in ranked),
        "first_choice_within_3pct": sum(
            w["first_choice_over_best"] <= FIRST_CHOICE_WITHIN for w in ranked
        ),
        "spearman_at_least_0_85": sum(w["spearman"] >= SPEARMAN_AT_LEAST for w in ranked),
        "workloads": len(ranked),
        "target_met": bool(ranked)
        and all(
            w["first_choice_over_best"] <= FIRST_CHOICE_WITHIN
            and w["spearman"] >= SPEARMAN_AT_LEAST
            for w in ranked
        ),
    }


def compare(manifest: Path, predictions: Path, measured: Path) -> dict[str, Any]:
    """Every profile of the predictions file: rankings, runtime errors, verdict."""
    from gpusim.validation import long_context_sweep
    from gpusim.validation.long_context_configs import read_manifest

    configs = read_manifest(manifest)
    preds = json.loads(predictions.read_text())
    meas = {r["id"]: r for r in long_context_sweep.records(measured)}
    if not meas:
        raise GpusimError(f"no measured runs in {measured} ({long_context_sweep.SWEEP_FILE})")
    doc: dict[str, Any] = {"profiles": {}}
    for profile in preds["profiles"]:
        ranked = rankings(configs, meas, preds, profile)
        doc["profiles"][profile] = {
            "verdict": verdict(ranked),
            "runtime": runtime_errors(ranked),
            "workloads": ranked,
        }
    return doc


def table(doc: dict[str, Any]) -> str:
    """The comparison as Markdown, one table per profile."""
    lines = []
    for profile, d in doc["profiles"].items():
        v, rt = d["verdict"], d["runtime"]
        lines += [
            f"## {profile}",
            "",
            "| workload | candidates | Spearman | first choice over best | fixed rule over best |",
            "|---|---|---|---|---|",
        ]
        for w in d["workloads"]:
            lines.append(
                f"| {w['workload']} | {w['candidates']} | {w['spearman']:.2f} | "
                f"{w['first_choice_over_best']:+.1%} | {w['fixed_rule_over_best']:+.1%} |"
            )
        lines += [
            "",
            f"qualifies (the rule loses >= 5 % somewhere): {v['qualifies']}; first choice within "
            f"3 %: {v['first_choice_within_3pct']} of {v['workloads']}; Spearman >= 0.85: "
            f"{v['spearman_at_least_0_85']} of {v['workloads']}; target met: {v['target_met']}",
            f"runtime over {rt.get('n', 0)} runs: MAPE {rt.get('mape', float('nan')):.1%}, "
            f"mean signed {rt.get('mean_signed', float('nan')):+.1%}",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.inference_tuning")
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--predictions", type=Path, required=True)
    ap.add_argument("--measured", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    try:
        doc = compare(a.manifest, a.predictions, a.measured)
    except (GpusimError, OSError, ValueError, KeyError) as exc:
        print(f"inference_tuning: error: {exc}", file=sys.stderr)
        return 2
    if a.out:
        atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    print(table(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
