"""Held-out set 7's judgement: runtime errors of both clocks, per run and over the set.

    python -m gpusim.reporting.load_clock_verdict [--predictions PRED.json] [--measured DIR]
                                                   [--out compare_clocks.json]

The set and its rule: :mod:`gpusim.validation.load_clock_heldout7`. The predictions are the
committed ones (``python -m gpusim.reporting.long_context predict`` on the set's manifest,
both profiles); :func:`predict` recomputes them from the code the same way.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.reporting.pack_gqa import error_stats, measured_s

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-04_load_clock_heldout7"
REPORT = ROOT / "reports/load_clock_heldout7"
#: the profiles the set judges: the default as it was, and the candidate
BASE, CANDIDATE = "h200-sxm", "reports/load_clock_heldout7/h200-sxm-stream-clock.yaml"
MODELS = {"products clock (h200-sxm before)": BASE, "stream-load clock (candidate)": CANDIDATE}


def predict(config_ids: list[str] | None = None) -> dict[str, dict[str, float]]:
    """Both models' runtime of the set's runs (or of ``config_ids``), from the code. The
    products clock is ``h200-sxm`` without ``sm_clock_stream_load_hz``: the profile as the
    set judged it (it has carried the candidate's field since)."""
    from gpusim.profiles.loader import load_profile
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.validation.load_clock_heldout7 import heldout7_configs

    profiles = {
        BASE: load_profile(BASE).model_copy(update={"sm_clock_stream_load_hz": None}),
        CANDIDATE: load_profile(str(ROOT / CANDIDATE)),
    }
    out: dict[str, dict[str, float]] = {}
    for c in heldout7_configs():
        if config_ids is not None and c.config_id not in config_ids:
            continue
        out[c.config_id] = {key: predict_one(c, p)["runtime_s"] for key, p in profiles.items()}
    return out


def committed(path: Path = REPORT / "predictions.json") -> dict[str, dict[str, float]]:
    """The committed predictions: ``{config id: {profile: runtime s}}``."""
    doc = json.loads(path.read_text())
    return {
        k: {p: v[p]["runtime_s"] for p in (BASE, CANDIDATE)} for k, v in doc["by_config"].items()
    }


def compare(predicted: dict[str, dict[str, float]], measured: dict[str, float]) -> dict[str, Any]:
    """Each model's errors over all runs, the project's and PyTorch's, and every run's."""
    rows = [
        {"id": k, "measured_s": measured[k], **{m: p[prof] / measured[k] - 1
                                                for m, prof in MODELS.items()}}
        for k, p in predicted.items() if k in measured
    ]  # fmt: skip
    stats = {}
    for m in MODELS:
        for part, keep in (("all", ""), ("project", "project"), ("torch", "torch")):
            errs = [r[m] for r in rows if r["id"].startswith(keep)]
            if errs:
                stats[f"{m}, {part}"] = error_stats(errs)
    return {"rows": rows, "stats": stats}


def text(doc: dict[str, Any]) -> str:
    names = list(MODELS)
    lines = [f"{'run':72} {'ms':>8} " + " ".join(f"{n[:24]:>25}" for n in names)]
    for r in doc["rows"]:
        lines.append(
            f"{r['id']:72} {1e3 * r['measured_s']:8.3f} "
            + " ".join(f"{100 * r[n]:+24.1f}%" for n in names)
        )
    for k, s in doc["stats"].items():
        lines.append(
            f"{k:45} n {s['n']:2} MAPE {100 * s['mape']:5.2f} % "
            f"mean {100 * s['mean_signed']:+5.2f} % worst {100 * s['worst']:+.1f} %"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--predictions", type=Path, default=REPORT / "predictions.json")
    ap.add_argument("--measured", type=Path, default=DATA)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args(argv)
    doc = compare(committed(a.predictions), measured_s(a.measured))
    if a.out is not None:
        atomic.write_text(a.out, json.dumps(doc, indent=1))
    print(text(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
