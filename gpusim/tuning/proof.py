"""The tuner against the GPU: figures recomputed from recorded measurements.

Input: the JSON written by ``python -m gpusim.tuning.proof_measure`` (one entry per workload,
each with every feasible schedule's predicted and measured time). Per workload:
the tuner's first choice against the measured best (% loss), the Spearman rank
correlation of predicted and measured times, and the measured loss of the
paper's and seed 000's rules (their tiles snapped as in :mod:`compare`).
Predictions may be the recorded ones or recomputed by the current model.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpusim.profiles.schema import HardwareProfile
from gpusim.schedule import Schedule
from gpusim.tuning.rule_snap import rule_picks
from gpusim.workload import Workload

#: Issue 6's targets: first choice within 5 % of the best in 7 of 8 workloads; Spearman >= 0.8.
TARGET_LOSS = 0.05
TARGET_SPEARMAN = 0.8

#: A prediction function: (workload, schedules) -> predicted seconds per schedule (None: rejected).
Predictor = Callable[[Workload, Sequence[Schedule]], Sequence[float | None]]


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties sharing the mean of their positions (Spearman's convention)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: the Pearson correlation of the ranks (nan if undefined)."""
    if len(a) != len(b):
        raise ValueError(f"lengths differ: {len(a)} and {len(b)}")
    ra, rb = ranks(a), ranks(b)
    n = len(ra)
    if n < 2:
        return float("nan")
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else float("nan")


@dataclass(frozen=True)
class WorkloadProof:
    """The figures for one workload."""

    workload: Workload
    schedules: int
    tuner_choice: Schedule
    measured_best: Schedule
    tuner_loss: float  # measured(tuner's choice) / measured best of the feasible ones - 1
    tuner_loss_vs_all: float  # ... against every measured schedule, the tuner-rejected too
    spearman: float
    rule_loss: dict[str, float]  # rule name -> measured loss of its pick
    rule_choice: dict[str, Schedule]

    def to_dict(self) -> dict:
        """A JSON-ready summary."""
        return {
            "workload": self.workload.model_dump(),
            "schedules": self.schedules,
            "tuner_choice": self.tuner_choice.model_dump(),
            "measured_best": self.measured_best.model_dump(),
            "tuner_loss": self.tuner_loss,
            "tuner_loss_vs_all": self.tuner_loss_vs_all,
            "spearman": self.spearman,
            "rule_loss": self.rule_loss,
            "rule_choice": {k: v.model_dump() for k, v in self.rule_choice.items()},
        }


def evaluate_workload(entry: dict, predict: Predictor | None = None) -> WorkloadProof:
    """Figures for one recorded workload; ``predict`` replaces the recorded predictions."""
    w = Workload(**entry["workload"])
    timed = [r for r in entry["schedules"] if r.get("measured_s") is not None]
    if not timed:
        raise ValueError(f"no measured schedule for {w}")
    all_scheds = [Schedule.from_record(r["schedule"]) for r in timed]
    preds = (
        [r.get("predicted_s") for r in timed] if predict is None else list(predict(w, all_scheds))
    )
    # Schedules the tuner rejects have no prediction: they cannot be its choice.
    keep = [i for i, p in enumerate(preds) if p is not None]
    if not keep:
        raise ValueError(f"no schedule of {w} is both measured and predicted")
    scheds = [all_scheds[i] for i in keep]
    measured = [float(timed[i]["measured_s"]) for i in keep]
    predicted = [float(preds[i]) for i in keep]
    best_meas = min(measured)
    best_any = min(float(r["measured_s"]) for r in timed)
    by_sched = dict(zip(scheds, measured, strict=True))
    tuner = min(range(len(scheds)), key=lambda i: (predicted[i], i))
    picks = rule_picks(w, int(entry["sram_bytes"]), list(zip(scheds, predicted, strict=True)))
    return WorkloadProof(
        workload=w,
        schedules=len(scheds),
        tuner_choice=scheds[tuner],
        measured_best=scheds[measured.index(best_meas)],
        tuner_loss=measured[tuner] / best_meas - 1.0,
        tuner_loss_vs_all=measured[tuner] / best_any - 1.0,
        spearman=spearman(predicted, measured),
        rule_loss={p.rule: by_sched[p.schedule] / best_meas - 1.0 for p in picks},
        rule_choice={p.rule: p.schedule for p in picks},
    )


def evaluate(record: dict, predict: Predictor | None = None) -> list[WorkloadProof]:
    """Figures for every workload of a recorded proof run."""
    return [evaluate_workload(e, predict) for e in record["workloads"]]


def summary(proofs: Sequence[WorkloadProof]) -> dict:
    """Counts against the targets: within 5 %, within 3 %, worst Spearman, and pass/fail."""
    within5 = sum(p.tuner_loss <= TARGET_LOSS for p in proofs)
    within3 = sum(p.tuner_loss <= 0.03 for p in proofs)
    rhos = [p.spearman for p in proofs]
    # A NaN correlation (constant times) is a failure, and min() would skip it.
    min_rho = float("nan") if not rhos or any(r != r for r in rhos) else min(rhos)
    need = len(proofs) - len(proofs) // 8  # 7 of 8, 14 of 16, ...
    return {
        "workloads": len(proofs),
        "within_5pct": within5,
        "within_3pct": within3,
        "min_spearman": min_rho,
        "max_tuner_loss": max((p.tuner_loss for p in proofs), default=float("nan")),
        "passes": bool(proofs) and within5 >= need and min_rho >= TARGET_SPEARMAN,
    }


def model_predictor(profile: HardwareProfile, algorithm: str = "flash2") -> Predictor:
    """Predictions of the current model: the tuner's runtime per schedule, None if it rejects it."""

    from gpusim.tuning.tuner import tune  # late: the tuner pulls in the engine

    def predict(w: Workload, schedules: Sequence[Schedule]) -> list[float | None]:
        times = {
            c.schedule: c.runtime_s for c in tune(algorithm, w, profile, caps=False).candidates
        }
        return [times.get(s) for s in schedules]

    return predict


def load(path: str | Path) -> dict:
    """Read a recorded proof JSON file."""
    return json.loads(Path(path).read_text())
