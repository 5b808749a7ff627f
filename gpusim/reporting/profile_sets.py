"""What held-out sets 29 and 31 (and the stream sets' tuner comparison) share: every config
predicted on each named profile, the roofline and constant-efficiency baselines on the measured
runs, and the ``predict`` / ``compare`` command line."""

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
) -> int:
    """``predict --out FILE`` or ``compare --measured DIR --out FILE [--predictions P]``; a bad
    input is one line and exit 2."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("cmd", choices=["predict", "compare"])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--measured", type=Path)
    ap.add_argument("--predictions", type=Path, default=predictions)
    a = ap.parse_args(argv)
    if a.cmd == "compare" and (a.measured is None or not a.measured.is_dir()):
        ap.error("compare needs --measured DIR, a folder of measured runs")
    try:
        doc = predict() if a.cmd == "predict" else compare(
            a.measured, json.loads(a.predictions.read_text()))
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    return 0
