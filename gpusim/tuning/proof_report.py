"""Predictions for a recorded proof run, and the report of the figures.

The measured file (``python -m gpusim.tuning.proof_measure`` on the GPU) is never edited. The
model's predictions for the same workloads and schedules go in a second file,
with the commit and date of the model that made them, so the CPU test can
recompute the figures in milliseconds and a model change shows as a diff::

    python -m gpusim.tuning.proof_report predict   # writes the predictions file (slow)
    python -m gpusim.tuning.proof_report report    # figures -> JSON summary + Markdown
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
from pathlib import Path

from gpusim import atomic
from gpusim.data.layout import REPO_ROOT, REPORTS_DIR, TUNING_NVCC
from gpusim.parallel_map import pmap
from gpusim.profiles.loader import load_profile
from gpusim.schedule import Schedule
from gpusim.tuning import proof
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

REPORTS = REPORTS_DIR / "tuning"
MEASURED = TUNING_NVCC / "h200_tuning_proof.json"
PREDICTED = REPORTS / "h200_tuning_predictions.json"
SUMMARY = REPORTS / "h200_tuning_proof_summary.json"
MARKDOWN = REPORTS / "h200_tuning_proof.md"
#: What the predictions depend on: a change here without a commit makes them "+dirty".
MODEL_PATHS = (
    "algorithms",
    "gpusim/engine",
    "gpusim/tuning",
    "gpusim/occupancy.py",
    "gpusim/counting.py",
    "hardware_profiles",
    "data/sm90/2026-11-30_kernels_build",
)


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO_ROOT), *args],
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    ).stdout.strip()


def model_commit() -> str:
    """HEAD, with ``+dirty`` when the model's code differs from it (predictions depend on it)."""
    try:
        dirty = _git("status", "--porcelain", "--untracked-files=no", *MODEL_PATHS)
        return _git("rev-parse", "HEAD") + ("+dirty" if dirty else "")
    except (subprocess.SubprocessError, OSError):
        return "unknown"


def predict_record(
    record: dict,
    jobs: int | None = None,
    profile_name: str | None = None,
    measured: Path = MEASURED,
) -> dict:
    """The current model's runtime for every schedule of every workload in ``record``.

    ``profile_name`` (default: the record's, the profile the GPU run named) may be the
    calibrated profile of the same GPU: the tuner judged with microbenchmark rates.
    """
    name = profile_name or record["profile"]
    profile = load_profile(name)

    def one(entry: dict) -> dict:
        w = Workload(**entry["workload"])
        res = tune("flash2", w, profile, jobs=1, caps=False)  # as measured: every CTA that fits
        times = {c.schedule: c.runtime_s for c in res.candidates}
        reasons = {r.schedule: r.reason for r in res.rejected}
        rows = []
        for row in entry["schedules"]:
            s = Schedule.from_record(row["schedule"])
            rows.append(
                {"schedule": row["schedule"], "predicted_s": times.get(s), "reason": reasons.get(s)}
            )
        return {"workload": entry["workload"], "schedules": rows}

    return {
        "kind": "gpusim tuning proof predictions",
        # relative to the repository: the run these predictions are judged against
        "measured_file": _relative(measured),
        "profile": name,
        "model_commit": model_commit(),
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "workloads": pmap(one, record["workloads"], jobs),
    }


def _relative(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(REPO_ROOT))
    except ValueError:
        return Path(path).name


def with_predictions(record: dict, predictions: dict) -> dict:
    """``record`` with each schedule's ``predicted_s`` taken from ``predictions``."""
    table = {
        (json.dumps(e["workload"], sort_keys=True), json.dumps(r["schedule"], sort_keys=True)): r[
            "predicted_s"
        ]
        for e in predictions["workloads"]
        for r in e["schedules"]
    }
    out = dict(record)
    out["workloads"] = []
    for e in record["workloads"]:
        wkey = json.dumps(e["workload"], sort_keys=True)
        rows = [
            r | {"predicted_s": table.get((wkey, json.dumps(r["schedule"], sort_keys=True)))}
            for r in e["schedules"]
        ]
        out["workloads"].append(e | {"schedules": rows})
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def markdown(
    figures: list[proof.WorkloadProof], summary: dict, provenance: dict, predicted_by: str = "?"
) -> str:
    """The figures as a Markdown table with the targets and the provenance."""
    lines = [
        "# Tuner against the H200",
        "",
        f"GPU: {provenance.get('gpu_name', '?')}, measured {provenance.get('date_utc', '?')} at "
        f"commit {provenance.get('git_commit', '?')}.",
        "",
        f"Predictions: model at commit {predicted_by}. Schedules: the kernel instances the "
        "tuner finds feasible and that were measured; the loss against every measured "
        "instance (the tuner's rejections too) is beside it. Rule losses: the rule's tile, "
        "snapped to the nearest runnable tile, with the warps and stages the model ranks "
        "best for it, measured.",
        "",
        "| workload | schedules | tuner's choice | measured best | tuner loss "
        "| loss vs every instance | Spearman | paper rule loss | seed rule loss |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for p in figures:
        w = p.workload

        def tile(s: Schedule) -> str:
            return f"{s.block_m}x{s.block_n} w{s.warps} s{s.stages}"

        lines.append(
            f"| B{w.batch} H{w.heads} N{w.seq_len_q} d{w.head_dim}"
            f"{' causal' if w.causal else ''} | {p.schedules} | {tile(p.tuner_choice)} "
            f"| {tile(p.measured_best)} | {_pct(p.tuner_loss)} | {_pct(p.tuner_loss_vs_all)} "
            f"| {p.spearman:.2f} "
            f"| {_pct(p.rule_loss['paper'])} | {_pct(p.rule_loss['seed'])} |"
        )
    lines += [
        "",
        f"Within 5% of the measured best: {summary['within_5pct']} of {summary['workloads']} "
        f"(target: 7 of 8); within 3%: {summary['within_3pct']}; lowest Spearman "
        f"{summary['min_spearman']:.2f} (target 0.8). Targets met: {summary['passes']}.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``predict``: write the predictions file; ``report``: write the summary and Markdown."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("predict", "report"))
    ap.add_argument("--measured", type=Path, default=MEASURED)
    ap.add_argument("--predictions", type=Path, default=PREDICTED)
    ap.add_argument("--profile", default=None, help="profile of the predictions (predict)")
    ap.add_argument("--summary", type=Path, default=SUMMARY, help="summary JSON (report)")
    ap.add_argument("--markdown", type=Path, default=MARKDOWN, help="Markdown table (report)")
    args = ap.parse_args(argv)
    record = proof.load(args.measured)
    if args.what == "predict":
        atomic.write_text(
            args.predictions,
            json.dumps(
                predict_record(record, profile_name=args.profile, measured=args.measured),
                indent=1,
            )
            + "\n",
        )
        print(args.predictions)
        return 0
    summary = write_report(args.measured, args.predictions, args.summary, args.markdown)
    print(json.dumps(summary))
    return 0


def write_report(
    measured: Path, predictions: Path, summary_path: Path, markdown_path: Path
) -> dict:
    """Write the proof's summary JSON and Markdown table from a measured record and its
    predictions (no simulation); the summary."""
    record = proof.load(measured)
    preds = proof.load(predictions)
    figures = proof.evaluate(with_predictions(record, preds))
    summary = proof.summary(figures)
    atomic.write_text(
        summary_path,
        json.dumps({"summary": summary, "workloads": [p.to_dict() for p in figures]}, indent=1)
        + "\n",
    )
    atomic.write_text(
        markdown_path,
        markdown(figures, summary, record.get("provenance", {}), preds.get("model_commit", "?")),
    )
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
