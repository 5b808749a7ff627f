"""The packed-GQA held-out set's tables: errors of packed, unpacked and PyTorch's runs, and
the speed-up of packing per workload, measured against predicted.

    python -m gpusim.reporting.pack_gqa     # reads the committed predictions and measurement

The aggregate table with the baselines is ``python -m gpusim.reporting.long_context
compare`` (reports/long_context/pack_gqa/compare.txt); this one splits the project's runs
by packing and pairs each packed run with its unpacked twin. The test
(tests/validation/test_pack_gqa_set.py) feeds it predictions recomputed from the code.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.data.layout import REPO_ROOT

DATA = REPO_ROOT / "data/h200/2026-12-03_pack_gqa"
PREDICTIONS = REPO_ROOT / "reports/long_context/pack_gqa/predictions_h200-sxm.json"
PROFILE = "h200-sxm"
PACK = "_pack"


def measured_s(data: Path = DATA) -> dict[str, float]:
    """Median time of every measured run, by config id."""
    lines = (data / "sweep.jsonl").read_text().splitlines()
    return {r["id"]: r["median_s"] for r in map(json.loads, lines) if r.get("status") == "ok"}


def committed_predictions(path: Path = PREDICTIONS) -> dict[str, float]:
    """The predicted time of every config, as committed before the measurement."""
    doc = json.loads(path.read_text())
    return {k: v[PROFILE]["runtime_s"] for k, v in doc["by_config"].items()}


def error_stats(errs: list[float]) -> dict[str, float]:
    """MAPE, mean signed error and the worst of ``errs`` (predicted / measured - 1)."""
    return {
        "n": len(errs),
        "mape": sum(abs(e) for e in errs) / len(errs),
        "mean_signed": sum(errs) / len(errs),
        "worst": max(errs, key=abs),
    }


def errors_by_kind(predicted: dict[str, float], measured: dict[str, float]) -> dict[str, dict]:
    """Runtime errors of the project's packed and unpacked runs, and of PyTorch's."""
    err = {k: predicted[k] / measured[k] - 1 for k in predicted if k in measured}
    kinds = {
        "project, packed": [
            e for k, e in err.items() if k.startswith("project") and k.endswith(PACK)
        ],
        "project, unpacked": [
            e for k, e in err.items() if k.startswith("project") and not k.endswith(PACK)
        ],
        "torch": [e for k, e in err.items() if k.startswith("torch")],
    }
    return {name: error_stats(errs) for name, errs in kinds.items() if errs}


def speedups(predicted: dict[str, float], measured: dict[str, float]) -> dict[str, tuple]:
    """Unpacked over packed time of each project workload: (measured, predicted)."""
    out = {}
    for k in measured:
        if k.startswith("project") and k.endswith(PACK):
            plain = k.removesuffix(PACK)
            out[plain] = (measured[plain] / measured[k], predicted[plain] / predicted[k])
    return out


def main() -> int:
    """Print both tables from the committed predictions and measurement."""
    pred, meas = committed_predictions(), measured_s()
    print(f"{'runs':20} {'n':>3} {'MAPE':>7} {'mean':>7} {'worst':>7}")
    for name, s in errors_by_kind(pred, meas).items():
        print(f"{name:20} {s['n']:3d} {s['mape']:7.1%} {s['mean_signed']:+7.1%} {s['worst']:+7.1%}")
    print(f"\n{'workload (unpacked id)':70} {'measured':>9} {'predicted':>9}")
    for k, (m, p) in speedups(pred, meas).items():
        print(f"{k:70} {m:8.2f}x {p:8.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
