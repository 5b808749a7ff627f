"""How much faster does the older of two SM-mates run? (kernels/cta_scatter.cu, on the GPU)

    python -m gpusim.calibrate.mate_gap --out FILE [--loops step]   # on the GPU
    python -m gpusim.calibrate.mate_gap --table FILE
    python -m gpusim.calibrate.mate_gap --record FILE --profile PROFILE.yaml   # sets the ratios

The cta_scatter loops (tile copies, ldmatrix feeding mma.sync, a barrier; no attention code) at
two CTAs per SM, with the products per load of a 16-row warp tile (2 per ldmatrix) and of a
32-row one (4 per ldmatrix, as a 128-row tile of four warps has), at two step sizes. Per loop,
from the first wave: on how many SMs the CTA launched first ends first, and the older and
younger mates' durations. Why: the project's 128 x 64 kernel's older mate runs about 10 %
faster than the younger on an H100 and its 64 x 64 one's does not
(data/h100/2026-12-06_cta_stamps, a diagnostic); the engine's SM-mate priority comes from
kv_walk_drift and is weak. A step-dependent priority needs numbers from a loop like this one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.engine.mate_age import FIELD

#: (name, NLD, MMA_PER_LD, NFILL, source MiB): 16-row and 32-row warp tiles, two sizes each
LOOPS = (
    ("rows16", 32, 2, 8, 8),
    ("rows32", 16, 4, 8, 8),
    ("rows16_big", 64, 2, 16, 8),
    ("rows32_big", 32, 4, 16, 8),
)


#: mate_step.cu's loops (``--loops step``): the same copies, ldmatrix and products at each warp
#: tile's products per load, then a softmax pass over the accumulators before the barrier,
#: four products per exponential at both (an attention step's proportion)
STEP_LOOPS = (
    ("step16", 32, 2, 8, 8),
    ("step32", 16, 4, 8, 8),
)
#: mate_wide.cu's loops (``--loops wide``): mate_step's with room for 255 registers a thread,
#: at the score floats a thread of each two-CTA tile of the project's kernel holds (32: 128 x 32
#: and 64 x 64; 64: 128 x 64); a look at which of them has the older-mate head start, keyed by
#: score floats, not a warp's rows, so no profile field comes from it (:func:`ratios` refuses it)
WIDE_LOOPS = (
    ("floats32_x4", 32, 4, 8, 8),
    ("floats32_x2", 64, 2, 8, 8),
    ("floats64_x4", 64, 4, 8, 8),
)
#: each family of loops: (its loops, the kernel whose source runs them)
FAMILIES = {"products": (LOOPS, "cta_scatter"), "step": (STEP_LOOPS, "mate_step"),
            "wide": (WIDE_LOOPS, "mate_wide")}  # fmt: skip


def first_wave(launch: dict[str, Any], slots: int) -> dict[str, Any]:
    """Older-first count and the mates' median durations (us) in a launch's first wave."""
    sm, st, en = launch["smid"], launch["start_ns"], launch["end_ns"]
    by: dict[int, list[int]] = {}
    for i in range(min(slots, len(sm))):
        by.setdefault(sm[i], []).append(i)
    pairs = [sorted(v) for v in by.values() if len(v) == 2]
    older = [(en[a] - st[a]) / 1e3 for a, _ in pairs]
    younger = [(en[b] - st[b]) / 1e3 for _, b in pairs]
    return {"sms": len(pairs), "older_first": sum(en[a] < en[b] for a, b in pairs),
            "older_us": statistics.median(older),
            "younger_us": statistics.median(younger)}  # fmt: skip


#: Rows of a warp's tile each loop's products stand for (products per ldmatrix: 2 for a 16-row
#: warp tile, 4 for a 32-row one, as :data:`LOOPS` says)
ROWS_BY_MMA_PER_LD = {2: 16, 4: 32}
#: The profile field the ratios go after: the SM-mates' drift
_AFTER = "sm_mate_priority"


def ratios(doc: dict[str, Any]) -> dict[str, list[list[float]]]:
    """``{CTAs per SM: [[rows per warp, younger/older], ...]}``: each warp tile's first-wave
    ratio, the mean over its loops' sizes and repeats (every launch of the record counts)."""
    slots = doc["sm_count"] * doc["ctas_per_sm"]
    by: dict[int, list[float]] = {}
    if family(doc) == "mate_wide":
        raise ValueError("mate_wide's loops are keyed by score floats, not a warp's rows")
    names = {name for name, *_ in LOOPS + STEP_LOOPS}
    for la in doc["launches"]:
        if la["loop"] not in names:
            continue  # cta_scatter's own loops (its record's): not a warp tile of the table
        rows = ROWS_BY_MMA_PER_LD[la["mma_per_ld"]]
        f = first_wave(la, slots)
        by.setdefault(rows, []).append(f["younger_us"] / f["older_us"])
    if not by:
        raise ValueError("the record has no mate_gap loops (mma_per_ld 2 or 4)")
    rows = [[float(r), round(statistics.fmean(v), 4)] for r, v in sorted(by.items())]
    return {str(doc["ctas_per_sm"]): rows}


def family(doc: dict[str, Any]) -> str:
    """Which kernel's loops a record ran: cta_scatter's products, mate_step's or mate_wide's."""
    first = doc["launches"][0]["loop"]
    for fam, (loops, kernel) in FAMILIES.items():
        if fam != "products" and first in {name for name, *_ in loops}:
            return kernel
    return "cta_scatter"


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with the record's ratios set after its SM-mates' drift."""
    from gpusim.calibrate.profile_patch import set_after

    entry = {
        "value": ratios(doc),
        "source": f"measured on {doc['gpu']}, {doc['date']}, python -m "
        f"gpusim.calibrate.mate_gap ({record_path})",
        "note": f"first wave of the {family(doc)} loops at two CTAs per SM: the younger "
        "SM-mate's median duration over the older's, by the rows of a warp's tile (2 or 4 "
        "mma.sync per ldmatrix), the mean over the loops and repeats",
    }
    return set_after(profile_text, _AFTER, {FIELD: entry}, f"# SM-mates' first wave: {record_path}")


def table(doc: dict[str, Any]) -> str:
    slots = doc["sm_count"] * doc["ctas_per_sm"]
    lines = ["loop | repeat | SMs | older ends first | older us | younger us | younger/older"]
    for la in doc["launches"]:
        f = first_wave(la, slots)
        lines.append(f"{la['loop']} | {la['repeat']} | {f['sms']} | {f['older_first']} | "
                     f"{f['older_us']:.1f} | {f['younger_us']:.1f} | "
                     f"{f['younger_us'] / f['older_us']:.3f}")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    ap.add_argument("--loops", choices=sorted(FAMILIES), default="products",
                    help="products: cta_scatter's; step, wide: with a softmax")  # fmt: skip
    ap.add_argument("--record", type=Path, help="a run's JSON to set in --profile")
    ap.add_argument("--profile", type=Path, help="the profile YAML to update")
    a = ap.parse_args(argv)
    if a.table:
        print(table(json.loads(a.table.read_text())))
        return 0
    if a.record:
        if a.profile is None:
            ap.error("--record needs --profile")
        try:
            text = apply(a.profile.read_text(), json.loads(a.record.read_text()), str(a.record))
        except (OSError, ValueError, KeyError) as exc:
            print(f"mate_gap: error: {exc}", file=sys.stderr)
            return 2
        atomic.write_text(a.profile, text)
        return 0
    if not a.out:
        ap.error("--out FILE (on the GPU) or --table FILE")
    from gpusim.calibrate import cta_scatter
    from gpusim.calibrate.context import import_cupy, make_context

    loops, kernel = FAMILIES[a.loops]
    doc = cta_scatter.measure(make_context(import_cupy(), quick=False), loops, kernel)
    atomic.write_text(a.out, json.dumps(doc) + "\n")
    print(table(doc), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
