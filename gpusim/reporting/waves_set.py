"""Held-out set 31 (partial waves, :mod:`gpusim.validation.partial_waves_heldout31`): its
predictions on each card's pipe and core profiles, and their comparison with the measured runs.

    python -m gpusim.reporting.waves_set predict --out reports/waves_heldout31/predictions.json
    python -m gpusim.reporting.waves_set compare --measured DIR \\
        --out reports/waves_heldout31/compare.json
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpusim.reporting.profile_sets import baselines, main_for, measured_times, predict_all
from gpusim.reporting.release_sets import lent_card
from gpusim.validation.heldout_shapes import error_summary
from gpusim.validation.partial_waves_heldout31 import PROFILES, heldout31_configs

PREDICTIONS = Path("reports/waves_heldout31/predictions.json")
#: the slots of a wave: two CTAs per SM on 132 SMs (both tiles of the set)
SLOTS = 264


def predict(configs) -> dict[str, Any]:
    """Every config under every profile of :data:`PROFILES`."""
    return predict_all(configs, PROFILES, "gpusim.partial_waves_heldout31.predictions")


def _ctas(c) -> int:
    w, s = c.workload, c.schedule
    return w.batch * w.heads * -(-w.seq_len_q // s.block_m)


def compare(measured_dir: Path, predictions: dict[str, Any], configs=None) -> dict[str, Any]:
    """Per profile the runtime errors; the roofline and constant-efficiency baselines; per tile
    and mask, each grid's waves, measured and predicted times over the one-wave run's."""
    from gpusim.validation import long_context_sweep

    configs = heldout31_configs() if configs is None else configs
    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    t = measured_times(measured)
    ok = [c for c in configs if c.config_id in t]
    gpu, judged = lent_card(measured_dir)
    by = predictions["by_config"]
    out: dict[str, Any] = {"gpu": gpu, "judged_profile": judged, "measured": str(measured_dir),
                           "n_measured": len(ok), "profiles": {}}  # fmt: skip
    for name in predictions["profiles"]:
        errs = [(c.config_id, by[c.config_id][name]["runtime_s"] / t[c.config_id] - 1) for c in ok]
        out["profiles"][name] = error_summary(errs)
    out |= baselines(configs, t, judged)
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
    return main_for(argv, "waves_set", __doc__.splitlines()[0], PREDICTIONS,
                    lambda: predict(heldout31_configs()), compare)  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
