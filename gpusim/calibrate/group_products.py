"""Products with both operands from shared memory, in groups barriers separate (a GPU).

    python -m gpusim.calibrate.group_products --out FILE            # on the GPU
    python -m gpusim.calibrate.group_products --table FILE [--profile NAME]
    python -m gpusim.calibrate.group_products --sass FILE     # cuobjdump -sass text (or .gz)
    python -m gpusim.calibrate.group_products --record FILE --profile PATH   # write the field

The pipe model times a step's products as the longer of the tensor pipe and the shared
memory's operand traffic (:mod:`gpusim.engine.rates`), at a step efficiency measured on loops
whose ldmatrix results feed products with a register operand (``smem_overlap``). A
FlashAttention-2 backward runs five products a step whose operands both stream from shared
memory, one slice of k ahead, in groups that barriers separate, in one CTA of 8 warps (2 warps
a scheduler); measured, its steps take about the two pipes' sum (docs/limits.md). This loop
has no attention code: five groups of mma.sync at the per-warp tile shapes of that kernel's
three tile configurations (d64 128 x 128, d128 64 x 128, d256 64 x 64; PyTorch's
``Flash_bwd_kernel_traits``), with and without the barriers, and with a pass per value
(FFMA, MUFU.EX2, FMUL, an f16 pair stored) between the second and third groups. ``--table``
gives each loop's cycles per iteration against the two pipes' times at the profile's rates
and the overlap ``kappa = (measured - max) / min`` (0: the pipes overlap fully; 1: they add).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim.calibrate import standalone

#: per tile configuration: (label, (MT, NT, NK) of groups 1-2, of groups 3-4, of group 5)
CONFIGS = (
    ("d64 128x128", (2, 8, 4), (2, 4, 8), (2, 4, 8)),
    ("d128 64x128", (2, 4, 8), (2, 8, 4), (2, 4, 8)),
    ("d256 64x64", (1, 4, 16), (2, 8, 4), (2, 8, 4)),
)
#: (barriers between groups, the pass per value between groups 2 and 3)
VARIANTS = ((True, False), (False, False), (True, True))
#: (threads per CTA, CTAs per SM): one CTA of 8 warps (the backward's launch), two of 4 (the
#: same 2 warps a scheduler in two CTAs), one of 4 (1 warp a scheduler)
SHAPES = ((256, 1), (128, 2), (128, 1))
LDSM_X4_BYTES = 512
HMMA_FLOPS = 2 * 16 * 8 * 16


def kernel_name(groups: tuple, sync: bool, alu: bool) -> str:
    dims = ",".join(str(x) for g in groups for x in g)
    return f"group_products<{dims},{str(sync).lower()},{str(alu).lower()}>"


def per_warp_counts(groups: tuple) -> tuple[int, int]:
    """(ldmatrix.x4, mma.sync) one warp issues per iteration: groups 1 and 2 of the first
    shape, 3 and 4 of the second, 5 of the third."""
    ldsm = hmma = 0
    for (mt, nt, nk), times in zip(groups, (2, 2, 1), strict=True):
        ldsm += times * nk * (mt + nt // 2)
        hmma += times * nk * mt * nt
    return ldsm, hmma


def loops() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for label, *groups in CONFIGS:
        ldsm, hmma = per_warp_counts(tuple(groups))
        for sync, alu in VARIANTS:
            params = {"config": label, "sync": sync, "alu": alu, "ldsm_per_warp": ldsm,
                      "hmma_per_warp": hmma}  # fmt: skip
            out.append((kernel_name(tuple(groups), sync, alu), params))
    return out


def run(quick: bool = False) -> dict[str, Any]:
    """Every loop at every launch shape: cycles per iteration per scheduler and the clock."""
    from gpusim.calibrate.context import import_cupy, make_context
    from gpusim.calibrate.warp_loops import time_loops

    cp = import_cupy()
    ctx = make_context(cp, quick=quick)
    rows, kernels = time_loops(cp, ctx, "group_products.cu", loops(), SHAPES)
    return {"gpu": ctx.gpu_name, "date": ctx.date, "kernels": kernels, "rows": rows}


def pipe_cycles(row: dict[str, Any], profile) -> tuple[float, float]:
    """(tensor, shared memory) SM cycles of one iteration of every warp of the SM at the
    profile's rates."""
    warps = row["threads"] // 32 * row["ctas_per_sm"]
    flops = profile.mma_sync_flops_per_clk_per_sm.fp16.value
    tensor = warps * row["hmma_per_warp"] * HMMA_FLOPS / flops
    smem_rate = profile.smem_bandwidth_bytes_per_clk_per_sm.value
    smem = warps * row["ldsm_per_warp"] * LDSM_X4_BYTES / smem_rate
    return tensor, smem


def table(record: dict[str, Any], profile) -> list[dict[str, Any]]:
    """Per loop and launch shape: measured cycles per iteration (all of an SM's warps), the
    two pipes' times, and kappa."""
    out = []
    for r in record["rows"]:
        tensor, smem = pipe_cycles(r, profile)
        got = r["cycles_per_iteration_per_scheduler"]
        hi, lo = max(tensor, smem), min(tensor, smem)
        out.append({"config": r["config"], "sync": r["sync"], "alu": r["alu"],
                    "threads": r["threads"], "ctas_per_sm": r["ctas_per_sm"],
                    "measured_cycles": got, "tensor_cycles": tensor, "smem_cycles": smem,
                    "kappa": (got - hi) / lo})  # fmt: skip
    return out


FIELD = "grouped_products_kappa_by_cta_warps"
MODULE = "python -m gpusim.calibrate.group_products"


def field_entry(record: dict[str, Any], profile) -> dict[str, Any]:
    """``grouped_products_kappa_by_cta_warps`` (:mod:`gpusim.engine.product_groups`): per
    launch, the mean kappa of the three configurations' loops with barriers and no pass
    (the products alone), ``{"warps per CTA": [[CTAs per SM, kappa], ...]}``."""
    by_launch: dict[tuple[int, int], list[float]] = {}
    for r in table(record, profile):
        if r["sync"] and not r["alu"]:
            key = (r["threads"] // 32, r["ctas_per_sm"])
            by_launch.setdefault(key, []).append(r["kappa"])
    value: dict[str, list[list[float]]] = {}
    for (warps, ctas), ks in sorted(by_launch.items()):
        value.setdefault(str(warps), []).append([ctas, round(sum(ks) / len(ks), 3)])
    notes = "; ".join(
        f"{w} warps x {c} CTA(s): " + ", ".join(f"{k:.3f}" for k in ks)
        for (w, c), ks in sorted(by_launch.items())
    )
    return {
        "value": value,
        "source": f"measured on {record['gpu']}, {record['date']}, {MODULE}",
        "note": (
            "(cycles - max(tensor, smem)) / min(tensor, smem) of five barrier-separated groups "
            "of mma.sync with both operands from shared memory one k-slice ahead, at "
            "FlashAttention-2 backward's d64, d128 and d256 per-warp tiles; pipe times at "
            f"the profile's mma.sync and shared-memory rates; per launch the three tiles' "
            f"kappa and their mean: {notes}"
        ),
    }


def apply_field(profile_text: str, record: dict[str, Any], record_path: str, profile) -> str:
    """``profile_text`` with the field of ``record`` after its step efficiencies."""
    from gpusim.calibrate.profile_patch import set_after

    entry = field_entry(record, profile)
    entry["source"] += f" ({record_path})"
    header = f"# grouped products: {record_path}"
    return set_after(profile_text, "step_efficiency_2_warps_per_scheduler", {FIELD: entry},
                     header)  # fmt: skip


#: opcodes whose static count per kernel ``--sass`` prints (the loop is fully unrolled)
SASS_OPS = ("HMMA", "LDSM", "BAR", "MUFU", "STS", "STL", "LDL")


def sass_counts(text: str) -> dict[str, dict[str, int]]:
    """Static counts of :data:`SASS_OPS` per function of ``cuobjdump -sass`` text: the
    loops' ldmatrix and mma.sync must be the table's (ptxas may merge loads of one address)."""
    from collections import Counter

    from gpusim.kernel_catalog.binary_sass import functions
    from gpusim.kernel_catalog.sass_decode import decoded

    out = {}
    for name, body in functions(text).items():
        ops = Counter(i.op for i in decoded(body).values())
        out[name] = {op: ops[op] for op in SASS_OPS}
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (``--out``), print the table of a record (``--table``) or a SASS
    dump's counts (``--sass``)."""
    argv = sys.argv[1:] if argv is None else argv
    if "--sass" in argv:
        import gzip

        path = argv[argv.index("--sass") + 1]
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for name, counts in sass_counts(f.read()).items():
                print(name, counts)
        return 0
    if "--record" in argv:
        return _write_field(argv)
    if "--table" not in argv:
        return standalone.main(__doc__, run, argv)
    rows = standalone.table_rows(__doc__, "group_products", table, argv)
    if rows is None:
        return 2
    print("config | barriers | pass | threads x CTAs | cycles | tensor | smem | kappa")
    for r in rows:
        print(f"{r['config']} | {r['sync']} | {r['alu']} | {r['threads']} x {r['ctas_per_sm']} | "
              f"{r['measured_cycles']:.0f} | {r['tensor_cycles']:.0f} | {r['smem_cycles']:.0f} | "
              f"{r['kappa']:.3f}")  # fmt: skip
    return 0


def _write_field(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=f"write {FIELD} into a profile")
    ap.add_argument("--record", type=Path, required=True)
    ap.add_argument("--profile", type=Path, required=True)
    a = ap.parse_args(argv)
    from gpusim.profiles.schema import HardwareProfile

    try:
        import yaml

        text = a.profile.read_text()
        profile = HardwareProfile.model_validate(yaml.safe_load(text))
        out = apply_field(text, json.loads(a.record.read_text()), str(a.record), profile)
        HardwareProfile.model_validate(yaml.safe_load(out))
    except (OSError, ValueError, KeyError) as exc:
        print(f"group_products: error: {exc}", file=sys.stderr)
        return 2
    a.profile.write_text(out)
    print(f"wrote {FIELD} into {a.profile}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
