"""The SM clock under an attention step's load, one part at a time (no attention kernel).

    python -m gpusim.calibrate.load_clock --out FILE      (on the GPU)
    python -m gpusim.calibrate.load_clock --table FILE

mma.sync products alone hold 1814-1815 MHz for seconds on the H200
(data/h200/2026-12-04_calibration_tensor_sustained), the profile's ``sm_clock_tensor_load_hz``;
the attention kernels ran at 1693-1815 MHz under Nsight Compute (long-context held-out set 5).
An attention step does more than products: exponentials and row arithmetic, and it streams
its next K/V tile from the L2 or DRAM into shared memory. ``load_clock`` (kernels/load_clock.cu,
128 threads, 2 CTAs per SM, 32-KiB tiles) adds these parts one at a time, and each launch's
clock is read from its blocks' clock64/%globaltimer stamps:

- ``sustained``: after 1 s idle, back-to-back launches of about 50 ms for 3 s;
- ``protocol``: launches of about 2 ms and 60 ms under the timing harness's protocol (1 s
  idle, 2 warm-up and 10 timed launches, each after a 256 MB L2 flush).

nvidia-smi's power and clock-event reasons are sampled beside each variant.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from gpusim.calibrate.clocks import SmiSampler, protocol_clocks, smi_static, sustained_clocks
from gpusim.calibrate.record_table import table_or_measure, write_into_profile

THREADS, BLOCKS_PER_SM, TILE_BYTES = 128, 2, 32 << 10
FLUSH_BYTES = 256 << 20
#: a buffer the L2 holds (32 MiB of the H200's 60) and one it cannot (2 GiB)
L2_BUF_BYTES, DRAM_BUF_BYTES = 32 << 20, 2 << 30
#: products per step: 32 rounds of one ldmatrix.x4 and 8 mma.sync per warp (an attention
#: step at d128 Bc64 issues 256 HMMA per warp); softmax: 2 rounds of 32 ex2 and 64 FMA
MMA_ROUNDS, MIX_ROUNDS = 32, 2
#: (name, stream from: None / "l2" / "dram", products, softmax)
VARIANTS = (
    ("products", None, True, False),
    ("products+softmax", None, True, True),
    ("products+softmax+L2 stream", "l2", True, True),
    ("products+softmax+DRAM stream", "dram", True, True),
    ("products+DRAM stream", "dram", True, False),
    ("DRAM stream", "dram", False, False),
)
SUSTAIN_S, SUSTAIN_LAUNCH_S, IDLE_S = 3.0, 0.05, 1.0
PROTOCOL_S = (2e-3, 6e-2)
WARMUP, TIMED = 2, 10


def measure(ctx: Any = None) -> dict[str, Any]:
    """Every variant's sustained and protocol clocks on device 0; inside ``gpusim calibrate``
    (``ctx`` given) only the variant the profile takes, under the protocol (about 4 s)."""
    import cupy as cp
    import numpy as np

    from gpusim.calibrate.sources import compile_module, kernel_attributes

    variants = VARIANTS if ctx is None else [v for v in VARIANTS if v[0] == STEP_VARIANT]
    sustain_s = SUSTAIN_S if ctx is None else 0.0

    mod = compile_module(cp, "load_clock.cu")
    fn = mod.get_function("load_clock")
    smem = 2 * TILE_BYTES
    fn.max_dynamic_shared_size_bytes = smem
    props = cp.cuda.runtime.getDeviceProperties(0)
    grid = int(props["multiProcessorCount"]) * BLOCKS_PER_SM
    # fp16 values in [-1, 1): the products stay finite (random bits would hold NaNs)
    bufs = {
        k: cp.random.uniform(-1.0, 1.0, size=n // 2, dtype=cp.float32).astype(cp.float16)
        for k, n in (("l2", L2_BUF_BYTES), ("dram", DRAM_BUF_BYTES))
    }
    out = cp.zeros(grid * THREADS, dtype=cp.float32)
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    records = []
    with SmiSampler(period_ms=50) as smi:
        for name, src, products, softmax in variants:
            buf = bufs[src or "l2"]
            args = (np.uint64(buf.nbytes // TILE_BYTES), np.int32(src is not None),
                    np.int32(MMA_ROUNDS if products else 0),
                    np.int32(MIX_ROUNDS if softmax else 0))  # fmt: skip

            def launch(tiles: int, buf=buf, args=args) -> float:
                start.record()
                fn((grid,), (THREADS,), (buf, args[0], np.int32(tiles), *args[1:], stamps, out),
                   shared_mem=smem)  # fmt: skip
                end.record()
                end.synchronize()
                return cp.cuda.get_elapsed_time(start, end)

            launch(64)
            per_tile_s = launch(4096) / 1e3 / 4096
            if not bool((out == 1.0).all()):
                raise RuntimeError(f"load_clock {name}: non-finite accumulators")
            time.sleep(IDLE_S)
            m0 = time.monotonic()
            tiles = max(1, int(SUSTAIN_LAUNCH_S / per_tile_s))
            sustained = sustained_clocks(cp, lambda t=tiles: launch(t), stamps, sustain_s)
            smi_window = smi.window(m0, time.monotonic())
            protocol = []
            for target in PROTOCOL_S:
                n = max(1, int(target / per_tile_s))
                run = protocol_clocks(
                    cp, lambda n=n: launch(n), stamps, flush, WARMUP, TIMED, IDLE_S
                )
                protocol.append({"target_s": target, "tiles": n, **run})
            records.append(
                {"variant": name, "stream": src, "products": products, "softmax": softmax,
                 "buffer_bytes": int(buf.nbytes) if src else None, "per_tile_s": per_tile_s,
                 "sustained": sustained, "smi_sustained": smi_window, "protocol": protocol}
            )  # fmt: skip
            # progress on stderr: `gpusim calibrate --json` prints one JSON object on stdout
            print(f"load_clock: {name}: {table_row(records[-1])}", file=sys.stderr, flush=True)
    return {
        "kind": "gpusim.load_clock",
        "kernel": "load_clock",
        "kernel_attributes": kernel_attributes(fn),
        "threads": THREADS,
        "grid": grid,
        "tile_bytes": TILE_BYTES,
        "mma_rounds": MMA_ROUNDS,
        "mix_rounds": MIX_ROUNDS,
        "smi_after": smi_static(),
        "variants": records,
    }


def sustained_clock_hz(rec: dict[str, Any], skip_s: float = 1.0) -> float | None:
    """Median clock of a variant's sustained launches after the first ``skip_s`` seconds
    (None: the suite's record has none)."""
    late = [r["clock_hz"] for r in rec["sustained"] if r["t_s"] >= skip_s]
    every = [r["clock_hz"] for r in rec["sustained"]]
    return statistics.median(late or every) if every else None


def suite_entry(record: dict[str, Any]) -> dict[str, Any]:
    """The suite's ``sm_clock_stream_load_hz``: value, note, and the bracket of its launches."""
    hz, clocks = stream_clock(record)
    return {
        "value": hz,
        "note": f"median of {len(clocks)} timed launches (each after a 256 MB L2 flush, 2 "
        f"warm-up) of load_clock's {STEP_VARIANT}; clock64 / globaltimer per block",
        "low": min(clocks),
        "high": max(clocks),
        "spread": "the slowest and fastest timed launch's clock",
    }


#: the variant whose clock the profile takes: an attention step's load, its tiles from the L2
#: (long-context kernels too: their DRAM bytes are a few percent of what they read)
STEP_VARIANT = "products+softmax+L2 stream"
#: the profile field it writes, placed after this one
FIELD, AFTER = "sm_clock_stream_load_hz", "sm_clock_tensor_load_hz"


def stream_clock(doc: dict[str, Any]) -> tuple[float, list[float]]:
    """The clock of :data:`STEP_VARIANT` under the timing protocol: the median over the timed
    launches of every protocol length, and those launches' clocks."""
    rec = _variant(doc)
    clocks = [x["clock_hz"] for p in rec["protocol"] for x in p["launches"] if x["timed"]]
    return statistics.median(clocks), clocks


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with ``sm_clock_stream_load_hz`` from a recorded run (after
    ``sm_clock_tensor_load_hz``) and a header line naming the record."""
    from gpusim.calibrate.profile_patch import set_after

    hz, clocks = stream_clock(doc)
    lengths = ", ".join(f"{p['median_ms']:.0f} ms" for p in _variant(doc)["protocol"])
    entry = {
        "value": hz,
        "source": f"measured, python -m gpusim.calibrate.load_clock ({record_path})",
        "note": f"median of {len(clocks)} timed launches ({lengths}; each after a 256 MB L2 "
        f"flush, 2 warm-up) of load_clock's {STEP_VARIANT}: min {min(clocks) / 1e6:.0f}, "
        f"max {max(clocks) / 1e6:.0f} MHz; clock64 / globaltimer per block; nvidia-smi: "
        "power cap reached (SW power cap)",
    }
    return set_after(profile_text, AFTER, {FIELD: entry}, f"# load clock: {record_path}")


def _variant(doc: dict[str, Any]) -> dict[str, Any]:
    """The record's :data:`STEP_VARIANT`, or ``ValueError``."""
    if doc.get("kind") != "gpusim.load_clock":
        raise ValueError("not a load_clock record")
    rec = next((r for r in doc["variants"] if r["variant"] == STEP_VARIANT), None)
    if rec is None:
        raise ValueError(f"the record has no {STEP_VARIANT!r} variant")
    return rec


def table_row(rec: dict[str, Any]) -> str:
    first = (rec["sustained"] or rec["protocol"][0]["launches"])[0]["clock_hz"]
    held = sustained_clock_hz(rec)
    proto = " | ".join(f"{p['median_clock_hz'] / 1e6:.0f}" for p in rec["protocol"])
    power = rec.get("smi_sustained", {}).get("power_w", {}).get("median")
    reasons = ",".join(rec.get("smi_sustained", {}).get("clock_event_reasons", [])) or "-"
    watts = f"{power:.0f}" if power is not None else "-"
    return (
        f"{first / 1e6:.0f} | {f'{held / 1e6:.0f}' if held else '-'} | {proto} | "
        f"{rec['per_tile_s'] * 1e6:.2f} | {watts} | {reasons}"
    )


def table(doc: dict[str, Any]) -> str:
    """The record as Markdown: one row per variant."""
    if doc.get("kind") != "gpusim.load_clock":
        raise ValueError("not a load_clock record")
    head = (
        "| load | first launch MHz | sustained 1-3 s MHz | protocol 2 ms MHz | protocol 60 ms MHz "
        "| us per tile | power W (median) | clock event reasons |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['variant']} | {table_row(r)} |" for r in doc["variants"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--table", type=Path)
    ap.add_argument("--record", type=Path, help="a recorded run, for --profile")
    ap.add_argument("--profile", type=Path, help=f"the profile YAML to set {FIELD} in")
    a = ap.parse_args(argv)
    if a.record is not None or a.profile is not None:
        if a.record is None or a.profile is None:
            ap.error("--record and --profile go together")
        return write_into_profile(a.record, a.profile, apply, FIELD)
    if a.out is None and a.table is None:
        ap.error("--out, --table or --record with --profile is required")
    return table_or_measure(a.table, a.out, measure, table, "load_clock")


if __name__ == "__main__":
    raise SystemExit(main())
