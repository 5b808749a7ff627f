"""Held-out set 10's predictions and verdict: the core model replaying the long-context
switch instances against their kernels timed by the pipe model
(:mod:`gpusim.validation.switch_replay_heldout10`).

    python -m gpusim.reporting.switch_replay_verdict predict --out PRED.json
    python -m gpusim.reporting.switch_replay_verdict compare --predictions PRED.json \\
        --measured data/h200/2026-12-04_switch_replay_heldout10 [--out COMPARE.json]

Each variant is a profile and whether the engine replays the switch instances
(:func:`gpusim.engine.switch_replay.replaying_switches`): ``record`` and ``candidate`` on
``h200-sxm-core`` (judged, on the project's runs), ``default`` (``h200-sxm``, reported). The
predictions file has the long-context format, its "profiles" the variant names.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import load_profile
from gpusim.engine.switch_replay import replaying_switches
from gpusim.reporting.long_context_predict import PREDICTIONS_KIND, predict_one
from gpusim.source_commit import git_commit
from gpusim.validation.long_context_configs import LongContextConfig, manifest_doc
from gpusim.validation.switch_replay_heldout10 import heldout10_configs

#: variant -> (profile, the engine replays the switch instances)
SPECS: dict[str, tuple[str, bool]] = {
    "record": ("h200-sxm-core", False),
    "candidate": ("h200-sxm-core", True),
    "default": ("h200-sxm", True),
}
JUDGED = ("record", "candidate")


def predict_variant(c: LongContextConfig, variant: str) -> dict[str, Any]:
    """:func:`~gpusim.reporting.long_context_predict.predict_one` under ``variant``."""
    profile, on = SPECS[variant]
    with replaying_switches(on):
        return predict_one(c, profile)


def predict(configs: list[LongContextConfig], log=print) -> dict:
    """Every config under every variant, as one JSON-ready document."""
    by_config = {}
    for n, c in enumerate(configs, 1):
        by_config[c.config_id] = {v: predict_variant(c, v) for v in SPECS}
        log(f"[{n}/{len(configs)}] {c.config_id}")
    return {
        "kind": PREDICTIONS_KIND,
        "model_commit": git_commit(),
        "manifest_configs_sha256": manifest_doc(configs)["configs_sha256"],
        "profiles": list(SPECS),
        "variants": {v: {"profile": p, "replays_switches": on} for v, (p, on) in SPECS.items()},
        "detail": "auto",
        "by_config": by_config,
    }


def verdict(doc: dict[str, Any]) -> dict[str, Any]:
    """The rule's outcome from the comparison: the candidate is kept if its MAPE over the
    project's runs is lower than the record's."""
    mape = {v: doc["profiles"][v]["model"]["project"]["mape"] for v in JUDGED}
    return {"mape_project": mape, "kept": mape["candidate"] < mape["record"]}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.switch_replay_verdict")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("predict").add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("--predictions", type=Path, required=True)
    c.add_argument("--measured", type=Path, required=True)
    c.add_argument("--out", type=Path, default=None)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    configs = heldout10_configs()
    if args.cmd == "predict":
        doc = predict(configs, log=lambda m: print(m, file=sys.stderr))
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
        return 0
    from gpusim.reporting.long_context import VALIDATION_DRAM21
    from gpusim.validation import long_context_sweep
    from gpusim.validation.long_context_compare import compare, efficiency_from_dataset, table

    predictions = json.loads(args.predictions.read_text())
    measured = {r["id"]: r for r in long_context_sweep.records(args.measured)}
    profiles = {v: load_profile(SPECS[v][0]) for v in predictions["profiles"]}
    data = VALIDATION_DRAM21 / "h200-dataset.json"
    eff = {v: efficiency_from_dataset(data, hw) for v, hw in profiles.items()}
    doc = compare(configs, measured, predictions, profiles, eff, {})
    doc["verdict"] = verdict(doc)
    if args.out:
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print(table(doc))
    print(f"verdict: {json.dumps(doc['verdict'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
