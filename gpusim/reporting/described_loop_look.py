"""A look (judges nothing): the core model's replay of a described loop against the compiled.

    python -m gpusim.reporting.described_loop_look [--profile h200-sxm-core] [--jobs 2]

For every ``tc_`` instance of the committed compiled loops (``loop_paths.json.gz``) at every
CTA count per SM the profile holds it at (:func:`gpusim.engine.core_table.launches`): the
SM core model's cycles per step (:func:`gpusim.engine.core_model.resident_step_cycles`) of
the step :mod:`gpusim.kernel_catalog.described_loop` writes from the tile description over
those of the compiled step (the committed table's where it was replayed with these cycles).
Model against model on loops already seen: no GPU, no attention timing. Also the
instruction counts by class, described over compiled. Printed per instance, then by block
n, head dim, stages and CTAs, and the mean, mean absolute deviation from 1 and worst.
"""

from __future__ import annotations

import argparse
import functools
import statistics
from collections import Counter, defaultdict

from gpusim.engine import core_table
from gpusim.engine.core_model import CoreTiming, resident_step_cycles
from gpusim.kernel_catalog.described_loop import described_path
from gpusim.kernel_catalog.loop_counts import loop_path, loop_paths_table
from gpusim.parallel_map import pmap
from gpusim.profiles.loader import load_profile

#: Opcode classes the counts are compared by (anything else: "int", integer, predicate,
#: uniform and branch work).
CLASSES = {
    "HMMA": "HMMA", "LDSM": "LDSM", "MUFU": "MUFU", "SHFL": "SHFL", "FMNMX": "FMNMX",
    "FFMA": "FFMA", "FADD": "FADD", "FMUL": "FMUL", "F2FP": "F2FP", "FSETP": "FSETP/FSEL",
    "FSEL": "FSETP/FSEL", "LDGSTS": "LDGSTS", "BAR": "sync", "DEPBAR": "sync",
    "LDGDEPBAR": "sync", "LDS": "other mem", "LDL": "other mem", "STL": "other mem",
    "LDC": "other mem", "S2R": "other mem",
}  # fmt: skip
CLASS_ORDER = ("HMMA", "LDSM", "MUFU", "SHFL", "FMNMX", "FFMA", "FADD", "FMUL", "F2FP",
               "FSETP/FSEL", "LDGSTS", "int", "sync", "other mem")  # fmt: skip


def shape(key: str) -> tuple[str, int, int, int, int, int]:
    """(dtype, head dim, block m, block n, warps, stages) of ``tc_bf16_d128_m128_n32_w4_s2``."""
    _tc, dtype, *dims = key.split("_")
    d, m, n, w, s = (int(x[1:]) for x in dims)
    return dtype, d, m, n, w, s


def classes(path) -> Counter:
    return Counter(CLASSES.get(i.op, "int") for i in path)


def _described(item: tuple, cycles: dict, bw: float, timing: CoreTiming) -> float:
    key, ctas, warps = item
    path = described_path(*shape(key), cycles=cycles, smem_bytes_per_cycle=bw)
    return resident_step_cycles(path, ctas, warps, timing)


def _compiled(item: tuple, cycles: dict, bw: float, scheds: int, timing: CoreTiming) -> float:
    key, ctas, _warps = item
    known = core_table.lookup(key, ctas, cycles, bw, scheds)
    return known if known is not None else core_table.replay(item, timing)


def _summary(label: str, ratios: list[float]) -> str:
    mad = statistics.fmean(abs(r - 1) for r in ratios)
    worst = max(ratios, key=lambda r: abs(r - 1))
    return (f"{label:<14} n={len(ratios):>3}  mean {statistics.fmean(ratios):.3f}  "
            f"MAD {mad:.3f}  worst {worst:.3f}")  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default=core_table.PROFILE)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    profile = load_profile(args.profile)
    cycles = profile.sass_core_cycles.value
    bw = profile.smem_bandwidth_bytes_per_clk_per_sm.value
    scheds = profile.warp_schedulers_per_sm.value
    timing = CoreTiming.from_cycles(cycles, bw, scheds)
    grid = loop_paths_table()  # the compiled grid (the sampled switch instances aside)
    items = [i for i in core_table.launches(profile) if i[0].startswith("tc_") and i[0] in grid]
    # fp16 and bf16 describe the same step: replay it once per shape and CTA count
    by_shape = {(shape(k)[1:], c, w): (k, c, w) for k, c, w in items}
    desc = pmap(functools.partial(_described, cycles=dict(cycles), bw=bw, timing=timing),
                list(by_shape.values()), jobs=args.jobs)  # fmt: skip
    desc_of = dict(zip(by_shape, desc, strict=True))
    comp = pmap(functools.partial(_compiled, cycles=dict(cycles), bw=bw, scheds=scheds,
                                  timing=timing), items, jobs=args.jobs)  # fmt: skip
    print(f"profile {args.profile}: described / compiled core-model cycles per step\n")
    print(f"{'instance':<30} {'CTAs':>4} {'described':>10} {'compiled':>10} {'ratio':>6}")
    groups: dict[str, list[float]] = defaultdict(list)
    for (key, ctas, warps), c in zip(items, comp, strict=True):
        d = desc_of[(shape(key)[1:], ctas, warps)]
        r = d / c
        print(f"{key:<30} {ctas:>4} {d:>10.0f} {c:>10.0f} {r:>6.3f}")
        _dt, hd, _m, bn, _w, st = shape(key)
        for g in ("all", f"Bc {bn}", f"d {hd}", f"stages {st}", f"CTAs {ctas}"):
            groups[g].append(r)
    print()
    for g in sorted(groups, key=lambda g: (g.split()[0], int(g.split()[-1]) if g != "all" else 0)):
        print(_summary(g, groups[g]))
    _counts([k for k in dict.fromkeys(k for k, _c, _w in items)], cycles, bw)
    return 0


def _counts(keys: list[str], cycles, bw: float) -> None:
    """Instruction counts by class: described over compiled, summed over the instances."""
    dsum: Counter = Counter()
    csum: Counter = Counter()
    for key in keys:
        dsum += classes(described_path(*shape(key), cycles=cycles, smem_bytes_per_cycle=bw))
        csum += classes(loop_path(key))
    print(f"\ninstruction counts per warp-step, summed over the {len(keys)} instances")
    print(f"{'class':<12} {'described':>10} {'compiled':>10} {'ratio':>6}")
    for c in CLASS_ORDER:
        ratio = f"{dsum[c] / csum[c]:6.3f}" if csum[c] else "     -"
        print(f"{c:<12} {dsum[c]:>10} {csum[c]:>10} {ratio}")
    tot_d, tot_c = sum(dsum.values()), sum(csum.values())
    print(f"{'all':<12} {tot_d:>10} {tot_c:>10} {tot_d / tot_c:6.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
