"""Held-out set 8's predictions and verdict: the record against the active-CTAs and
staged-store candidates (:mod:`gpusim.validation.cta_ends_heldout8`).

    python -m gpusim.reporting.cta_ends_verdict predict --out PRED.json [--only PART,...]
    python -m gpusim.reporting.cta_ends_verdict compare --predictions PRED.json \\
        --measured data/h200/2026-12-04_cta_ends_heldout8 [--out COMPARE.json]

Each variant is a profile and whether the engine follows its SMs' computing CTAs
(:func:`gpusim.engine.active_ctas.following`). The predictions file
has the long-context format, its "profiles" the variant names, so the long-context
comparison (baselines included) reads it as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import load_profile
from gpusim.engine import active_ctas
from gpusim.engine.load_latency import latency_under_queue
from gpusim.profiles.schema import HardwareProfile
from gpusim.reporting.long_context_predict import PREDICTIONS_KIND, predict_one
from gpusim.reporting.variant_verdict import print_scores, score
from gpusim.source_commit import git_commit
from gpusim.validation.cta_ends_heldout8 import VARIANTS, heldout8_configs
from gpusim.validation.long_context_configs import LongContextConfig, manifest_doc

HERE = Path("reports/cta_ends_heldout8")
#: the staged-store candidate's profiles: the shipped ones with the cta_life record's
#: 16-byte rate written in (python -m gpusim.calibrate.cta_life --record ... --store 16-byte)
STAGED = {
    "h200-sxm": str(HERE / "h200-sxm-staged.yaml"),
    "h200-sxm-core": str(HERE / "h200-sxm-core-staged.yaml"),
}
#: the field the staged-store candidate added (the shipped profiles have it since the set
#: adopted it: the record's profile is the shipped one without it)
STAGED_FIELD = "staged_store_bytes_per_clk_per_sm"
#: variant name -> (profile, engine follows active CTAs); "core_" ones are reported only;
#: a profile name ending in "-record" is that profile without :data:`STAGED_FIELD`
SPECS: dict[str, tuple[str, bool]] = {}
for _base, _prefix in (("h200-sxm", ""), ("h200-sxm-core", "core_")):
    SPECS[f"{_prefix}record"] = (f"{_base}-record", False)
    SPECS[f"{_prefix}active_ctas"] = (_base, True)
    SPECS[f"{_prefix}staged_stores"] = (STAGED[_base], False)
    SPECS[f"{_prefix}both"] = (STAGED[_base], True)
JUDGED = VARIANTS


#: fields the shipped profiles gained after this set (held-out set 9's DRAM read stream): the
#: variants are recomputed without them, as they were judged
LATER_FIELDS = ("dram_read_bandwidth_bytes_per_s",)


def variant_profile(variant: str) -> HardwareProfile:
    """The profile ``variant`` is predicted on (:data:`SPECS`), as the set judged it."""
    name = SPECS[variant][0]
    drop = dict.fromkeys(LATER_FIELDS)
    if name.endswith("-record"):
        name = name.removesuffix("-record")
        drop[STAGED_FIELD] = None
    return load_profile(name).model_copy(update=drop)


def predict_variant(c: LongContextConfig, variant: str) -> dict[str, Any]:
    """:func:`~gpusim.reporting.long_context_predict.predict_one` under ``variant``, with the
    engine as the set judged it (a load's latency before its transfer: held-out set 12 came
    after)."""
    with active_ctas.following(SPECS[variant][1]), latency_under_queue(False):
        return predict_one(c, variant_profile(variant))


def predict(configs: list[LongContextConfig], variants=tuple(SPECS), log=print) -> dict:
    """Every config under every variant, as one JSON-ready document."""
    by_config = {}
    for n, c in enumerate(configs, 1):
        by_config[c.config_id] = {v: predict_variant(c, v) for v in variants}
        log(f"[{n}/{len(configs)}] {c.config_id}")
    return {
        "kind": PREDICTIONS_KIND,
        "model_commit": git_commit(),
        "manifest_configs_sha256": manifest_doc(configs)["configs_sha256"],
        "profiles": list(variants),
        "variants": {v: {"profile": SPECS[v][0], "active_ctas": SPECS[v][1]} for v in variants},
        "detail": "auto",
        "by_config": by_config,
    }


def verdict(model: dict[str, dict]) -> dict[str, Any]:
    """The rule's outcome from each judged variant's runtime figures over all runs
    (``{variant: {"mape": ...}}``): which candidates beat the record, which is adopted."""
    mape = {v: model[v]["mape"] for v in JUDGED}
    beat = [v for v in JUDGED[1:] if mape[v] < mape["record"]]
    # The lowest of those that beat the record: "both" only when lower than each alone (a
    # single candidate that does not beat the record is above it, so above "both" too; on
    # a tie the single one, listed first, is kept).
    adopted = min(beat, key=lambda v: mape[v]) if beat else "record"
    return {"mape_all": mape, "beat_record": beat, "adopted": adopted}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.cta_ends_verdict")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("predict")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--only", default="", help="comma-separated parts of config ids")
    c = sub.add_parser("compare")
    c.add_argument("--predictions", type=Path, required=True)
    c.add_argument("--measured", type=Path, required=True)
    c.add_argument("--out", type=Path, default=None)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    configs = heldout8_configs()
    if args.cmd == "predict":
        parts = [p for p in args.only.split(",") if p]
        if parts:
            configs = [c for c in configs if any(p in c.config_id for p in parts)]
        doc = predict(configs, log=lambda m: print(m, file=sys.stderr))
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
        return 0
    return _compare(args, configs)


def _compare(args: argparse.Namespace, configs: list[LongContextConfig]) -> int:
    predictions = json.loads(args.predictions.read_text())
    profiles = {v: variant_profile(v) for v in predictions["profiles"]}
    doc = score(configs, args.measured, predictions, profiles)
    if all(v in doc["all_runs"] for v in JUDGED):
        doc["verdict"] = verdict(doc["all_runs"])
    if args.out:
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print_scores(doc, 22)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
