"""How much the tuning proof's measurement moves between two runs (no GPU).

    python -m gpusim.tuning.proof_repeatability

Per workload of the two committed nvcc-built runs (data/h200/2026-11-30_tuning_nvcc and
..._nvcc_repeat): the Spearman rank correlation of their times, whether they name the same
best schedule (and what the second's costs by the first's times), and the median and
largest relative difference of a schedule's time.
"""

from __future__ import annotations

import json
import statistics

from gpusim.data.layout import TUNING_NVCC, TUNING_NVCC_REPEAT
from gpusim.tuning.proof import spearman

RUNS = (
    TUNING_NVCC / "h200_tuning_proof.json",
    TUNING_NVCC_REPEAT / "h200_tuning_proof.json",
)


def _times(entry: dict) -> dict[str, float]:
    return {
        json.dumps(r["schedule"], sort_keys=True): r["measured_s"]
        for r in entry["schedules"]
        if r["measured_s"]
    }


def compare(first: dict, second: dict) -> list[dict]:
    """One row per workload the two runs share."""
    out = []
    for a, b in zip(first["workloads"], second["workloads"], strict=True):
        ta, tb = _times(a), _times(b)
        keys = sorted(set(ta) & set(tb))
        diffs = [abs(tb[k] / ta[k] - 1) for k in keys]
        out.append({
            "workload": a["workload"],
            "spearman": spearman([ta[k] for k in keys], [tb[k] for k in keys]),
            "same_best": min(keys, key=ta.get) == min(keys, key=tb.get),
            # the second run's best, timed by the first, over the first's best
            "best_loss": ta[min(keys, key=tb.get)] / min(ta.values()) - 1,
            "median_diff": statistics.median(diffs),
            "max_diff": max(diffs),
        })  # fmt: skip
    return out


def main() -> int:
    """Print one line per workload: rank correlation, best schedule, time differences."""
    first, second = (json.loads(p.read_text()) for p in RUNS)
    for r in compare(first, second):
        w = r["workload"]
        print(
            f"d{w['head_dim']} N{w['seq_len_q']} {'causal' if w['causal'] else 'full':6s} "
            f"Spearman {r['spearman']:.3f}  same best: {r['same_best']} "
            f"(loss {r['best_loss']:.2%})  "
            f"median diff {r['median_diff']:.2%}  max {r['max_diff']:.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
