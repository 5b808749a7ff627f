"""The cta_phase record beside the SM core model's replay of the same loops.

    python -m gpusim.calibrate.cta_phase_check --record FILE --loops LOOP_PATHS [--profile P]

For each row of a :mod:`gpusim.calibrate.cta_phase` record (a loop, 2 or 4 CTAs per SM,
the CTAs entering it some cycles apart) the replay of the loop's SASS
(``python -m gpusim.kernels.overlap_loops --kernel cta_phase``) with the CTAs entering at
the offsets the H200 recorded, with all of them entering together (aligned), and averaged
over every offset (:func:`gpusim.engine.core_model.resident_step_cycles`, the model of
record). Per loop and CTA count it also prints how far the measured cycles move across the
offsets: a spread near 0 says the SM draws its CTAs into one phase, whatever they entered
at; a spread like the replay's says it keeps the offset.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from gpusim.engine.core_model import CoreTiming, Instr, resident_step_cycles, step_cycles
from gpusim.profiles.loader import load_profile

TRIPS = 30  # replayed iterations per CTA (the first is warm-up): offsets persist in the replay


def _per_iteration(path: list[Instr]) -> int:
    """Loop iterations per replayed trip: the compiler may unroll; one barrier per iteration."""
    return max(1, sum(i.op == "BAR" for i in path))


def rows(record: dict[str, Any], loops: dict[str, list], timing: CoreTiming) -> list[dict]:
    """Every multi-CTA row with the replay at its offsets, aligned and averaged."""
    out = []
    for r in record["rows"]:
        if r["ctas_per_sm"] < 2:
            continue
        key = f"cta_phase<{r['nld']},{r['mma_per_ld']},{r['nmma_reg']},{r['rounds']}>"
        path = [Instr.from_row(x) for x in loops[key]]
        per, ctas, warps = _per_iteration(path), r["ctas_per_sm"], record["threads"] // 32
        starts = (0.0, *(max(0.0, float(o)) for o in r["entry_offsets_cycles"]))
        at = step_cycles(path, ctas, warps, timing, trips=TRIPS, start_cycles=starts) / per
        aligned = step_cycles(path, ctas, warps, timing, trips=TRIPS) / per
        averaged = resident_step_cycles(path, ctas, warps, timing) / per
        out.append({"loop": key, "ctas": ctas, "fraction": r["fraction"],
                    "offsets": r["entry_offsets_cycles"], "measured": r["cycles_per_iteration"],
                    "at_offsets": at, "aligned": aligned, "averaged": averaged})  # fmt: skip
    return out


def spreads(table: list[dict]) -> list[dict]:
    """Per loop and CTA count: how much the measured and replayed cycles move with the offset
    (max / min - 1 over the fractions)."""
    groups: dict[tuple, list[dict]] = {}
    for t in table:
        groups.setdefault((t["loop"], t["ctas"]), []).append(t)
    out = []
    for (loop, ctas), g in groups.items():
        m = [t["measured"] for t in g]
        a = [t["at_offsets"] for t in g]
        out.append({"loop": loop, "ctas": ctas, "measured_spread": max(m) / min(m) - 1,
                    "replay_spread": max(a) / min(a) - 1})  # fmt: skip
    return out


def errors(table: list[dict]) -> dict[str, dict[str, float]]:
    """Mean absolute and mean signed error of each replay against the measured cycles."""
    out = {}
    for k in ("at_offsets", "aligned", "averaged"):
        e = [t[k] / t["measured"] - 1 for t in table]
        out[k] = {"mape": statistics.mean(abs(x) for x in e), "mean": statistics.mean(e),
                  "worst": max(e, key=abs)}  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", type=Path, required=True)
    ap.add_argument("--loops", type=Path, required=True, help="loop_paths_sm90.json of cta_phase")
    ap.add_argument("--profile", default="h200-sxm-core")
    a = ap.parse_args(argv)
    record = json.loads(a.record.read_text())
    loops = json.loads(a.loops.read_text())["loops"]
    timing = CoreTiming.from_profile(load_profile(a.profile))
    if timing is None:
        ap.error(f"profile {a.profile} has no sass_core_cycles")
    table = rows(record, loops, timing)
    print("| loop | CTAs | offset | entered | measured | replay at offsets | aligned | averaged |")
    print("|---|---|---|---|---|---|---|---|")
    for t in table:
        m = t["measured"]
        print(f"| {t['loop']} | {t['ctas']} | {t['fraction']:.2f} | {t['offsets']} | {m:.0f} | "
              f"{t['at_offsets']:.0f} ({t['at_offsets'] / m - 1:+.1%}) | "
              f"{t['aligned']:.0f} ({t['aligned'] / m - 1:+.1%}) | "
              f"{t['averaged']:.0f} ({t['averaged'] / m - 1:+.1%}) |")  # fmt: skip
    print("\n| loop | CTAs | measured spread over offsets | replay spread |\n|---|---|---|---|")
    for s in spreads(table):
        print(f"| {s['loop']} | {s['ctas']} | {s['measured_spread']:.1%} | "
              f"{s['replay_spread']:.1%} |")  # fmt: skip
    print("\n| replay | MAPE | mean | worst |\n|---|---|---|---|")
    for k, e in errors(table).items():
        print(f"| {k} | {e['mape']:.1%} | {e['mean']:+.1%} | {e['worst']:+.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
