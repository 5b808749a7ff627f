"""The K/V trace's DRAM bytes, with and without the shared-traffic aging, on the three
long-context sets it has already seen (labelled as seen: not a validation).

    python -m gpusim.reporting.long_context_seen

Per set: MAPE and mean signed error over every ncu-counted run and over those at 64k and
128k tokens, and the worst run. The occupancy (CTAs per SM) of each run is the one its
committed predictions recorded (the engine's, at the time).
"""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.engine.kv_trace_l2 import kv_trace_for, kv_trace_of_record
from gpusim.engine.rates import rates_for
from gpusim.profiles.loader import load_profile
from gpusim.reporting.long_context_dram import PROFILE, ROOT, shared_aging_h200
from gpusim.validation.long_context_compare import DRAM_TARGET_TOKENS, rel_err, summarise
from gpusim.validation.long_context_configs import read_manifest

#: (label, data folder, predictions with each run's CTAs per SM)
SEEN = (
    ("dev", "data/h200/2026-12-02_long_context",
     "reports/long_context/predictions_h200-sxm-calibrated.json"),
    ("heldout1", "data/h200/2026-12-02_long_context_heldout",
     "reports/long_context/heldout/predictions_h200-sxm-calibrated.json"),
    ("heldout2", "data/h200/2026-12-03_long_context_heldout2",
     "reports/long_context/heldout2/predictions_h200-sxm.json"),
    ("heldout3", "data/h200/2026-12-03_long_context_heldout3",
     "reports/long_context/heldout3/predictions_h200-sxm.json"),
    ("heldout4", "data/h200/2026-12-04_long_context_heldout4",
     "reports/long_context/heldout4/predictions_dram_h200-sxm.json"),
)  # fmt: skip
VARIANTS = ("kv_trace", "kv_trace_shared", "kv_trace_mates")


def _engine(pred: dict) -> dict:
    """A run's engine prediction (runtime, CTAs per SM): flat, or under its profile's name."""
    return pred if "ctas_per_sm" in pred else next(iter(pred.values()))


def seen_rows(root: Path = ROOT) -> dict[str, dict[str, list[dict]]]:
    """``{set: {variant: [row, ...]}}`` for :data:`VARIANTS`: all bytes alike, the shared
    aging, and the shared aging with the SM-mates' priority."""
    prof = load_profile(PROFILE)
    out: dict[str, dict[str, list[dict]]] = {}
    for label, folder, preds in SEEN:
        ncu = json.loads((root / folder / "ncu.json").read_text())["by_config"]
        pred = json.loads((root / preds).read_text())["by_config"]
        rows: dict[str, list[dict]] = {k: [] for k in VARIANTS}
        for c in read_manifest(root / folder / "manifest_configs.json"):
            m = ncu.get(c.config_id) or {}
            if not c.ncu or m.get("dram_read_bytes") is None or c.config_id not in pred:
                continue
            meas = m["dram_read_bytes"] + (m.get("dram_write_bytes") or 0)
            rates = rates_for(prof, c.workload.dtype, c.schedule.warps)
            e = _engine(pred[c.config_id])
            cps = e["ctas_per_sm"]
            w, s = c.workload, c.schedule
            mates = kv_trace_of_record(w, s, rates, cps, e["runtime_s"]).result
            for k, t in (("kv_trace", kv_trace_for(w, s, rates, cps)),
                         ("kv_trace_shared", kv_trace_for(w, s, rates, cps, shared_aging_h200())),
                         ("kv_trace_mates", mates)):  # fmt: skip
                p = t.dram_read_bytes + t.dram_write_bytes
                row = {"id": c.config_id, "tokens": c.workload.seq_len_k, "measured": meas}
                rows[k].append(row | {"predicted": p, "err": rel_err(p, meas)})
        out[label] = rows
    return out


def main() -> int:
    """Print the table."""
    for label, rows in seen_rows().items():
        for k, rs in rows.items():
            s = summarise(rs)
            t = summarise([r for r in rs if r["tokens"] in DRAM_TARGET_TOKENS])
            w = s["worst"][0]
            tail = "64k/128k -"
            if t["n"]:
                tail = f"64k/128k n {t['n']:2d} MAPE {100 * t['mape']:5.1f}"
                tail += f" mean {100 * t['mean_signed']:+6.1f}"
            head = f"{label:9} {k:16} n {s['n']:2d} MAPE {100 * s['mape']:5.1f}"
            head += f" mean {100 * s['mean_signed']:+6.1f}"
            print(f"{head} | {tail} | worst {100 * w['err']:+6.1f} {w['id']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
