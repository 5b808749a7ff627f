"""Held-out sets 32 and 33 (the first wave's SM-mate age, :mod:`gpusim.validation.mates_heldout32`
and ``mates_heldout33``): their predictions on the H100's profiles without and with
``sm_mate_first_wave_ratio``, and their comparison with the measured runs under the sets' rule.

    python -m gpusim.reporting.mates_set predict --out reports/mates_heldout32/predictions.json
    python -m gpusim.reporting.mates_set predict --record REC.json \
        --out reports/mates_heldout32/predictions_mates.json
    python -m gpusim.reporting.mates_set compare --measured DIR \
        --out reports/mates_heldout32/compare.json
    python -m gpusim.reporting.mates_set --set 33 predict|compare ...   # reports/mates_heldout33

The candidates are each profile with the field the mate_gap record (``--record``, measured on
an H100 with no attention code) sets, named ``<profile>+mates``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.reporting.profile_sets import (
    merged,
    no_worse,
    predict_on,
    tuner_report,
)
from gpusim.validation.mates_heldout32 import PROFILES, heldout32_configs
from gpusim.validation.mates_heldout33 import heldout33_configs

#: each set: its configs and its reports' folder
SETS = {"32": (heldout32_configs, Path("reports/mates_heldout32")),
        "33": (heldout33_configs, Path("reports/mates_heldout33"))}  # fmt: skip
MATES = "+mates"
#: the rule's margins: MAPE at least this much lower, the mean signed error no further from 0
MAPE_GAIN, SIGNED_SLACK = 0.005, 0.01


def with_record(name: str, record: dict[str, Any], record_path: str):
    """Profile ``name`` with the record's ``sm_mate_first_wave_ratio`` (in memory)."""
    from gpusim.calibrate.mate_gap import ratios
    from gpusim.engine.mate_age import FIELD
    from gpusim.profiles.loader import load_profile
    from gpusim.profiles.schema import SourcedRateTable

    table = SourcedRateTable(value=ratios(record), source=f"mate_gap record {record_path}")
    return load_profile(name).model_copy(update={FIELD: table, "name": name + MATES})


def predict(configs, record_path: Path | None = None, set_id: str = "32") -> dict[str, Any]:
    """Every config on every profile of :data:`PROFILES` (with the record's field, given one)."""
    from gpusim.source_commit import git_commit

    if record_path is None:
        profiles = {n: n for n in PROFILES}
    else:
        record = json.loads(record_path.read_text())
        profiles = {n + MATES: with_record(n, record, str(record_path)) for n in PROFILES}
    by = predict_on(configs, profiles)
    return {"kind": f"gpusim.mates_heldout{set_id}.predictions", "model_commit": git_commit(),
            "record": None if record_path is None else str(record_path),
            "profiles": list(profiles), "by_config": by}  # fmt: skip


def decide(base: dict[str, Any], cand: dict[str, Any]) -> bool:
    """The set's rule on two profiles' runtime summaries and tuner verdicts."""
    return no_worse(base, cand, MAPE_GAIN, SIGNED_SLACK)


def compare(measured_dir: Path, predictions: list[dict[str, Any]], configs=None) -> dict:
    """Per profile: the tuner's rankings and verdict, the runtime errors and worst runs; the
    baselines on the same runs; the rule's decision for each profile and its candidate."""
    configs = heldout32_configs() if configs is None else configs
    both = merged(configs, predictions)
    out = tuner_report(configs, measured_dir, both, lambda name: name.removesuffix(MATES))
    prof = out["profiles"]
    out["decision"] = {n: decide(prof[n], prof[n + MATES]) for n in PROFILES
                       if n in prof and n + MATES in prof}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Predict or compare the set; a bad input is one line and exit 2."""
    ap = argparse.ArgumentParser(prog="mates_set", description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=sorted(SETS), default="32")
    sub = ap.add_subparsers(dest="cmd", required=True)
    pr = sub.add_parser("predict")
    pr.add_argument("--out", type=Path, required=True)
    pr.add_argument("--record", type=Path, default=None)
    co = sub.add_parser("compare")
    co.add_argument("--measured", type=Path, required=True)
    co.add_argument("--out", type=Path, required=True)
    co.add_argument("--predictions", type=Path, nargs="+", default=None,
                    help="default: the set's predictions and predictions_mates")  # fmt: skip
    a = ap.parse_args(argv)
    configs, out = SETS[a.set]
    try:
        if a.cmd == "predict":
            doc = predict(configs(), a.record, a.set)
        else:
            paths = a.predictions or [out / "predictions.json", out / "predictions_mates.json"]
            doc = compare(a.measured, [json.loads(p.read_text()) for p in paths], configs())
        a.out.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(a.out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"mates_set: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
