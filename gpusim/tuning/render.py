"""``gpusim tune`` for a person: the ranking table, the rules beside it, the rejections."""

from __future__ import annotations

import shutil
import textwrap

from gpusim.tuning.sram import KIB
from gpusim.tuning.tuner import TuneResult

RULE_TEXT = {
    "paper": "FlashAttention paper: Bc = ceil(M/4d), Br = min(Bc, d)",
    "seed": "seed 000: Br = ceil(M/4d), Bc = min(Br, d)",
}
SNAP_TEXT = (
    "rule tiles are snapped to the nearest runnable tile by |log2 Br ratio| + |log2 Bc ratio| "
    "(ties: the smaller tile); warps and stages are the model's best for that tile"
)


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def _bwd(s) -> str:
    """A training step's backward tile, ``64x128 w8 s2``."""
    b = s.backward()
    return f"{b.block_m}x{b.block_n} w{b.warps} s{b.stages}"


def _time(s: float) -> str:
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} us"


def _workload(r: TuneResult) -> str:
    w = r.workload
    mask = "causal" if w.causal else "non-causal"
    return (
        f"batch {w.batch}, heads {w.heads}, seq {w.seq_len_q}x{w.seq_len_k}, "
        f"head_dim {w.head_dim}, {w.dtype}, {mask}"
    )


#: Columns the ranking leaves out, in this order, when the terminal is too narrow for all.
NARROW_DROPS = ("TFLOP/s", "DRAM wr", "exec", "SM-L2")


def _table(rows: list[list[str]], left: set[str], width: int) -> list[str]:
    """Aligned columns within ``width`` characters, leaving out :data:`NARROW_DROPS` as needed."""
    keep = list(range(len(rows[0])))

    def widths() -> list[int]:
        return [max(len(r[i]) for r in rows) for i in keep]

    drops = [rows[0].index(h) for h in NARROW_DROPS]
    while sum(widths()) + 2 * (len(keep) - 1) > width and drops:
        keep.remove(drops.pop(0))
    ws = widths()
    lines = [
        "  ".join(
            r[i].ljust(w) if rows[0][i] in left else r[i].rjust(w)
            for i, w in zip(keep, ws, strict=True)
        )
        for r in rows
    ]
    left_out = [h for i, h in enumerate(rows[0]) if i not in keep]
    if left_out:
        lines.append(f"({', '.join(left_out)} left out at this width; --json has every figure)")
    return lines


def _wrap(line: str, width: int) -> list[str]:
    """A prose line folded at word boundaries, continuation lines indented under its start."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False) or [""]


_EXEC_NOTE = (
    "(exec: tensor-core FLOPs executed per useful FLOP: whole tiles, padded rows and keys "
    "included; TFLOP/s counts the useful ones)"
)


def _executed(c, useful_flops: int) -> str:
    """Executed over useful FLOPs, e.g. ``64x`` for one query in a 64-row tile."""
    return f"{c.executed_mma_flops / useful_flops:.3g}x" if c.executed_mma_flops else "-"


def _ctas(c) -> str:
    """CTAs per SM as launched; ``1 of 2`` when the launch keeps some off (faster so)."""
    if c.smem_per_sm_budget_bytes is None:
        return str(c.ctas_per_sm)
    return f"{c.ctas_per_sm} of {c.ctas_per_sm_max}"


def render_text(r: TuneResult, width: int | None = None) -> str:
    """The whole report as plain text, ``width`` characters wide (default: the terminal's)."""
    width = width or shutil.get_terminal_size().columns
    sram = (
        f"{r.sram_bytes / KIB:g} KiB per CTA ({'--sram-kib' if r.sram_overridden else 'profile'})"
    )
    total = len(r.candidates) + len(r.rejected)
    out = [
        f"gpusim tune: {r.algorithm} on {r.profile} ({r.sm_count} SMs), shared memory {sram}",
        f"workload: {_workload(r)}",
        f"search space: {r.space_source}: {total} schedules, {len(r.candidates)} feasible, "
        f"{len(r.rejected)} rejected; registers per thread: {r.footprints}; "
        f"searched in {r.wall_s:.2f} s",
        "",
    ]
    splits = any(c.schedule.kv_splits != 1 for c in r.candidates)
    packs = any(c.schedule.pack_gqa for c in r.candidates)
    step = r.workload.pass_ == "fwd+bwd"  # a training step: the backward's tile beside
    head = [
        "#", "Br", "Bc", "w", "st", *(["bwd"] if step else []), *(["split"] if splits else []),
        *(["pack"] if packs else []),
        "smem", "regs", "runtime", "TFLOP/s", "exec", "DRAM rd", "DRAM wr", "SM-L2", "CTA/SM",
        "bound",
    ]  # fmt: skip
    rows = [head]
    useful = r.workload.model_flops()
    for i, c in enumerate(r.candidates, 1):
        s = c.schedule
        rows.append([
            str(i), str(s.block_m), str(s.block_n), str(s.warps), str(s.stages),
            *([_bwd(s)] if step else []), *([str(s.kv_splits)] if splits else []),
            *(["yes" if s.pack_gqa else "-"] if packs else []),
            f"{c.smem_bytes_per_cta / KIB:g} KiB", str(c.regs_per_thread),
            _time(c.runtime_s) + ("*" if c.modelled else ""),
            f"{c.tflops:.1f}", _executed(c, useful), _bytes(c.dram_read_bytes),
            _bytes(c.dram_write_bytes), _bytes(c.l2_bytes), _ctas(c), c.bound,
        ])  # fmt: skip
    table = _table(rows, left={"bound"}, width=width)
    notes = table[len(rows) :]
    if not any("exec" in line for line in notes):  # the column is shown: say what it is
        notes.insert(0, _EXEC_NOTE)
    modelled = sorted({c.modelled for c in r.candidates if c.modelled})
    for what in modelled:
        notes.append(f"(runtime*: {what})")
    if any(c.smem_per_sm_budget_bytes is not None for c in r.candidates):
        out.append(
            "(CTA/SM 'n of m': faster with n CTAs per SM than with all m that fit; launch it "
            "with ~shared memory per SM / n bytes of dynamic shared memory per CTA)"
        )
    if step:
        out += ["", "bwd: the backward's tile (Br x Bc, warps, stages) behind the forward's "
                "best; the block-size rules pick one tile, so none is shown"]  # fmt: skip
    else:
        out += ["", "What the block-size rules pick (M = shared memory per CTA in elements):"]
    for p in r.rules:
        s = p.schedule
        out.append(
            f"  {RULE_TEXT.get(p.rule, p.rule)}: Br {p.raw_block_m}, Bc {p.raw_block_n} -> "
            f"Br {s.block_m} Bc {s.block_n} w{s.warps} s{s.stages}: {_time(p.runtime_s)}, "
            + (
                "the best"
                if p.slower_than_best <= 0
                else f"{100 * p.slower_than_best:.1f}% slower than the best"
            )
        )
    if r.rules:
        out.append(f"  ({SNAP_TEXT})")
    if r.rejected:
        out += ["", f"Rejected ({len(r.rejected)}):"]
        for x in r.rejected:
            s = x.schedule
            split = f" splits {s.kv_splits}" if s.kv_splits != 1 else ""
            split += f" bwd {_bwd(s)}" if step else ""
            out.append(
                f"  Br {s.block_m:>3} Bc {s.block_n:>3} w{s.warps} s{s.stages}{split}: {x.reason}"
            )
    head_lines = [w for line in out[:4] for w in _wrap(line, width)]
    rest = [w for line in notes + out[4:] for w in _wrap(line, width)]
    return "\n".join(line.rstrip() for line in head_lines + table[: len(rows)] + rest)
