"""The SM core model's cycles per step for every committed loop, worked out once and committed.

Replaying a loop averaged over the co-resident CTAs' phases (:func:`resident_step_cycles`)
takes 1-3 s per instance and CTA count, too slow for a tuner that weighs 20-40 schedules
in a few seconds. The replay depends only on the committed loop paths
(``loop_paths.json.gz``), the CTA count and the profile's measured core cycles, so its
results are kept beside the loop paths, with the cycles they were replayed with. A
lookup answers only for exactly those cycles; any other profile replays. A test replays
a sample of the entries and requires them equal, so a change to the model without
regenerating the table fails there.

Regenerate with ``python -m gpusim.engine.core_table`` (a few minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path

from gpusim import atomic
from gpusim.engine.core_model import PHASES, CoreTiming, resident_step_cycles
from gpusim.kernel_catalog.loop_counts import LOOP_COUNTS, loop_path

TABLE = LOOP_COUNTS.with_name("core_step_cycles.json")
#: The profile whose measured cycles the committed table is replayed with.
PROFILE = "h200-sxm-core"


def entry_key(instance: str, ctas: int) -> str:
    return f"{instance}@{ctas}"


def timing_key(cycles: dict[str, float], smem_bytes_per_clk: float, schedulers: int) -> dict:
    """What the replay's timing is made of, as the table records it."""
    return {
        "cycles": dict(sorted(cycles.items())),
        "smem_bytes_per_clk": smem_bytes_per_clk,
        "schedulers": schedulers,
    }


@functools.cache
def _table() -> dict | None:
    if not TABLE.exists():
        return None
    return json.loads(TABLE.read_text())


def lookup(
    instance: str, ctas: int, cycles: dict[str, float], smem_bytes_per_clk: float, schedulers: int
):
    """The committed cycles per step, or None when the table has no entry replayed with
    these cycles, schedulers and this phase count."""
    t = _table()
    if t is None or t["phases"] != PHASES:
        return None
    if t["timing"] != timing_key(cycles, smem_bytes_per_clk, schedulers):
        return None
    return t["step_cycles"].get(entry_key(instance, ctas))


def cycles_per_step(
    instance: str,
    ctas: int,
    warps: int,
    cycles: dict[str, float],
    smem_bytes_per_clk: float,
    schedulers: int,
) -> float | None:
    """The core model's cycles per step: the committed replay where it was made with these
    cycles, else a replay now; None for an instance without a committed loop. The table is
    asked first, as reading the loop paths costs a process 0.3 s."""
    known = lookup(instance, ctas, cycles, smem_bytes_per_clk, schedulers)
    if known is not None:
        return known
    if loop_path(instance) is None:
        return None
    timing = CoreTiming.from_cycles(cycles, smem_bytes_per_clk, schedulers)
    return replay((instance, ctas, warps), timing)


def launches(profile) -> list[tuple[str, int, int]]:
    """(instance, CTAs per SM, warps per CTA) for every committed loop at every CTA count the
    profile can hold it at (launch caps included), with the instance's compiled registers."""
    from gpusim.kernel_catalog.compiled import compiled_footprints
    from gpusim.kernel_catalog.instances import all_instances
    from gpusim.occupancy import occupancy

    compiled = compiled_footprints(profile.compute_capability)
    out = []
    for inst in all_instances():
        if inst.key not in compiled or loop_path(inst.key) is None:
            continue
        regs = compiled[inst.key].registers
        occ = occupancy(profile, inst.smem_bytes, inst.threads, regs, None)
        out += [(inst.key, c, inst.warps) for c in range(1, occ.ctas_per_sm + 1)]
    return out


def replay(item: tuple[str, int, int], timing: CoreTiming) -> float:
    key, ctas, warps = item
    return resident_step_cycles(list(loop_path(key)), ctas, warps, timing)


def build(jobs: int | None = None) -> dict:
    from gpusim.parallel_map import pmap
    from gpusim.profiles.loader import load_profile

    profile = load_profile(PROFILE)
    c = profile.sass_core_cycles.value
    bw = profile.smem_bandwidth_bytes_per_clk_per_sm.value
    scheds = profile.warp_schedulers_per_sm.value
    timing = CoreTiming.from_cycles(c, bw, scheds)
    items = launches(profile)
    cycles = pmap(functools.partial(replay, timing=timing), items, jobs=jobs)
    return {
        "what": "SM core model cycles per step of every resident CTA "
        "(gpusim.engine.core_model.resident_step_cycles), per instance@CTAs per SM",
        "profile": PROFILE,
        "phases": PHASES,
        "timing": timing_key(c, bw, scheds),
        "step_cycles": {entry_key(k, n): v for (k, n, _w), v in zip(items, cycles, strict=True)},
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=TABLE)
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()
    table = build(args.jobs)
    atomic.write_text(args.out, json.dumps(table, indent=1) + "\n")
    print(f"{args.out}: {len(table['step_cycles'])} entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
