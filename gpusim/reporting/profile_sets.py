"""What held-out sets 29, 31, 32 and 33 (and the stream sets' tuner comparison) share: every
config predicted on each named profile, one name's tuner rankings and runtime errors, the rule
that adopts a candidate, the roofline and constant-efficiency baselines on the measured runs,
and the ``predict`` / ``compare`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation.heldout_shapes import error_summary


def predict_all(configs, profiles: tuple[str, ...], kind: str) -> dict[str, Any]:
    """Every config under every profile of ``profiles``, as the sets' predictions.json."""
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.source_commit import git_commit

    by = {c.config_id: {n: predict_one(c, n) for n in profiles} for c in configs}
    return {"kind": kind, "model_commit": git_commit(), "profiles": list(profiles),
            "by_config": by}  # fmt: skip


def predict_on(configs, profiles: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{config id: {name: prediction}}`` for each ``{name: profile or its name}``, one process
    per core."""
    from gpusim.parallel_map import pmap
    from gpusim.reporting.long_context_predict import predict_one

    rows = pmap(lambda c: {n: predict_one(c, p) for n, p in profiles.items()}, configs)
    return {c.config_id: row for c, row in zip(configs, rows, strict=True)}


def merged(configs, predictions: list[dict[str, Any]]) -> dict[str, Any]:
    """Several predictions files of one set as one: every profile, every config's rows."""
    out: dict[str, Any] = {"profiles": [], "by_config": {c.config_id: {} for c in configs}}
    for p in predictions:
        out["profiles"] += p["profiles"]
        for i, row in p["by_config"].items():
            out["by_config"][i].update(row)
    return out


def tuner_summary(configs, measured: dict, predictions: dict, name: str, base: str | None = None):
    """``name``'s tuner rankings and verdict and its runtime errors over the measured runs;
    ``base``: the profile the name's predictions are made on (its SRAM picks the fixed rule's
    tile; default the name itself)."""
    from gpusim.reporting.inference_tuning import rankings, verdict

    base = base or name
    if base != name:  # the name's predictions under its base's name, as rankings reads them
        by = predictions["by_config"]
        predictions = {"by_config": {k: {base: v[name]} for k, v in by.items()}}
    ranked = rankings(configs, measured, predictions, base)
    errs = [(r["id"], r["predicted_s"] / r["measured_s"] - 1) for w in ranked for r in w["runs"]]
    return {"verdict": verdict(ranked), "runtime": error_summary(errs), "workloads": ranked}


def tuner_report(
    configs, measured_dir: Path, predictions: dict, base_of: Callable[[str], str] | None = None
) -> dict[str, Any]:
    """What a tuner set's comparison shares: the lent card, each profile's
    :func:`tuner_summary` (``base_of(name)``: the profile its predictions are made on), then the
    roofline and the constant-efficiency baseline on the same runs."""
    from gpusim.reporting.release_sets import lent_card
    from gpusim.validation import long_context_sweep

    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    gpu, judged = lent_card(measured_dir)
    out: dict[str, Any] = {"gpu": gpu, "judged_profile": judged, "measured": str(measured_dir),
                           "profiles": {}}  # fmt: skip
    for name in predictions["profiles"]:
        base = base_of(name) if base_of else None
        out["profiles"][name] = tuner_summary(configs, measured, predictions, name, base)
    return out | baselines(configs, measured_times(measured), judged)


def no_worse(base: dict, cand: dict, mape_gain: float, signed_slack: float) -> bool:
    """A set's adoption rule on two :func:`tuner_summary` results: the candidate's MAPE at least
    ``mape_gain`` lower, its mean signed error no further from 0 by more than ``signed_slack``,
    and no fewer workloads on either tuner count."""
    rt_b, rt_c, v_b, v_c = base["runtime"], cand["runtime"], base["verdict"], cand["verdict"]
    return (
        rt_c["mape"] <= rt_b["mape"] - mape_gain
        and abs(rt_c["mean_signed"]) <= abs(rt_b["mean_signed"]) + signed_slack
        and v_c["first_choice_within_3pct"] >= v_b["first_choice_within_3pct"]
        and v_c["spearman_at_least_0_85"] >= v_b["spearman_at_least_0_85"]
    )


def baselines(configs, times: dict[str, float], judged: str) -> dict[str, Any]:
    """The roofline and the constant-efficiency baseline (the roofline over the ``judged``
    profile's efficiency from an earlier set: :func:`stream_set.constant_efficiency`) on the
    configs measured (``times``: id -> measured seconds), in config order."""
    from gpusim.profiles.loader import load_profile
    from gpusim.reporting.stream_set import constant_efficiency
    from gpusim.validation.long_context_compare import roofline_s

    hw = load_profile(judged)
    roof = [(c.config_id, roofline_s(c.workload, hw) / times[c.config_id] - 1)
            for c in configs if c.config_id in times]  # fmt: skip
    eff = constant_efficiency(judged, hw)
    const = [(i, (1 + e) / eff["efficiency"] - 1) for i, e in roof]  # the roofline, scaled
    return {"roofline": error_summary(roof),
            "constant_efficiency": error_summary(const) | {"reference": eff}}  # fmt: skip


def measured_times(measured: dict[str, dict]) -> dict[str, float]:
    """id -> median seconds of the runs that measured ok."""
    return {i: r["median_s"] for i, r in measured.items() if r.get("status") == "ok"}


def main_for(
    argv: list[str] | None,
    prog: str,
    description: str,
    predictions: Path,
    predict: Callable[[], dict[str, Any]],
    compare: Callable[[Path, dict[str, Any]], dict[str, Any]],
    more: dict[str, Callable[[], dict[str, Any]]] | None = None,
) -> int:
    """``predict --out FILE`` or ``compare --measured DIR --out FILE [--predictions P]``, or a
    command of ``more`` (further predictions, ``NAME --out FILE``); a bad input is one line and
    exit 2."""
    predicts = {"predict": predict, **(more or {})}
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("cmd", choices=[*predicts, "compare"])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--measured", type=Path)
    ap.add_argument("--predictions", type=Path, default=predictions)
    a = ap.parse_args(argv)
    if a.cmd == "compare" and (a.measured is None or not a.measured.is_dir()):
        ap.error("compare needs --measured DIR, a folder of measured runs")
    try:
        doc = predicts[a.cmd]() if a.cmd in predicts else compare(
            a.measured, json.loads(a.predictions.read_text()))
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    return 0
