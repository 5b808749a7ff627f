"""One consumer warpgroup's attention step, alone on its SM (kernels/wgmma.cu; no attention
code): what a one-warpgroup wgmma kernel's step costs where no other warpgroup's products can
hide its softmax.

    python -m gpusim.calibrate.wgmma_step_one --out FILE [--cubin CUBIN] [--quick]   (on the GPU)
    python -m gpusim.calibrate.wgmma_step_one --record R [--profile P]   (the field; writes P)

At the one-warpgroup instances' tiles (:data:`SHAPES`: Bc and d), three rows each, one CTA an
SM on every SM: ``wg_step`` with one warpgroup, products only (S = Q K^T with A and B from
shared memory, d/16 chained products, and O += P V, Bc/16, issued together) and with the
softmax (ptxas waits for P V before its exponentials there), and ``wg_step_ring`` with HOLD
over two stages fed by a producer warpgroup (the softmax kept between the wait for S and the
wait for P V, as flash3_wgmma.cu's one-warpgroup consumer has it). SM cycles per step from
each block's clock64.

:func:`fitted` reduces a record to the profile's ``wgmma_softmax_cycles_per_instr_1_warpgroups``
(``--record R --profile P`` writes it; ``gpusim calibrate`` runs and applies it): per tile
c = (overlap step - T) / I, T the step's products at the profile's wgmma peak as the engine
times them (decode set 5, reports/kernels/wgmma/decode_set5; sets 3 and 4 took the measured
products-only step, 3-6 % of the step longer), I one warp's softmax instructions of the step
(:func:`gpusim.calibrate.wgmma_pingpong.micro_instrs`), the mean over the tiles; and each
tile's own c (``wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile``, adopted by decode set 4:
reports/kernels/wgmma/decode_set4), which a kernel of that tile takes instead. With it the
engine times a one-warpgroup step as max(T, softmax phase, T + I x c)
(:func:`gpusim.engine.wgmma_rates.pingpong_rates` with n = 1), T its products at the SM's
wgmma peak. Suggested by wgmma decode set 2's look (reports/kernels/wgmma/decode_set2),
adopted by decode set 3 (reports/kernels/wgmma/decode_set3).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from gpusim.calibrate.wgmma_step import ring_name, ring_smem_n, step_flops, step_name

#: (Bc, d) of the one-warpgroup rows: the instances of the decode sets and the look
SHAPES = ((128, 64), (192, 64), (64, 128), (128, 128), (64, 256))
#: ``--quick`` (``gpusim calibrate --quick``): two tiles, the products and the kernel-order
#: rows only (the field is then the mean over these two)
QUICK_SHAPES = ((128, 64), (64, 256))


def measure(cubin: Path | None = None, quick: bool = False) -> dict[str, Any]:
    from gpusim.calibrate.context import import_cupy, make_context
    from gpusim.calibrate.wgmma import Bench, build_cubin

    ctx = make_context(import_cupy())
    log = ""
    if cubin is None:
        cubin, log = build_cubin(Path(tempfile.mkdtemp(prefix="gpusim-wgmma-step-one-")))
    b = Bench(ctx, cubin)
    rows = []
    for bc, d in QUICK_SHAPES if quick else SHAPES:
        runs = [("products", step_name(bc, d, 0, 2), 1, bc + d),
                ("softmax", step_name(bc, d, 1, 2), 1, bc + d),
                ("overlap", ring_name(bc, d, 1, 2, True), 2, ring_smem_n(bc, d, 2))]  # fmt: skip
        if quick:
            runs = [r for r in runs if r[0] != "softmax"]
        for kind, name, groups, n in runs:
            label = f"one warpgroup Bc{bc} d{d} {kind}"
            row = b.timed(name, "bf16", groups, 1, 0, 1, n, step_flops(bc, d, 1), label)
            if row is None:
                continue
            row |= {"block_n": bc, "head_dim": d, "consumer_warpgroups": 1, "kind": kind}
            rows.append(row)
            ctx.log(f"{label}: {row['cycles_per_iter']:.0f} cycles per step")
    return {"kind": "gpusim.wgmma_step_one", "gpu": ctx.gpu_name, "date": ctx.date, "quick": quick,
            "sm_count": ctx.sm_count, "ptxas_report": log, "kernels": b.kernels,
            "rows": rows, "skipped": [r for r in b.rows if "skipped" in r]}  # fmt: skip


FIELD = "wgmma_softmax_cycles_per_instr_1_warpgroups"


def fitted(
    doc: dict[str, Any], peak: float | None = None
) -> tuple[float, list[tuple[int, int, float]]]:
    """The mean cycles per instruction over the record's tiles, and each tile's (Bc, d, c).
    ``peak`` (FLOP per clock per SM): c against the products at that rate, as the engine times
    them (``T`` in max(T, A, T + I x c)), instead of against the measured products-only row,
    so that the engine's step at a measured tile is the one measured (decode set 5's
    candidate); the products row is then not needed."""
    from gpusim.calibrate.wgmma_pingpong import micro_instrs

    if doc.get("kind") != "gpusim.wgmma_step_one":
        raise ValueError("not a wgmma_step_one record")
    by = {(r["block_n"], r["head_dim"], r["kind"]): r["cycles_per_iter"] for r in doc["rows"]}
    each = []
    for bc, d in SHAPES:
        t, step = by.get((bc, d, "products")), by.get((bc, d, "overlap"))
        if peak is not None:
            t = step_flops(bc, d, 1) / peak
        if t is not None and step is not None:
            each.append((bc, d, (step - t) / micro_instrs(bc, d)))
    if not each:
        raise ValueError("the record has no tile with both rows")
    return sum(c for *_, c in each) / len(each), each


def entry(doc: dict[str, Any], record: str, peak: float | None = None) -> dict[str, Any]:
    """The profile field of a record: its value, source and the per-tile values."""
    mean, each = fitted(doc, peak)
    tiles = ", ".join(f"({bc}, {d}): {c:.3f}" for bc, d, c in each)
    return {"value": round(mean, 4),
            "source": f"measured on {doc.get('gpu', 'the GPU')}, {doc.get('date', '')}, "
                      f"python -m gpusim.calibrate.wgmma_step_one ({record})",
            "note": f"(step in the kernel's order - {_products(peak)}) / softmax instructions a "
                    f"warp, mean over (Bc, d) = {tiles}"}  # fmt: skip


def _products(peak: float | None) -> str:
    """What c is measured against, for the field's note."""
    if peak is None:
        return "products"
    return f"products at {peak:.1f} FLOP/clk/SM"


TILES = "wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile"


def tiles_entry(doc: dict[str, Any], record: str, peak: float | None = None) -> dict[str, Any]:
    """Each measured tile's own c, ``{"{d}": [[Bc, c], ...]}`` (decode set 4 adopted it: a
    one-warpgroup kernel of such a tile takes it, any other the mean)."""
    _, each = fitted(doc, peak)
    table: dict[str, list[list[float]]] = {}
    for bc, d, c in each:
        table.setdefault(str(d), []).append([bc, round(c, 4)])
    by_d = sorted(table.items(), key=lambda kv: int(kv[0]))
    return {"value": {d: sorted(rows) for d, rows in by_d},
            "source": f"measured on {doc.get('gpu', 'the GPU')}, {doc.get('date', '')}, "
                      f"python -m gpusim.calibrate.wgmma_step_one ({record})",
            "note": f"(step in the kernel's order - {_products(peak)}) / softmax instructions a "
                    "warp at each tile, key d, [Bc, c]"}  # fmt: skip


def profile_peak(profile_text: str) -> float:
    """The profile's bf16 wgmma peak (FLOP per clock per SM), which c is taken against."""
    import yaml

    try:
        return float(yaml.safe_load(profile_text)["wgmma_flops_per_clk_per_sm"]["bf16"]["value"])
    except (KeyError, TypeError) as exc:
        raise ValueError(
            "the profile has no wgmma_flops_per_clk_per_sm.bf16 (the wgmma record's), which "
            "the one-warpgroup c is taken against"
        ) from exc


def apply(profile_text: str, doc: dict[str, Any], record: str) -> str:
    """``profile_text`` with the field and the per-tile table set after the three-warpgroup
    field, c against the products at the profile's own wgmma peak (decode set 5)."""
    from gpusim.calibrate.profile_patch import set_after

    peak = profile_peak(profile_text)
    header = f"# wgmma one-warpgroup softmax cycles per instruction: {record}"
    after = "wgmma_softmax_cycles_per_instr_3_warpgroups"
    fields = {FIELD: entry(doc, record, peak), TILES: tiles_entry(doc, record, peak)}
    return set_after(profile_text, after, fields, header)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.calibrate.wgmma_step_one",
                                 description=__doc__.splitlines()[0])  # fmt: skip
    ap.add_argument("--out", type=Path, help="measure (on the GPU) into this record")
    ap.add_argument("--cubin", type=Path)
    ap.add_argument("--quick", action="store_true", help="two tiles, no serial softmax rows")
    ap.add_argument(
        "--record",
        type=Path,
        help="a record to apply (with --profile; without, "
        "print the fields against h200-sxm's wgmma peak)",
    )
    ap.add_argument("--profile", type=Path, help="a profile YAML to set the field in")
    a = ap.parse_args(argv)
    if a.record is not None:
        try:
            doc = json.loads(a.record.read_text())
            if a.profile is None:  # what apply writes, against the shipped profile's peak
                from gpusim.profiles.loader import profile_path

                peak = profile_peak(profile_path("h200-sxm").read_text())
                where = a.record.parent.as_posix()
                fields = {FIELD: entry(doc, where, peak), TILES: tiles_entry(doc, where, peak)}
                print(json.dumps(fields, indent=1))
                return 0
            text = apply(a.profile.read_text(), doc, a.record.parent.as_posix())
        except (OSError, ValueError, KeyError) as exc:  # a bad record or profile: one line
            print(f"wgmma_step_one: error: {exc}", file=sys.stderr)
            return 2
        a.profile.write_text(text)
        print(f"wrote {FIELD} and {TILES} into {a.profile}")
        return 0
    if a.out is None:
        ap.error("give --out (measure) or --record (apply)")
    doc = measure(a.cubin, a.quick)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
