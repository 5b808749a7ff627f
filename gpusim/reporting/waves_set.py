"""Held-out set 31 (partial waves, :mod:`gpusim.validation.partial_waves_heldout31`): its
predictions on each card's pipe and core profiles, and their comparison with the measured runs.

    python -m gpusim.reporting.waves_set predict --out reports/waves_heldout31/predictions.json
    python -m gpusim.reporting.waves_set compare --measured DIR \\
        --out reports/waves_heldout31/compare.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.reporting.release_sets import lent_card
from gpusim.reporting.stream_set import constant_efficiency
from gpusim.validation.heldout_shapes import error_summary
from gpusim.validation.partial_waves_heldout31 import PROFILES, heldout31_configs

PREDICTIONS = Path("reports/waves_heldout31/predictions.json")
#: the slots of a wave: two CTAs per SM on 132 SMs (both tiles of the set)
SLOTS = 264


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES`."""
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.source_commit import git_commit

    by = {c.config_id: {n: predict_one(c, n) for n in PROFILES} for c in configs}
    return {"kind": "gpusim.partial_waves_heldout31.predictions", "model_commit": git_commit(),
            "profiles": list(PROFILES), "by_config": by}  # fmt: skip


def _ctas(c) -> int:
    w, s = c.workload, c.schedule
    return w.batch * w.heads * -(-w.seq_len_q // s.block_m)


def compare(measured_dir: Path, predictions: dict[str, Any], configs=None) -> dict[str, Any]:
    """Per profile the runtime errors; the roofline and constant-efficiency baselines; per tile
    and mask, each grid's waves, measured and predicted times over the one-wave run's."""
    from gpusim.profiles.loader import load_profile
    from gpusim.validation import long_context_sweep
    from gpusim.validation.long_context_compare import roofline_s

    configs = heldout31_configs() if configs is None else configs
    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    ok = [c for c in configs if (measured.get(c.config_id) or {}).get("status") == "ok"]
    gpu, judged = lent_card(measured_dir)
    by = predictions["by_config"]
    t = {c.config_id: measured[c.config_id]["median_s"] for c in ok}
    out: dict[str, Any] = {"gpu": gpu, "judged_profile": judged, "measured": str(measured_dir),
                           "n_measured": len(ok), "profiles": {}}  # fmt: skip
    for name in predictions["profiles"]:
        errs = [(c.config_id, by[c.config_id][name]["runtime_s"] / t[c.config_id] - 1) for c in ok]
        out["profiles"][name] = error_summary(errs)
    hw = load_profile(judged)
    roof = [(c.config_id, roofline_s(c.workload, hw) / t[c.config_id] - 1) for c in ok]
    out["roofline"] = error_summary(roof)
    eff = constant_efficiency(judged, hw)
    const = [(i, (1 + e) / eff["efficiency"] - 1) for i, e in roof]
    out["constant_efficiency"] = error_summary(const) | {"reference": eff}
    curves: dict[str, list] = {}
    for c in ok:
        s = c.schedule
        key = f"m{s.block_m}n{s.block_n} c{int(c.workload.causal)}"
        row = {"id": c.config_id, "ctas": _ctas(c), "waves": _ctas(c) / SLOTS,
               "measured_s": t[c.config_id]}  # fmt: skip
        row |= {f"{n}_s": by[c.config_id][n]["runtime_s"] for n in (judged, judged + "-core")}
        curves.setdefault(key, []).append(row)
    out["waves"] = curves
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
            doc = predict(heldout31_configs())
        else:
            doc = compare(a.measured, json.loads(a.predictions.read_text()))
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"waves_set: error: {exc}", file=sys.stderr)
        return 2
    a.out.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
