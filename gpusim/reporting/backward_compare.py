"""Held-out set 15 compared: the model's backward pass against PyTorch's, beside two baselines.

    python -m gpusim.reporting.backward_compare --manifest M --predictions P --measured DIR \
        [--out FILE]

For each of the backward (``bwd``), the forward (``fwd``) and a training step's attention
(``fwd_bwd``): per run the signed error ``(predicted - measured) / measured`` of the model
(the committed predictions) against the median CUDA-event time, and the set's MAPE, mean
signed error and worst runs, beside

- ``roofline``: launch overhead + the larger of the pass's FLOPs (the papers' convention:
  the backward 10 B H N^2 d, the forward 4 B H N^2 d, halved if causal) at the mma.sync
  peak under tensor load and its compulsory bytes at DRAM bandwidth
  (:meth:`gpusim.workload.Workload.compulsory_bytes`; :func:`gpusim.validation.
  long_context_compare.roofline_s` of the pass);
- ``constant_efficiency``: for the backward, the run's measured forward time scaled by the
  FLOPs (the backward at the forward's efficiency: 2.5 forwards); for the forward and the
  step, the roofline over the median efficiency of the project's validation runs
  (:func:`gpusim.validation.long_context_compare.efficiency_from_dataset`, fixed before).

A run not measured ok (a failed gradient check, an error) is listed as missing, never
dropped silently. Errors are one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.profiles.loader import load_profile
from gpusim.validation.long_context_compare import (
    efficiency_from_dataset,
    rel_err,
    summarise,
)
from gpusim.validation.long_context_compare import roofline_s as long_context_roofline_s
from gpusim.workload import Workload

PASSES = ("bwd", "fwd", "fwd_bwd")
#: The validation dataset whose median efficiency scales the forward's roofline.
VALIDATION_DATASET = Path("data/h200/2026-11-30_validation_dram21/h200-dataset.json")


def roofline_s(w: Workload, pass_: str, profile) -> float:
    """The roofline of ``w`` run as ``pass_`` (``fwd_bwd``: the training step)."""
    return long_context_roofline_s(w.model_copy(update={"pass_": pass_.replace("_", "+")}), profile)


def last_records(path: Path) -> dict[str, dict[str, Any]]:
    """The measured runs of ``runs.jsonl`` by id (the last line of an id wins)."""
    out: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            out[rec["id"]] = rec
    return out


def compare(manifest: dict, predictions: dict, measured: dict[str, dict], profile) -> dict:
    """Rows and summaries per pass and method (see the module docstring)."""
    eff, n_eff = efficiency_from_dataset(VALIDATION_DATASET, profile)
    preds = {p["id"]: p for p in predictions["runs"]}
    rows: dict[str, dict[str, list]] = {p: {} for p in PASSES}
    missing = []
    for run in manifest["runs"]:
        m = measured.get(run["id"])
        if m is None or m.get("status") != "ok":
            why = "not measured" if m is None else m.get("error", m.get("status"))
            missing.append({"id": run["id"], "why": why})
            continue
        w = Workload(**{k: run[k] for k in Workload.model_fields if k in run})
        pred = preds[run["id"]]
        fwd_meas = m["fwd"]["median_s"]
        for p in PASSES:
            t = m[p]["median_s"]
            roof = roofline_s(w, p, profile)
            const = fwd_meas * pred["bwd_flops"] / pred["fwd_flops"] if p == "bwd" else roof / eff
            for method, value in (("model", pred[f"{p}_s"]), ("roofline", roof),
                                  ("constant_efficiency", const)):  # fmt: skip
                row = {"id": run["id"], "measured": t, "predicted": value}
                rows[p].setdefault(method, []).append(row | {"err": rel_err(value, t)})
    summary = {p: {meth: summarise(rs) for meth, rs in r.items()} for p, r in rows.items()}
    return {
        "set": manifest.get("set"),
        "profile": predictions.get("profile"),
        "predictions_commit": predictions.get("commit"),
        "forward_efficiency": {
            "value": eff,
            "from_runs": n_eff,
            "dataset": str(VALIDATION_DATASET),
        },
        "summary": summary,
        "rows": rows,
        "missing": missing,
    }


def _load(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise GpusimError(f"{path}: {e}") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--predictions", type=Path, required=True)
    ap.add_argument("--measured", type=Path, required=True, help="the folder with runs.jsonl")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--baseline-profile",
                    help="the profile the baselines use (default: the predictions'; a "
                    "variant that is no shipped profile names its base)")  # fmt: skip
    args = ap.parse_args(argv)
    try:
        manifest, predictions = _load(args.manifest), _load(args.predictions)
        runs = args.measured / "runs.jsonl"
        if not runs.exists():
            raise GpusimError(f"{runs}: no measured runs")
        base = load_profile(args.baseline_profile or predictions["profile"])
        result = compare(manifest, predictions, last_records(runs), base)
    except GpusimError as e:
        print(f"backward_compare: error: {e}", file=sys.stderr)
        return 2
    for p, by_method in result["summary"].items():
        for method, s in by_method.items():
            if s["n"]:
                mape, mean, worst = (100 * s[k] for k in ("mape", "mean_signed", "max_abs"))
                print(f"{p:8s} {method:20s} n {s['n']:3d}  MAPE {mape:6.1f} %  "
                      f"mean {mean:+6.1f} %  worst {worst:5.1f} %")  # fmt: skip
    for m in result["missing"]:
        print(f"missing {m['id']}: {m['why']}")
    if args.out:
        atomic.write_text(args.out, json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
