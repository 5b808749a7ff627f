"""An attention step's wgmma products in the order warp-specialized kernels issue them, with
and without the softmax between them (kernels/wgmma.cu ``wg_step``; no attention code).

    python -m gpusim.calibrate.wgmma_step --out FILE [--cubin CUBIN] [--quick]   (on the GPU)
    python -m gpusim.calibrate.wgmma_step --table FILE

Per warpgroup and loop iteration: S = Q K^T (m64 n=Bc, both operands from shared memory, d/16
products), commit, O += P V (m64 n=d, A from registers, Bc/16 products), commit, wait for S
(P V stays in flight); with the softmax: a pass over S's accumulators (max, shuffles, exp2,
sum) and its 16-bit packing, then wait for P V and rescale O. One CTA of 1-3 consumer
warpgroups per SM on every SM, bf16, 128-byte swizzled operands; SM cycles per iteration
from each block's clock64 (``gpusim.calibrate.throughput.run_config``). Each step with the
softmax is also run with a causal mask on S first (a compare and select per element, the
diagonal moving step by step), and as the timing harness runs a kernel (0.5 and 2 ms
launches, each after a 256 MB L2 flush), for the SM clock it holds then.

The plan (:func:`plan`), in the order it runs:

- :data:`SHAPES` (Bc, d, consumer warpgroups): ``wg_step`` without the softmax, with it and
  masked, then the step with its K/V tiles streamed in by a producer warpgroup, one barrier
  pair per stage of a two-stage ring (``wg_step_fill``, the "fill" rows) or one per tile
  (``wg_step_lag``);
- :data:`GAP_SHAPES`, the same five rows at the block n the project's instances use between
  the measured ones (Bc 176 at d128, Bc 80 at d256, two consumer warpgroups) and three
  consumer warpgroups at Bc 64 and 128 (d64);
- :data:`RING_SHAPES`: three consumer warpgroups over a three-stage ring (``wg_step_ring``:
  the d64 m192 n96 s3 instance's ring, at Bc 64, 96 and 128), and at Bc 96 over two stages
  (the same kernel's code at wg_step_fill's depth; its start stamp is not held across the
  loops, which wg_step_fill keeps in an 8-byte spill slot);
- :data:`OVERLAP_SHAPES`: the "overlap" rows, wg_step_ring with ``HOLD`` (P's packed words
  stored to shared memory before the wait for P V), so that ptxas keeps the softmax between
  the two waits as the project's kernel has it (every other row's SASS waits for P V before
  the softmax's exponentials: kernels/wgmma.cu says how this was found), at every shape of
  SHAPES and GAP_SHAPES with two or three consumer warpgroups, over the instances' ring depths
  (two stages with two warpgroups, three with three).

``--quick`` (``gpusim calibrate --quick``) runs :data:`SHAPES`' three ``wg_step`` rows and
the overlap rows at SHAPES (:data:`QUICK_OVERLAP`), no fill, lag or ring rows. The overlap
rows give the profile's ping-pong softmax cost since wgmma held-out set 10
(``gpusim.calibrate.wgmma_pingpong``, which says how the other rows were used); a
model that timed the project's kernel at these steps' cycles was checked on the paper sweep
and not kept (data/h200/2026-12-04_calibration_wgmma_step/README.md).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from gpusim.calibrate.record_table import table_or_measure

#: (Bc, d, consumer warpgroups) of the sweep
SHAPES = (
    (96, 64, 3), (128, 64, 2), (192, 64, 2),
    (64, 128, 2), (96, 128, 2), (128, 128, 2), (192, 128, 2),
    (64, 256, 1), (64, 256, 2), (96, 256, 2),
)  # fmt: skip
#: (Bc, d, consumer warpgroups) measured as SHAPES after them, not in ``--quick``: the block n
#: of the project's instances that SHAPES lack (d128 Bc176, d256 Bc80; two warpgroups) and
#: three warpgroups at other Bc than 96 (d64)
GAP_SHAPES = ((176, 128, 2), (80, 256, 2), (64, 64, 3), (128, 64, 3))
#: (Bc, d, consumer warpgroups, ring stages) of wg_step_ring (with the softmax), not in
#: ``--quick``: three warpgroups over three stages as the d64 m192 n96 s3 instance, and the
#: same kernel over two stages at Bc 96 beside wg_step_fill's row
RING_SHAPES = ((96, 64, 3, 3), (64, 64, 3, 3), (128, 64, 3, 3), (96, 64, 3, 2))
#: (Bc, d, consumer warpgroups, ring stages) of the overlap rows
OVERLAP_SHAPES = tuple((bc, d, g, g) for bc, d, g in (*SHAPES, *GAP_SHAPES) if g >= 2)
#: The overlap rows ``--quick`` measures (those at SHAPES): the profiles' two fields come from
#: them since wgmma held-out set 10 (reports/kernels/wgmma/heldout10)
QUICK_OVERLAP = tuple((bc, d, g, g) for bc, d, g in SHAPES if g >= 2)


def step_name(bc: int, d: int, soft: int, gmax: int) -> str:
    return f"_Z7wg_stepILi{bc}ELi{d}ELi1ELi{soft}ELi{gmax}EEvPKjiiiiPfPy"


def fill_name(bc: int, d: int, groups: int) -> str:
    return f"_Z12wg_step_fillILi{bc}ELi{d}ELi1ELi1ELi{groups}EEvPKjiiiiPfPy"


def lag_name(bc: int, d: int, groups: int) -> str:
    return f"_Z11wg_step_lagILi{bc}ELi{d}ELi1ELi{groups}EEvPKjiiiiPfPy"


def ring_name(bc: int, d: int, groups: int, stages: int, hold: bool = False) -> str:
    return f"_Z12wg_step_ringILi{bc}ELi{d}ELi1ELi{groups}ELi{stages}ELb{int(hold)}EEvPKjiiiiPfPy"


def fill_smem_n(bc: int, d: int) -> int:
    """The ``n`` whose ``wgmma._smem(n, groups + 1)`` holds wg_step_fill's shared memory: the
    barriers and alignment (2 KiB), the consumers' A operands and a two-stage K/V ring."""
    return -(-(8 * bc * d - 7168) // 128)


def ring_smem_n(bc: int, d: int, stages: int) -> int:
    """:func:`fill_smem_n` for wg_step_ring's ring of ``stages`` stages (K and V tiles each)."""
    return -(-(4 * stages * bc * d - 7168) // 128)


def plan(quick: bool = False) -> list[dict[str, Any]]:
    """Every row :func:`measure` times, in its order: kind (``step``, ``masked``, ``fill``,
    ``lag``, ``ring``), kernel, Bc, d, consumer warpgroups, ring stages (None without a
    ring), and whether the row is timed again under the protocol's bursts."""
    out = []

    def add(kind: str, kernel: str, shape: tuple, stages: int | None, protocol: bool) -> None:
        bc, d, g = shape
        out.append({"kind": kind, "kernel": kernel, "block_n": bc, "head_dim": d,
                    "warpgroups": g, "stages": stages, "protocol": protocol})  # fmt: skip

    for bc, d, g in SHAPES if quick else (*SHAPES, *GAP_SHAPES):
        for soft in (0, 1, 2):
            name = step_name(bc, d, soft, 3 if g == 3 else 2)
            add("masked" if soft == 2 else "step", name, (bc, d, g), None, soft == 1)
        if not quick:  # the fill and lag rows feed no profile field since held-out set 10
            add("fill", fill_name(bc, d, g), (bc, d, g), 2, True)
            add("lag", lag_name(bc, d, g), (bc, d, g), 2, True)
    for bc, d, g, stages in () if quick else RING_SHAPES:
        add("ring", ring_name(bc, d, g, stages), (bc, d, g), stages, True)
    for bc, d, g, stages in QUICK_OVERLAP if quick else OVERLAP_SHAPES:
        add("overlap", ring_name(bc, d, g, stages, True), (bc, d, g), stages, True)
    return out


def step_flops(bc: int, d: int, groups: int) -> int:
    """FLOP of one iteration of a CTA: each warpgroup's two m64 products of Bc x d."""
    return groups * 2 * (2 * 64 * bc * d)


#: the row kinds a record keeps (any other row was skipped)
KINDS = ("step", "fill", "lag", "masked", "ring", "overlap")

#: burst lengths of the timing harness's protocol (each launch after a 256 MB L2 flush)
PROTOCOL_S, PROTOCOL_REPEATS, FLUSH_BYTES = (5e-4, 2e-3), 10, 256 << 20


def protocol_clock(b: Any, name: str, groups: int, n: int, row: dict[str, Any]) -> dict:
    """The SM clock of ``name``'s step loop as a benchmark times a kernel: launches of 0.5 and
    2 ms, each after a 256 MB L2 flush (clock64 over %globaltimer per block)."""
    import statistics
    import time

    import numpy as np

    from gpusim.calibrate.clocks import clock_hz_from_stamps
    from gpusim.calibrate.wgmma import _smem

    cp, ctx = b.cp, b.ctx
    smem = _smem(n, groups)
    f = b.fn(name, smem)
    grid = ctx.sm_count
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
    per_iter_s = row["time_s"] / row["iters"]
    start, end = cp.cuda.Event(), cp.cuda.Event()
    clocks, bursts = [], []
    for target in PROTOCOL_S:
        iters = max(1, int(target / per_iter_s))
        time.sleep(0.3)  # let the clock recover from the sweep's back-to-back launches
        got = []
        for r in range(PROTOCOL_REPEATS):
            flush.fill(r & 0xFF)
            start.record()
            args = (b.init["bf16"], np.int32(b.words), np.int32(iters), np.int32(0), np.int32(1))
            f((grid,), (128 * groups,), (*args, b.out, stamps), shared_mem=smem)
            end.record()
            end.synchronize()
            got.append(clock_hz_from_stamps(stamps.get().tolist(), min_ns=50_000)["median_hz"])
        bursts.append({"target_s": target, "iters": iters, "clocks_hz": got})
        clocks += got
    return {"clock_hz": statistics.median(clocks), "bursts": bursts}


def measure(cubin: Path | None = None, quick: bool = False) -> dict[str, Any]:
    from gpusim.calibrate.context import import_cupy, make_context
    from gpusim.calibrate.wgmma import Bench, build_cubin

    ctx = make_context(import_cupy())
    log = ""
    if cubin is None:
        cubin, log = build_cubin(Path(tempfile.mkdtemp(prefix="gpusim-wgmma-step-")))
    b = Bench(ctx, cubin)
    for bc, d, groups in SHAPES if quick else (*SHAPES, *GAP_SHAPES):
        for soft in (0, 1, 2):
            name = step_name(bc, d, soft, 3 if groups == 3 else 2)
            what = ("products", "softmax", "masked softmax")[soft]
            label = f"wg_step Bc{bc} d{d} x{groups} {what}"
            row = b.timed(name, "bf16", groups, 1, 0, 1, bc + d, step_flops(bc, d, groups), label)
            if soft == 2 and row is not None:
                row |= {"block_n": bc, "head_dim": d, "softmax": True, "kind": "masked"}
                ctx.log(f"{label}: {row['cycles_per_iter']:.0f} cycles per step")
            elif row is not None:
                row |= {"block_n": bc, "head_dim": d, "softmax": bool(soft), "kind": "step"}
                ctx.log(
                    f"{label}: {row['cycles_per_iter']:.0f} cycles per step, "
                    f"{row['flops_per_clk_per_sm']:.0f} FLOP/clk/SM"
                )
                if soft:
                    row["protocol"] = protocol_clock(b, name, groups, bc + d, row)
                    ctx.log(f"{label}: {row['protocol']['clock_hz'] / 1e6:.0f} MHz in bursts")
        # The same step with its K/V tiles streamed in by a producer warpgroup: one barrier
        # pair per stage ("fill"), or one per tile with S issued beside the last P V ("lag")
        n = fill_smem_n(bc, d)
        streamed = (("fill", fill_name(bc, d, groups)), ("lag", lag_name(bc, d, groups)))
        for kind, name in () if quick else streamed:
            label = f"wg_step_{kind} Bc{bc} d{d} x{groups}"
            row = b.timed(name, "bf16", groups + 1, 1, 0, 1, n, step_flops(bc, d, groups), label)
            if row is None:
                continue
            row |= {"block_n": bc, "head_dim": d, "softmax": True, "kind": kind,
                    "warpgroups": groups}  # fmt: skip
            row["protocol"] = protocol_clock(b, name, groups + 1, n, row)
            ctx.log(
                f"{label}: {row['cycles_per_iter']:.0f} cycles per step, "
                f"{row['protocol']['clock_hz'] / 1e6:.0f} MHz in bursts"
            )
    # Consumer warpgroups over a ring of `stages` stages (wg_step_ring): the ring rows, then
    # the overlap rows (HOLD: the softmax kept between the waits)
    rings = [(*s, "ring") for s in RING_SHAPES] + [(*s, "overlap") for s in OVERLAP_SHAPES]
    for bc, d, groups, stages, kind in [(*s, "overlap") for s in QUICK_OVERLAP] if quick else rings:
        n = ring_smem_n(bc, d, stages)
        name = ring_name(bc, d, groups, stages, kind == "overlap")
        label = f"wg_step_ring{'+hold' * (kind == 'overlap')} Bc{bc} d{d} x{groups} {stages} stages"
        row = b.timed(name, "bf16", groups + 1, 1, 0, 1, n, step_flops(bc, d, groups), label)
        if row is None:
            continue
        row |= {"block_n": bc, "head_dim": d, "softmax": True, "kind": kind,
                "warpgroups": groups, "stages": stages}  # fmt: skip
        row["protocol"] = protocol_clock(b, name, groups + 1, n, row)
        ctx.log(
            f"{label}: {row['cycles_per_iter']:.0f} cycles per step, "
            f"{row['protocol']['clock_hz'] / 1e6:.0f} MHz in bursts"
        )
    return {
        "kind": "gpusim.wgmma_step",
        "gpu": ctx.gpu_name,
        "date": ctx.date,
        "sm_count": ctx.sm_count,
        "quick": quick,
        "ptxas_report": log,
        "kernels": b.kernels,
        "rows": [r for r in b.rows if r.get("kind") == "step"],
        "fill_rows": [r for r in b.rows if r.get("kind") == "fill"],
        "lag_rows": [r for r in b.rows if r.get("kind") == "lag"],
        "masked_rows": [r for r in b.rows if r.get("kind") == "masked"],
        "ring_rows": [r for r in b.rows if r.get("kind") == "ring"],
        "overlap_rows": [r for r in b.rows if r.get("kind") == "overlap"],
        "skipped": [r for r in b.rows if r.get("kind") not in KINDS],
    }


def step_table(doc: dict[str, Any]) -> dict[str, list[list[float]]]:
    """``{"{d}/{warpgroups}": [[Bc, SM cycles of the step with the softmax, protocol clock
    in Hz], ...]}``."""
    if doc.get("kind") != "gpusim.wgmma_step":
        raise ValueError("not a wgmma_step record")
    out: dict[str, list[list[float]]] = {}
    for r in doc["rows"]:
        if r["softmax"]:
            key = f"{r['head_dim']}/{r['warpgroups']}"
            clock = r.get("protocol", {}).get("clock_hz")
            out.setdefault(key, []).append([r["block_n"], r["cycles_per_iter"], clock])
    if not out:
        raise ValueError("the record has no step with the softmax")
    return {k: sorted(v) for k, v in sorted(out.items())}


def table(doc: dict[str, Any]) -> str:
    """Cycles per step with and without the softmax, and what the softmax adds."""
    if doc.get("kind") != "gpusim.wgmma_step":
        raise ValueError("not a wgmma_step record")
    by = {(r["block_n"], r["head_dim"], r["warpgroups"], r["softmax"]): r for r in doc["rows"]}
    fills = {(r["block_n"], r["head_dim"], r["warpgroups"]): r for r in doc.get("fill_rows", [])}
    lags = {(r["block_n"], r["head_dim"], r["warpgroups"]): r for r in doc.get("lag_rows", [])}
    masked = {(r["block_n"], r["head_dim"], r["warpgroups"]): r for r in doc.get("masked_rows", [])}
    lines = [
        "| Bc | d | warpgroups | products cycles | FLOP/clk/SM | with softmax cycles "
        "| FLOP/clk/SM | softmax adds | clock in bursts MHz | tiles streamed in cycles "
        "| clock in bursts MHz | per-tile barriers, S beside the last P V: cycles "
        "| clock in bursts MHz | masked softmax cycles | the mask adds |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for bc, d, g in (*SHAPES, *GAP_SHAPES):
        p, s = by.get((bc, d, g, False)), by.get((bc, d, g, True))
        if p is None or s is None:
            continue
        lines.append(
            f"| {bc} | {d} | {g} | {p['cycles_per_iter']:.0f} | {p['flops_per_clk_per_sm']:.0f} "
            f"| {s['cycles_per_iter']:.0f} | {s['flops_per_clk_per_sm']:.0f} "
            f"| {s['cycles_per_iter'] / p['cycles_per_iter'] - 1:+.0%} "
            f"| {s['protocol']['clock_hz'] / 1e6:.0f} | {_fill_cells(fills.get((bc, d, g)))} "
            f"| {_fill_cells(lags.get((bc, d, g)))} | {_mask_cells(masked.get((bc, d, g)), s)} |"
        )
    return "\n".join(lines) + _ring_table(doc, fills)


def _ring_table(doc: dict[str, Any], fills: dict[tuple, dict[str, Any]]) -> str:
    """The ring rows (none in a ``--quick`` record or one made before them: no text)."""
    rings = doc.get("ring_rows", [])
    if not rings:
        return ""
    lines = [
        "",
        "",
        "| Bc | d | warpgroups | ring stages | cycles | clock in bursts MHz "
        "| wg_step_fill (2 stages) cycles |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rings, key=lambda r: (r["head_dim"], r["block_n"], r["stages"])):
        fill = fills.get((r["block_n"], r["head_dim"], r["warpgroups"]))
        two = f"{fill['cycles_per_iter']:.0f}" if fill else "-"
        lines.append(
            f"| {r['block_n']} | {r['head_dim']} | {r['warpgroups']} | {r['stages']} "
            f"| {_fill_cells(r)} | {two} |"
        )
    return "\n".join(lines)


def _mask_cells(r: dict[str, Any] | None, unmasked: dict[str, Any]) -> str:
    if r is None:
        return "- | -"
    return (
        f"{r['cycles_per_iter']:.0f} | "
        f"{r['cycles_per_iter'] / unmasked['cycles_per_iter'] - 1:+.0%}"
    )


def _fill_cells(r: dict[str, Any] | None) -> str:
    if r is None:
        return "- | -"
    return f"{r['cycles_per_iter']:.0f} | {r['protocol']['clock_hz'] / 1e6:.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    ap.add_argument("--cubin", type=Path)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="SHAPES and the Bc 96 ring row only (not GAP_SHAPES, the other ring rows or the "
        "overlap rows)",
    )
    a = ap.parse_args(argv)
    if a.table is None and a.out is None:
        ap.error("--out or --table is required")
    return table_or_measure(a.table, a.out, lambda: measure(a.cubin, a.quick), table, "wgmma_step")


if __name__ == "__main__":
    raise SystemExit(main())
