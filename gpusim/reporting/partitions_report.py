"""The SM-partition comparison written out: ``compare.json`` and a Markdown table of it.

``compare.md`` has, per profile: MAPE, mean signed error and the worst run of the model,
the roofline and the constant-efficiency baseline, per kernel over the target's range (8 to
72 SMs) and per partition size; then every run's measured and predicted time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.api import load_profile
from gpusim.errors import GpusimError
from gpusim.validation.partition_configs import PartitionConfig
from gpusim.validation.partitions_compare import compare
from gpusim.validation.store import RecordStore

METHODS = ("model", "roofline", "constant_efficiency")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:+.1f} %"


def _abs_pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def _worst(s: dict[str, Any]) -> str:
    if not s.get("worst"):
        return "-"
    w = s["worst"][0]
    return f"{_pct(w['err'])} ({w['id'].split('_m')[0]})"


def markdown(doc: dict[str, Any]) -> str:
    """The comparison's tables."""
    out = []
    for name, per in doc["profiles"].items():
        head = " | ".join(f"{m} MAPE | {m} mean" for m in METHODS)
        rule = "|---|---|---|" + "---|---|" * len(METHODS) + "---|"
        out += [f"## {name}", "", f"| kernel | SMs | n | {head} | model worst |", rule]
        for kernel in ("project", "torch"):
            parts = [("8-72", "target_range")] + [
                (n, None) for n in per["model"][kernel]["by_sm_count"]
            ]
            for label, key in parts:
                cells = []
                for m in METHODS:
                    k = per[m][kernel]
                    s = k[key] if key else k["by_sm_count"].get(label, {})
                    cells += [_abs_pct(s.get("mape")), _pct(s.get("mean_signed"))]
                k = per["model"][kernel]
                s = k[key] if key else k["by_sm_count"][label]
                out.append(f"| {kernel} | {label} | {s['n']} | " + " | ".join(cells)
                           + f" | {_worst(s)} |")  # fmt: skip
        both = per["both_kernels_target_range"]
        out.append(
            f"| both | 8-72 | {both['model']['n']} | "
            + " | ".join(
                f"{_abs_pct(both[m]['mape'])} | {_pct(both[m]['mean_signed'])}" for m in METHODS
            )
            + f" | {_worst(both['model'])} |"
        )
        slow = per["slowdown_vs_132"]
        out += ["", "The slowdown from 132 SMs, predicted over measured (each partitioned run "
                "against the same kernel and workload on 132 SMs): " + "; ".join(
                f"{k} MAPE {_abs_pct(v['mape'])}, mean {_pct(v['mean_signed'])}, worst "
                f"{_worst(v)}" for k, v in slow.items())]  # fmt: skip
        eff = per["efficiency"]
        out += ["", "Constant efficiency (roofline / measured at the reference shape, 132 SMs): "
                + ", ".join(f"{k} {v['efficiency']:.3f}" for k, v in eff.items())]  # fmt: skip
        if per["sm_mismatch"]:
            out.append(f"Partitions granted another SM count: {per['sm_mismatch']}")
        if per["missing"]:
            out.append(f"Without a measured/predicted pair: {per['missing']}")
        out += ["", "| run | measured ms | predicted ms | error | bound |", "|---|---|---|---|---|"]
        for r in per["rows"]:
            out.append(
                f"| {r['id']} | {r['measured'] * 1e3:.4f} | {r['predicted'] * 1e3:.4f} | "
                f"{_pct(r['err'])} | {r.get('bound')} |"
            )
        out.append("")
    return "\n".join(out)


def write_comparison(
    configs: list[PartitionConfig], measured_dir: Path, predictions_path: Path, out_dir: Path
) -> list[Path]:
    """Compare the measured folder with the predictions; the files written."""
    try:
        predictions = json.loads(Path(predictions_path).read_text())
    except (OSError, ValueError) as exc:
        raise GpusimError(f"cannot read the predictions {predictions_path}: {exc}") from exc
    sweep = Path(measured_dir) / "sweep.jsonl"
    if not sweep.exists():
        raise GpusimError(f"{measured_dir} has no sweep.jsonl")
    measured = RecordStore(sweep).records
    profiles = {p: load_profile(p) for p in predictions["profiles"]}
    doc = compare(configs, measured, predictions, profiles)
    doc["predictions"] = {
        "file": str(predictions_path),
        "model_commit": predictions.get("model_commit"),
    }
    doc["measured"] = str(measured_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "compare.json", out_dir / "compare.md"]
    atomic.write_text(paths[0], json.dumps(doc, indent=1) + "\n")
    atomic.write_text(paths[1], markdown(doc) + "\n")
    return paths
