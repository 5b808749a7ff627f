"""The long-context switch instances' main loops beside their base instances' (sampled).

The SM core model replays the committed steady step of each grid instance
(``data/sm90/2026-11-30_kernels_build``). The tensor-core kernel's long-context switches
(split-KV, the backward K/V walk, first-first launch, grouped K/V heads, packed GQA heads)
are template parameters of the same kernel: they change how a CTA finds its tiles and
where it writes, not the step. Compiling every switch combination of every instance for
the committed table would take hours, so the core model replays a switch instance with its
base instance's committed step, and this module records the evidence that it may: a sample
of switch instances compiled with the offline build's nvcc, each one's steady step decoded
as the core model reads it, and ptxas's report. ``tests/kernels/test_switch_loops.py``
replays the sampled steps beside their bases' on the CPU and holds the difference.

Run with ``python -m gpusim.kernels.switch_loops --out DIR`` (nvcc and cuobjdump needed);
the recorded sample is ``data/sm90/2026-12-04_switch_loops``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from gpusim import atomic
from gpusim.kernel_catalog.instances import KernelInstance, rejection_reason

#: Base instances of the sample (bf16): the tiles the long-context sets and the tuner's
#: decode and prefill choices use, at d64 and d128, four and eight warps, one to three stages.
SAMPLE_BASES = tuple(
    KernelInstance("tc", "bf16", d, m, n, w, s)
    for d, m, n, w, s in (
        (128, 64, 64, 4, 2),
        (128, 64, 128, 4, 2),
        (128, 64, 32, 4, 2),
        (128, 128, 64, 4, 2),
        (128, 128, 64, 4, 1),
        (128, 128, 64, 8, 2),
        (128, 128, 32, 4, 2),
        (128, 128, 128, 8, 2),
        (64, 64, 64, 4, 2),
        (64, 64, 128, 4, 2),
        (64, 128, 64, 4, 2),
        (64, 128, 128, 8, 3),
    )
)
#: Switch combinations of the sample (KernelInstance field names).
SAMPLE_SWITCHES = (
    ("split",),
    ("kv_backward",),
    ("q_first",),
    ("gqa",),
    ("gqa", "pack"),
    ("gqa", "split"),
    ("kv_backward", "q_first"),
)


def sample_instances() -> list[KernelInstance]:
    """Every feasible switch instance of the sample, in a fixed order."""
    out = []
    for base in SAMPLE_BASES:
        for sw in SAMPLE_SWITCHES:
            inst = replace(base, **dict.fromkeys(sw, True))
            if rejection_reason(inst) is None:
                out.append(inst)
    return out


def _one(inst: KernelInstance, tmp: Path) -> tuple[list, dict]:
    from gpusim.kernels.loop_extract import instance_loop

    _counts, rows, report = instance_loop(inst, tmp)
    return rows, report


def main(argv: list[str] | None = None) -> int:
    """Compile the sample and write ``loop_paths.json.gz`` and ``ptxas.json`` into ``--out``."""
    from gpusim.kernels.build import nvcc_version
    from gpusim.source_commit import git_commit

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--out", type=Path, required=True, help="folder to write (a new one)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    insts = sample_instances()
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        done = pool.map(lambda i: _one(i, Path(tmp)), insts)
        got = dict(zip([i.key for i in insts], done, strict=True))
    head = {"nvcc": nvcc_version(), "arch": "sm_90", "git_commit": git_commit()}
    args.out.mkdir(parents=True, exist_ok=True)
    paths = head | {
        "what": "one steady step of each sampled switch instance's main loop, per "
        "instruction: [opcode, stall, write barrier, read barrier, wait mask, registers "
        "written, registers read] (gpusim/kernel_catalog/loop_counts.py's format)",
        "bases": {i.key: i.base().key for i in insts},
        "instances": {k: v[0] for k, v in got.items()},
    }
    blob = gzip.compress(json.dumps(paths, sort_keys=True).encode(), mtime=0)
    atomic.write_bytes(args.out / "loop_paths.json.gz", blob)
    reports = head | {"instances": {k: v[1] for k, v in got.items()}}
    atomic.write_text(args.out / "ptxas.json", json.dumps(reports, indent=1, sort_keys=True))
    print(f"{len(insts)} switch instances -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
