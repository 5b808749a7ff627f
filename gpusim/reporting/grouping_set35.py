"""Held-out set 35 (the step efficiency by CTA grouping, :mod:`~.validation.grouping_heldout35`):
its predictions on the H100's profiles and on ``h100-sxm5`` with the step_grouping record's
table, and their comparison with the measured runs under the set's rule.

    python -m gpusim.reporting.grouping_set35 predict \
        --out reports/grouping_heldout35/predictions.json
    python -m gpusim.reporting.grouping_set35 predict --record REC.json \
        --out reports/grouping_heldout35/predictions_grouping.json
    python -m gpusim.reporting.grouping_set35 predict --partial \
        --out reports/grouping_heldout35/predictions_partial.json
    python -m gpusim.reporting.grouping_set35 compare --measured DIR \
        --out reports/grouping_heldout35/compare.json
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
    measured_times,
    merged,
    no_worse,
    predict_on,
    tuner_report,
)
from gpusim.validation.grouping_heldout35 import PROFILES, heldout35_configs

OUT = Path("reports/grouping_heldout35")
#: the candidate: the judged profile with the record's table
BASE, GROUPING = "h100-sxm5", "+grouping"
#: the suffix of a profile given the step_size record's partial table (reported beside)
PARTIAL = "+partial"
#: the rule's margins: MAPE at least this much lower, the mean signed error no further from 0
MAPE_GAIN, SIGNED_SLACK = 0.005, 0.01


def with_record(name: str, record: dict[str, Any], record_path: str):
    """Profile ``name`` with the record's ``step_efficiency_by_cta_warps`` (in memory)."""
    from gpusim.calibrate.step_grouping import profile_entry
    from gpusim.engine.cta_grouping import FIELD
    from gpusim.profiles.loader import load_profile
    from gpusim.profiles.schema import SourcedRateTable

    table = SourcedRateTable(**profile_entry(record, record_path))
    return load_profile(name).model_copy(update={FIELD: table, "name": name + GROUPING})


def predict(configs, record_path: Path | None = None, partial: bool = False) -> dict[str, Any]:
    """Every config on :data:`PROFILES`, or (given the record) on the candidate, or
    (``partial``) on the judged profile with the step_size record's partial table, reported
    beside the candidate (it decides nothing)."""
    from gpusim.profiles.loader import load_profile
    from gpusim.source_commit import git_commit

    if partial:
        profile = partial_profile(load_profile(BASE))
        profiles: dict[str, Any] = {profile.name: profile}
    elif record_path is None:
        profiles = {n: n for n in PROFILES}
    else:
        record = json.loads(record_path.read_text())
        profiles = {BASE + GROUPING: with_record(BASE, record, str(record_path))}
    by = predict_on(configs, profiles)
    return {"kind": "gpusim.grouping_heldout35.predictions", "model_commit": git_commit(),
            "record": None if record_path is None else str(record_path),
            "profiles": list(profiles), "by_config": by}  # fmt: skip


def compare(measured_dir: Path, predictions: list[dict[str, Any]], configs=None) -> dict:
    """Per profile: the tuner's rankings and verdict, the runtime errors and worst runs; the
    baselines on the same runs; the rule's decision on the candidate."""
    configs = heldout35_configs() if configs is None else configs
    both = merged(configs, predictions)
    out = tuner_report(configs, measured_dir, both,
                       lambda name: name.removesuffix(GROUPING).removesuffix(PARTIAL))
    prof = out["profiles"]
    if BASE + GROUPING in prof:
        out["decision"] = {BASE: no_worse(prof[BASE], prof[BASE + GROUPING], MAPE_GAIN,
                                          SIGNED_SLACK)}  # fmt: skip
    return out


#: the look on seen sets: the step_size record and the measured sets it recomputes
STEP_SIZE = Path("data/h100/2026-12-06_calibration_step_size/step-size.json")
SEEN = ("32", "33")


def partial_profile(base):
    """``base`` with the partial table of the step_size record's five launch shapes
    (8-accumulator loops; two 8-warp CTAs take the one-CTA value), named ``+partial``."""
    from gpusim.calibrate import step_grouping
    from gpusim.engine.cta_grouping import FIELD
    from gpusim.profiles.schema import SourcedRateTable

    record = json.loads(STEP_SIZE.read_text())
    have = {(r["threads"], r["ctas_per_sm"]) for r in record["rows"]}
    shapes = tuple(sh for sh in step_grouping.SHAPES if sh in have)
    rows = {"rows": [r for r in record["rows"] if r["acc"] == 8]}
    table = step_grouping.efficiencies(rows, shapes)
    part = SourcedRateTable(value=table, source=f"partial, {STEP_SIZE}")
    return base.model_copy(update={FIELD: part, "name": base.name + PARTIAL})


def look() -> dict[str, Any]:
    """Seen sets 32 and 33 on ``h100-sxm5`` without and with a partial table from the step_size
    record's five launch shapes (8-accumulator loops): per tile and over all runs, the mean
    signed error, and the MAPE. Judges nothing (reports/grouping_heldout35/README.md)."""
    import statistics

    from gpusim.engine.cta_grouping import FIELD
    from gpusim.profiles.loader import load_profile
    from gpusim.reporting.mates_set import SETS
    from gpusim.validation import long_context_sweep

    base = load_profile(BASE)
    part = partial_profile(base)
    table = getattr(part, FIELD).value
    profiles = {BASE: base, "partial": part}
    errs: dict[str, dict[str, list[float]]] = {n: {} for n in profiles}
    for sid in SEEN:
        configs, _ = SETS[sid]
        data = Path(f"data/h100/2026-12-06_mates_heldout{sid}")
        times = measured_times({r["id"]: r for r in long_context_sweep.records(data)})
        runs = [c for c in configs() if c.config_id in times]
        for c, row in zip(runs, predict_on(runs, profiles).values(), strict=True):
            tile = c.config_id.split("_m", 1)[1].split("_sp")[0]
            for n in profiles:
                e = row[n]["runtime_s"] / times[c.config_id] - 1
                errs[n].setdefault(tile, []).append(e)
    out: dict[str, Any] = {"table": table, "profiles": {}}
    for n, by_tile in errs.items():
        every = [e for es in by_tile.values() for e in es]
        tiles = {t: statistics.fmean(es) for t, es in by_tile.items()}
        out["profiles"][n] = {"mean_signed_by_tile": tiles, "n": len(every),
                              "mape": statistics.fmean(abs(e) for e in every),
                              "mean_signed": statistics.fmean(every)}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Predict or compare the set; a bad input is one line and exit 2."""
    ap = argparse.ArgumentParser(prog="grouping_set35", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    pr = sub.add_parser("predict")
    pr.add_argument("--out", type=Path, required=True)
    pr.add_argument("--record", type=Path, default=None)
    pr.add_argument("--partial", action="store_true",
                    help="the judged profile with the step_size record's partial table")
    co = sub.add_parser("compare")
    co.add_argument("--measured", type=Path, required=True)
    co.add_argument("--out", type=Path, required=True)
    co.add_argument("--predictions", type=Path, nargs="+", default=None,
                    help="default: the set's predictions, and predictions_grouping and "
                    "predictions_partial where they were made")  # fmt: skip
    lk = sub.add_parser("look", help="seen sets 32-33 with the step_size record's partial table")
    lk.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    try:
        if a.cmd == "look":
            doc = look()
        elif a.cmd == "predict":
            doc = predict(heldout35_configs(), a.record, a.partial)
        else:
            extra = [OUT / "predictions_grouping.json", OUT / "predictions_partial.json"]
            paths = a.predictions or [OUT / "predictions.json"] + [p for p in extra if p.exists()]
            doc = compare(a.measured, [json.loads(p.read_text()) for p in paths])
        a.out.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(a.out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"grouping_set35: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
