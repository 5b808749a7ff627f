"""Held-out set 29 (the SM core model on the lent card): its predictions with each card's
pipe-model profile and its core-model refinement, and their
comparison with the measured runs under the set's rule
(:mod:`gpusim.validation.inference_tuning_heldout29`).

    python -m gpusim.reporting.core_set predict --out reports/core_heldout29/predictions.json
    python -m gpusim.reporting.core_set compare --measured DIR \
        --out reports/core_heldout29/compare.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.reporting.inference_tuning import rankings, verdict
from gpusim.reporting.release_sets import lent_card
from gpusim.reporting.stream_set import constant_efficiency
from gpusim.validation.heldout_shapes import error_summary
from gpusim.validation.inference_tuning_heldout29 import PROFILES, heldout29_configs

PREDICTIONS = Path("reports/core_heldout29/predictions.json")
CORE = "-core"
#: the rule's margins: MAPE at least this much lower, the mean signed error no further from 0
MAPE_GAIN, SIGNED_SLACK = 0.01, 0.01


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES`."""
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.source_commit import git_commit

    by = {c.config_id: {n: predict_one(c, n) for n in PROFILES} for c in configs}
    return {"kind": "gpusim.inference_tuning_heldout29.predictions", "model_commit": git_commit(),
            "profiles": list(PROFILES), "by_config": by}  # fmt: skip


def decide(pipe: dict[str, Any], core: dict[str, Any]) -> bool:
    """The set's rule on two profiles' runtime summaries and tuner verdicts."""
    rt_p, rt_c = pipe["runtime"], core["runtime"]
    v_p, v_c = pipe["verdict"], core["verdict"]
    return (
        rt_c["mape"] <= rt_p["mape"] - MAPE_GAIN
        and abs(rt_c["mean_signed"]) <= abs(rt_p["mean_signed"]) + SIGNED_SLACK
        and v_c["first_choice_within_3pct"] >= v_p["first_choice_within_3pct"]
        and v_c["spearman_at_least_0_85"] >= v_p["spearman_at_least_0_85"]
    )


def compare(measured_dir: Path, predictions: dict[str, Any], configs=None) -> dict[str, Any]:
    """Per profile: the tuner's rankings and verdict, the runtime errors and worst runs; the
    roofline and the constant-efficiency baseline on the same runs; the rule's decision on
    the lent card's profiles."""
    from gpusim.profiles.loader import load_profile
    from gpusim.validation import long_context_sweep
    from gpusim.validation.long_context_compare import roofline_s

    configs = heldout29_configs() if configs is None else configs
    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    gpu, judged = lent_card(measured_dir)
    out: dict[str, Any] = {"gpu": gpu, "judged_profile": judged, "measured": str(measured_dir),
                           "profiles": {}}  # fmt: skip
    for name in predictions["profiles"]:
        ranked = rankings(configs, measured, predictions, name)
        runs = [r for w in ranked for r in w["runs"]]
        errs = [(r["id"], r["predicted_s"] / r["measured_s"] - 1) for r in runs]
        out["profiles"][name] = {"verdict": verdict(ranked), "runtime": error_summary(errs),
                                 "workloads": ranked}  # fmt: skip
    hw = load_profile(judged)
    roof = [(c.config_id, roofline_s(c.workload, hw) / measured[c.config_id]["median_s"] - 1)
            for c in configs
            if (measured.get(c.config_id) or {}).get("status") == "ok"]  # fmt: skip
    out["roofline"] = error_summary(roof)
    eff = constant_efficiency(judged, hw)
    const = [(i, (1 + e) / eff["efficiency"] - 1) for i, e in roof]
    out["constant_efficiency"] = error_summary(const) | {"reference": eff}
    pipe, core = out["profiles"][judged], out["profiles"][judged + CORE]
    out["decision"] = {"core_recommended": decide(pipe, core), "pipe": judged,
                       "core": judged + CORE}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Predict or compare the set; a bad input is one line and exit 2."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=["predict", "compare"])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--measured", type=Path)
    ap.add_argument("--predictions", type=Path, default=PREDICTIONS)
    a = ap.parse_args(argv)
    if a.cmd == "compare" and (a.measured is None or not a.measured.is_dir()):
        ap.error("compare needs --measured DIR, a folder of measured runs")
    try:
        if a.cmd == "predict":
            doc = predict(heldout29_configs())
        else:
            doc = compare(a.measured, json.loads(a.predictions.read_text()))
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"core_set: error: {exc}", file=sys.stderr)
        return 2
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
