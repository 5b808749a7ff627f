"""The L2's read rate for tile copies, by how many CTAs read each tile (no attention kernel).

    python -m gpusim.calibrate.l2_tile_read --out FILE [--cubin CUBIN] [--fills]   (on the GPU)
    python -m gpusim.calibrate.l2_tile_read --table FILE

The suite's ``l2`` benchmark reads with 16-byte loads (``ld.global.cg``), each line once per
pass. A Hopper attention kernel reads its K and V tiles with bulk copies (TMA) of 16-64 KiB,
and the CTAs of one head (or of one K/V group) read the same tiles at nearly the same time:
64 CTAs for a non-causal prefill's query blocks, the group's few for a grouped-head decode.
Which rate such reads see was left open by wgmma decode sets 2-4 (the one-warpgroup d256
non-causal prefill ran at 8.6 TB/s of L2 reads on an H100 whose ``l2`` benchmark gives 7.8).

This launches ``kernels/cta_life.cu`` (a producer thread's ``cp.async.bulk`` copies through a
two-stage mbarrier ring into one consumer warpgroup; no stores, no work between tiles) as one
wave, one CTA on every SM, CTAs in groups of ``G`` consecutive ones walking the same tiles of
their group's buffer (``kv_group``), every buffer together small enough to stay in the L2. The
rate is the bytes the extra steps bring over the time they add (two step counts, so the
launch and the Q block cancel), per G and tile size. ``--fills``: each group walks 1024
distinct tiles (4-8 GiB in all, the L2 flushed before each launch), so every tile comes from
DRAM and its group's CTAs share it as it arrives, as a grouped-head decode's do; the rate is
then the bytes the SMs receive, G times those the DRAM sends.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

#: CTAs reading the same tiles at once
GROUPS = (1, 2, 4, 8, 16, 33, 66, 132)
TILES_BYTES = (32768, 65536)
STEPS = (128, 512)
#: every group's buffer together, at most (the L2 keeps it, also with a copy in each half)
FOOTPRINT_BYTES = 12 << 20
MAX_TILES = 64  # a 64-tile walk, as a 4k-token head's K and V in 64-key tiles
WARMUP, REPEATS = 3, 15
#: ``--fills``: every group walks this many distinct tiles (a buffer far larger than the L2),
#: so each tile arrives from DRAM and the group's CTAs share it as it is filled, as the CTAs
#: of a grouped-head decode share their K/V tiles; the L2 is flushed before every launch
FILL_GROUPS = (1, 2, 4, 8, 16)
FILL_TILES, FILL_STEPS, FLUSH_BYTES = 1024, (256, 1024), 256 << 20


def tiles_per_group(sms: int, group: int, tile: int) -> int:
    """Tiles each group walks (cyclically): as many as the footprint allows, 1 to 64."""
    groups = -(-sms // group)
    return max(1, min(MAX_TILES, FOOTPRINT_BYTES // (groups * tile)))


def measure(cubin: Path | None = None, fills: bool = False) -> dict[str, Any]:
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.cta_life import SMEM_BYTES, build_cubin
    from gpusim.calibrate.event_timing import event_times_s

    log = ""
    if cubin is None:
        cubin, log = build_cubin(Path(tempfile.mkdtemp(prefix="gpusim-l2-tile-read-")))
    mod = cp.RawModule(path=str(cubin))
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = int(props["multiProcessorCount"])
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    fn = mod.get_function("cta_life_c1_d64")
    fn.max_dynamic_shared_size_bytes = SMEM_BYTES
    q = cp.random.randint(0, 2**31, size=sms * 64 * 64 * 2 // 4, dtype=cp.int32)
    groups, steps_of = (FILL_GROUPS, FILL_STEPS) if fills else (GROUPS, STEPS)
    kv_bytes = sms * FILL_TILES * max(TILES_BYTES) if fills else FOOTPRINT_BYTES + (8 << 20)
    kv = cp.random.randint(0, 2**31, size=kv_bytes // 4, dtype=cp.int32)
    o = cp.zeros(16, dtype=cp.uint32)
    stamps = cp.zeros(8 * sms, dtype=cp.uint64)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8) if fills else None

    def flushed(r: int) -> None:
        flush.fill(r & 0xFF)

    rows = []
    for tile in TILES_BYTES:
        for group in groups:
            k = FILL_TILES if fills else tiles_per_group(sms, group, tile)
            med = {}
            for steps in steps_of:
                args = (q, kv, o, stamps, np.int32(steps), np.int32(0), np.int32(0),
                        np.int32(tile), np.int32(group), np.int32(k))  # fmt: skip

                def launch(args=args) -> None:
                    fn((sms,), (256,), args, shared_mem=SMEM_BYTES)

                before = flushed if fills else None
                med[steps] = statistics.median(
                    event_times_s(cp, launch, REPEATS, WARMUP, before=before)
                )
            extra = (steps_of[1] - steps_of[0]) * tile * sms
            rate = extra / (med[steps_of[1]] - med[steps_of[0]])
            rows.append({"tile_bytes": tile, "group": group, "tiles_per_group": k,
                         "footprint_bytes": -(-sms // group) * k * tile,
                         "median_s": {str(s): t for s, t in med.items()},
                         "bytes_per_s": rate})  # fmt: skip
            print(f"l2_tile_read: tile {tile >> 10} KiB, {group:3d} CTAs a tile, {k:2d} tiles: "
                  f"{rate / 1e12:.3f} TB/s", flush=True)  # fmt: skip
    return {"kind": "gpusim.l2_tile_read", "gpu": name, "sm_count": sms, "ptxas": log,
            "fills": fills, "flush_bytes": FLUSH_BYTES if fills else 0,
            "kernel": "cta_life_c1_d64 (kernels/cta_life.cu): store 0, fma_iters 0",
            "smem_bytes": SMEM_BYTES, "steps": list(steps_of), "warmup": WARMUP,
            "repeats": REPEATS, "rows": rows}  # fmt: skip


def table(doc: dict[str, Any]) -> str:
    lines = ["| tile | CTAs a tile | tiles a group | footprint | TB/s to the SMs |",
             "|---|---|---|---|---|"]  # fmt: skip
    for r in doc["rows"]:
        mib, tbs = r["footprint_bytes"] / 2**20, r["bytes_per_s"] / 1e12
        lines.append(f"| {r['tile_bytes'] >> 10} KiB | {r['group']} | {r['tiles_per_group']} | "
                     f"{mib:.1f} MiB | {tbs:.3f} |")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.calibrate.l2_tile_read",
                                 description=__doc__.splitlines()[0])  # fmt: skip
    ap.add_argument("--out", type=Path, help="measure (on the GPU) into this record")
    ap.add_argument("--cubin", type=Path, help="a prebuilt cta_life cubin")
    ap.add_argument("--table", type=Path, help="a record to print as a table")
    ap.add_argument("--fills", action="store_true",
                    help="tiles from DRAM, shared by the group as they are filled")  # fmt: skip
    a = ap.parse_args(argv)
    if a.table is not None:
        try:
            print(table(json.loads(a.table.read_text())))
        except (OSError, ValueError, KeyError) as exc:
            print(f"l2_tile_read: error: {exc}", file=sys.stderr)
            return 2
        return 0
    if a.out is None:
        ap.error("give --out (measure) or --table (print)")
    doc = measure(a.cubin, a.fills)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
