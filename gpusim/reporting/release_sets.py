"""Held-out sets 22 (SM partitions) and 23 (the tuner), both measured on the lent card beside
set 21: their predictions with the lent card's profile and its ``-release`` variant
(:mod:`gpusim.validation.release_variant`, the mechanism on), and their comparisons.

    python -m gpusim.reporting.release_sets partitions-predict --out FILE
    python -m gpusim.reporting.release_sets partitions-compare --measured DIR --out FILE
    python -m gpusim.reporting.release_sets tuning-predict --out FILE
    python -m gpusim.reporting.release_sets tuning-compare --measured DIR --out FILE

The sets' configurations and rules: :mod:`gpusim.validation.partitions_heldout22`,
:mod:`gpusim.validation.inference_tuning_heldout23`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation.heldout_shapes import error_summary
from gpusim.validation.inference_tuning_heldout23 import PROFILES as TUNING_PROFILES
from gpusim.validation.inference_tuning_heldout23 import heldout23_configs
from gpusim.validation.long_context_configs import LongContextConfig
from gpusim.validation.partition_configs import manifest_doc, read_manifest
from gpusim.validation.partitions_heldout22 import MANIFEST, REFERENCE, TARGET_SMS
from gpusim.validation.partitions_heldout22 import PROFILES as PARTITION_PROFILES

TUNING_PREDICTIONS = Path("reports/inference_tuning_heldout23/predictions.json")
PARTITION_PREDICTIONS = Path("reports/partitions_heldout22/predictions.json")


def lent_card(measured_dir: Path) -> tuple[str, str]:
    """(the GPU a measured set ran on, its profile as the sets' rules judge it: h200-sxm on
    an H200, h100-sxm5 otherwise), from the set's provenance."""
    prov = json.loads((Path(measured_dir) / "provenance.json").read_text())["provenance"]
    gpu = prov.get("gpu_name", "")
    return gpu, "h200-sxm" if "H200" in gpu else "h100-sxm5"


def _by_profile(configs, profiles: tuple[str, ...], predict_one) -> dict[str, dict[str, Any]]:
    """``{config id: {profile: predict_one(config, profile)}}``; a ``-release`` variant with the
    mechanism on, every other profile with it off (as the sets' rules have them)."""
    from gpusim.engine.smem_release import following
    from gpusim.validation.release_variant import SUFFIX, variant_profile

    by: dict[str, dict[str, Any]] = {c.config_id: {} for c in configs}
    for name in profiles:
        variant = name.endswith(SUFFIX)
        profile = variant_profile(name.removesuffix(SUFFIX)) if variant else name
        with following(variant):
            for c in configs:
                by[c.config_id][name] = predict_one(c, profile)
    return by


def predict_partitions(configs) -> dict[str, Any]:
    """Every config on every profile of set 22."""
    from gpusim.reporting.partitions import predict_one
    from gpusim.source_commit import git_commit

    by = _by_profile(configs, PARTITION_PROFILES, predict_one)
    return {"kind": "gpusim.partitions_heldout22.predictions", "model_commit": git_commit(),
            "manifest_configs_sha256": manifest_doc(configs)["configs_sha256"],
            "profiles": list(PARTITION_PROFILES), "by_config": by}  # fmt: skip


def compare_partitions(
    configs,
    measured_dir: Path,
    predictions: dict[str, Any],
    profiles: tuple[str, ...] = PARTITION_PROFILES,
    reference: str = REFERENCE,
) -> dict[str, Any]:
    """Per profile (and the baselines on the lent card's profile), per kernel: the runs on
    8-72 SMs and on 132 SMs; the constant-efficiency baseline's reference is the workload
    ``reference`` on the whole GPU."""
    from gpusim.profiles.loader import load_profile
    from gpusim.validation.partitions_compare import partition_roofline_s
    from gpusim.validation.store import RecordStore

    records = RecordStore(Path(measured_dir) / "sweep.jsonl").records
    ok = {i: r for i, r in records.items() if r.get("status") == "ok"}
    gpu, base = lent_card(measured_dir)
    hw = load_profile(base)
    ref = {c.kernel: partition_roofline_s(c.workload, hw, c.sm_count) / ok[c.config_id]["median_s"]
           for c in configs if reference in c.config_id and c.sm_count == max(c2.sm_count
           for c2 in configs) and c.config_id in ok}  # fmt: skip
    methods: dict[str, Any] = {}
    for name in [*profiles, "roofline", "constant_efficiency"]:
        per: dict[str, list] = {}
        for c in configs:
            m = ok.get(c.config_id)
            if m is None:
                continue
            if name == "roofline":
                pred = partition_roofline_s(c.workload, hw, c.sm_count)
            elif name == "constant_efficiency":
                pred = partition_roofline_s(c.workload, hw, c.sm_count) / ref[c.kernel]
            else:
                pred = predictions["by_config"][c.config_id][name].get("runtime_s")
            if pred is None:
                continue
            span = "8-72" if TARGET_SMS[0] <= c.sm_count <= TARGET_SMS[1] else str(c.sm_count)
            err = pred / m["median_s"] - 1
            per.setdefault(f"{c.kernel} {span}", []).append((c.config_id, err))
        methods[name] = {k: error_summary(v) for k, v in sorted(per.items())}
    return {"gpu": gpu, "judged_profile": base, "measured": str(measured_dir),
            "n_measured": len(ok), "n_configs": len(configs), "methods": methods}  # fmt: skip


def predict_tuning(configs: list[LongContextConfig]) -> dict[str, Any]:
    """Every config on every profile of set 23."""
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.source_commit import git_commit

    by = _by_profile(configs, TUNING_PROFILES, predict_one)
    return {"kind": "gpusim.inference_tuning_heldout23.predictions", "model_commit": git_commit(),
            "profiles": list(TUNING_PROFILES), "by_config": by}  # fmt: skip


def compare_tuning(measured_dir: Path, predictions: dict[str, Any]) -> dict[str, Any]:
    """Per profile: each workload's ranking, the verdict under set 13's target and the runtime
    errors (:mod:`gpusim.reporting.inference_tuning`; a variant ranked as its base profile,
    whose shared memory the fixed rule's snap reads)."""
    from gpusim.reporting.inference_tuning import rankings, runtime_errors, verdict
    from gpusim.validation import long_context_sweep
    from gpusim.validation.release_variant import SUFFIX

    configs = heldout23_configs()
    measured = {r["id"]: r for r in long_context_sweep.records(measured_dir)}
    out: dict[str, Any] = {"measured": str(measured_dir), "profiles": {}}
    for name in predictions["profiles"]:
        base = name.removesuffix(SUFFIX)
        doc = {"by_config": {k: {base: v[name]} for k, v in predictions["by_config"].items()}}
        ranked = rankings(configs, measured, doc, base)
        out["profiles"][name] = {"verdict": verdict(ranked), "runtime": runtime_errors(ranked),
                                 "workloads": ranked}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    """Predict or compare set 22 (partitions) or set 23 (tuning); a bad input is one line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cmd", choices=("partitions-predict", "partitions-compare",
                                    "tuning-predict", "tuning-compare"))  # fmt: skip
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--measured", type=Path)
    ap.add_argument("--predictions", type=Path, default=None)
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    a = ap.parse_args(argv)
    if a.cmd.endswith("-compare") and (a.measured is None or not a.measured.is_dir()):
        ap.error(f"{a.cmd} needs --measured DIR, a folder of measured runs")
    try:
        if a.cmd == "partitions-predict":
            doc = predict_partitions(read_manifest(a.manifest))
        elif a.cmd == "partitions-compare":
            preds = json.loads((a.predictions or PARTITION_PREDICTIONS).read_text())
            doc = compare_partitions(read_manifest(a.manifest), a.measured, preds)
        elif a.cmd == "tuning-predict":
            doc = predict_tuning(heldout23_configs())
        else:
            preds = json.loads((a.predictions or TUNING_PREDICTIONS).read_text())
            doc = compare_tuning(a.measured, preds)
    except (OSError, ValueError, KeyError, GpusimError) as exc:
        print(f"release_sets: error: {exc}", file=sys.stderr)
        return 2
    atomic.write_text(a.out, json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
