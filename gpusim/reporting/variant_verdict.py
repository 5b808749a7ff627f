"""A held-out set's variants (a profile, and an engine mechanism on or off), their predictions
and the rule's verdict: what :mod:`gpusim.reporting.switch_replay_verdict` and
:mod:`gpusim.reporting.load_latency_verdict` share.

A variant is ``(profile, on)``; ``toggle(on)`` is the mechanism's context manager (e.g.
:func:`gpusim.engine.load_latency.latency_under_queue`). The predictions file has the
long-context format, its "profiles" the variant names, so the long-context comparison
(baselines included) reads it as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import load_profile
from gpusim.reporting.long_context_predict import PREDICTIONS_KIND, predict_one
from gpusim.source_commit import git_commit
from gpusim.validation.long_context_configs import LongContextConfig, manifest_doc


@dataclass(frozen=True)
class Variants:
    """A set's variants: ``specs`` variant -> (profile, mechanism on); the two ``judged``
    (record, candidate); ``kernels`` whose runs the rule judges (the config id's prefix, ""
    for all); ``toggle`` the mechanism's context manager; ``flag`` its name in the file."""

    specs: dict[str, tuple[str, bool]]
    judged: tuple[str, str]
    kernels: str
    toggle: Callable[[bool], AbstractContextManager]
    flag: str

    def predict_variant(self, c: LongContextConfig, variant: str) -> dict[str, Any]:
        """:func:`~gpusim.reporting.long_context_predict.predict_one` under ``variant``."""
        profile, on = self.specs[variant]
        with self.toggle(on):
            return predict_one(c, profile)

    def predict(self, configs: list[LongContextConfig], log=print) -> dict:
        """Every config under every variant, as one JSON-ready document."""
        by_config = {}
        for n, c in enumerate(configs, 1):
            by_config[c.config_id] = {v: self.predict_variant(c, v) for v in self.specs}
            log(f"[{n}/{len(configs)}] {c.config_id}")
        return {
            "kind": PREDICTIONS_KIND,
            "model_commit": git_commit(),
            "manifest_configs_sha256": manifest_doc(configs)["configs_sha256"],
            "profiles": list(self.specs),
            "variants": {v: {"profile": p, self.flag: on} for v, (p, on) in self.specs.items()},
            "detail": "auto",
            "by_config": by_config,
        }

    def verdict(self, doc: dict[str, Any]) -> dict[str, Any]:
        """The rule's outcome from the comparison: the candidate is kept if its MAPE over the
        judged runs is lower than the record's."""
        record, candidate = self.judged
        mape = {v: self.mape(doc, v) for v in self.judged}
        return {"mape_judged": mape, "kept": mape[candidate] < mape[record]}

    def mape(self, doc: dict[str, Any], variant: str) -> float:
        """The variant's MAPE over the judged runs, from the comparison document."""
        if self.kernels:
            return doc["profiles"][variant]["model"][self.kernels]["mape"]
        return doc["all_runs"][variant]["mape"]


def main(argv: list[str] | None, prog: str, variants: Variants, configs) -> int:
    """``predict --out P`` or ``compare --predictions P --measured DIR [--out C]``."""
    ap = argparse.ArgumentParser(prog=prog)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("predict").add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("--predictions", type=Path, required=True)
    c.add_argument("--measured", type=Path, required=True)
    c.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.cmd == "predict":
        doc = variants.predict(configs, log=lambda m: print(m, file=sys.stderr))
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
        return 0
    predictions = json.loads(args.predictions.read_text())
    profiles = {v: load_profile(variants.specs[v][0]) for v in predictions["profiles"]}
    doc = score(configs, args.measured, predictions, profiles)
    doc["verdict"] = variants.verdict(doc)
    if args.out:
        atomic.write_text(args.out, json.dumps(doc, indent=1) + "\n")
    print_scores(doc, 16)
    return 0


def score(configs, measured_dir: Path, predictions: dict, profiles: dict) -> dict[str, Any]:
    """The long-context comparison of every variant (baselines included) against the runs
    measured in ``measured_dir``, with each variant's figures over all runs (``all_runs``)."""
    from gpusim.reporting.long_context import VALIDATION_DRAM21
    from gpusim.validation import long_context_sweep
    from gpusim.validation.long_context_compare import compare, efficiency_from_dataset

    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    data = VALIDATION_DRAM21 / "h200-dataset.json"
    eff = {v: efficiency_from_dataset(data, hw) for v, hw in profiles.items()}
    doc = compare(configs, measured, predictions, profiles, eff, {})
    doc["all_runs"] = {v: all_runs(configs, measured, predictions, v) for v in profiles}
    return doc


def print_scores(doc: dict[str, Any], width: int) -> None:
    """The comparison's table, each variant over all runs, and the verdict where there is one."""
    from gpusim.validation.long_context_compare import table

    print(table(doc))
    for v, f in doc["all_runs"].items():
        print(f"{v:{width}s} all {f['n']:3d} runs  MAPE {100 * f['mape']:5.2f} %  "
              f"mean {100 * f['mean_signed']:+5.2f} %")  # fmt: skip
    if "verdict" in doc:
        print(f"verdict: {json.dumps(doc['verdict'])}")


def all_runs(configs, measured: dict, predictions: dict, variant: str) -> dict[str, Any]:
    """MAPE, mean signed error and the worst runs over every run of one variant (the
    project's and PyTorch's together)."""
    from gpusim.validation.long_context_compare import rel_err, summarise

    rows = []
    for c in configs:
        m = measured.get(c.config_id)
        p = predictions["by_config"].get(c.config_id, {}).get(variant, {})
        if m is None or m.get("status") != "ok" or p.get("runtime_s") is None:
            continue
        t = m["median_s"]
        rows.append({"id": c.config_id, "measured": t, "predicted": p["runtime_s"],
                     "err": rel_err(p["runtime_s"], t)})  # fmt: skip
    return summarise(rows)
