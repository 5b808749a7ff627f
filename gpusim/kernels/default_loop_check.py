"""Do today's kernels still compile to the recorded machine code? And how far do the variants part?

    python -m gpusim.kernels.default_loop_check --out OUT/sass_check.json [--only KEY] [--jobs N]

The model replays each tensor-core instance's main loop from the recorded offline build
(``data/sm90/2026-11-30_kernels_build``: loop counts, one steady step per instance as the
core model's instructions, ptxas's registers and spills). The long-context switches of
``flash2_tc.cu`` are template parameters, so an instance with all of them off must compile
to that same code. This rebuilds every grid instance from the current source with the
offline build's nvcc and options, walks its loop the way
:mod:`gpusim.kernels.loop_extract` does, and compares field by field; exit 1 on any
difference. ``--variants`` also builds, for a few tile shapes, each switch on its own and
reports how its steady step differs from its base instance's (instructions added or
removed, by opcode): what replaying the base's loop for it would miss.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from gpusim import atomic
from gpusim.kernel_catalog.instances import KernelInstance, all_instances
from gpusim.kernel_catalog.loop_counts import loop_counts, loop_paths_table
from gpusim.kernels.build import nvcc_version
from gpusim.kernels.loop_extract import instance_loop

#: Tile shapes whose switch variants are compared with their base (the sweep's instances).
VARIANT_BASES = (
    KernelInstance("tc", "bf16", 128, 128, 64, 4, 2),
    KernelInstance("tc", "bf16", 128, 64, 64, 4, 2),
    KernelInstance("tc", "bf16", 128, 128, 64, 4, 1),
)
SWITCHES = ("kv_backward", "q_first", "gqa", "split")


def recorded_ptxas() -> dict[str, dict]:
    """ptxas's recorded report per instance key (registers, spills)."""
    from gpusim.kernel_catalog.compiled import PTXAS_REPORT

    return json.loads(PTXAS_REPORT.read_text())["ptxas"]


def _build_all(insts: list[KernelInstance], jobs: int) -> dict[str, tuple]:
    """(loop counts, steady-step rows, ptxas report) of each instance, compiled once."""
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(
            zip(
                [i.key for i in insts],
                pool.map(lambda i: instance_loop(i, Path(tmp)), insts),
                strict=True,
            )
        )


PTXAS_FIELDS = ("registers", "spill_store_bytes", "spill_load_bytes", "stack_frame_bytes")


def check_defaults(insts: list[KernelInstance], jobs: int) -> dict:
    """Per instance: whether loop counts, the steady step and ptxas's figures match."""
    got = _build_all(insts, jobs)
    rec_counts, rec_paths, rec_ptx = loop_counts(), loop_paths_table(), recorded_ptxas()
    out = {}
    for inst in insts:
        k = inst.key
        counts, path, ptx = got[k]
        now_ptx = {f: ptx.get(f) for f in PTXAS_FIELDS}
        was_ptx = {f: rec_ptx.get(k, {}).get(f) for f in PTXAS_FIELDS}
        out[k] = {
            "loop_counts_equal": counts == rec_counts.get(k),
            "steady_step_equal": path == rec_paths.get(k),
            "ptxas_equal": now_ptx == was_ptx,
            "loop_counts": counts,
            "ptxas": now_ptx,
        }
        if not out[k]["ptxas_equal"]:
            out[k]["ptxas_recorded"] = was_ptx
    return out


def compare_variants(bases: tuple[KernelInstance, ...] = VARIANT_BASES, jobs: int = 2) -> dict:
    """Each switch alone on each base: its steady step's opcode counts minus the base's."""
    insts = list(bases) + [replace(b, **{s: True}) for b in bases for s in SWITCHES]
    got = _build_all(insts, jobs)

    def ops(key: str) -> Counter:
        return Counter(row[0] for row in got[key][1])

    out = {}
    for base in bases:
        ops0 = ops(base.key)
        for switch in SWITCHES:
            inst = replace(base, **{switch: True})
            now = ops(inst.key)
            delta = {op: now[op] - ops0[op] for op in set(now) | set(ops0) if now[op] != ops0[op]}
            counts, ptx = got[inst.key][0], got[inst.key][2]
            out[inst.key] = {
                "base": base.key,
                "steady_step_instructions": sum(now.values()),
                "base_steady_step_instructions": sum(ops0.values()),
                "delta_by_opcode": dict(sorted(delta.items())),
                "loop_counts": counts,
                "base_loop_counts": got[base.key][0],
                "registers": ptx.get("registers"),
                "spill_store_bytes": ptx.get("spill_store_bytes"),
            }
    return out


def main(argv: list[str] | None = None) -> int:
    """Check every grid instance (or ``--only``), optionally the variants; write ``--out``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", default="", help="substring filter on instance keys")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--variants", action="store_true", help="also compare the switch variants")
    args = ap.parse_args(argv)
    insts = [i for i in all_instances("tc") if args.only in i.key]
    result = check_defaults(insts, args.jobs)
    bad = sorted(
        k
        for k, r in result.items()
        if not (r["loop_counts_equal"] and r["steady_step_equal"] and r["ptxas_equal"])
    )
    doc: dict = {
        "what": "default instances rebuilt from the current source against the recorded "
        "build data/sm90/2026-11-30_kernels_build (loop counts, steady step, ptxas)",
        "nvcc": nvcc_version(),
        "instances": len(result),
        "differing": bad,
        "by_instance": result,
    }
    if args.variants:
        doc["variants"] = compare_variants(jobs=args.jobs)
    atomic.write_text(args.out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{len(result)} default instances rebuilt; {len(bad)} differ from the recorded build")
    for k in bad[:20]:
        print("DIFFERS", k, json.dumps(result[k])[:300])
    for k, v in doc.get("variants", {}).items():
        print(
            f"{k:44s} steady {v['base_steady_step_instructions']:5d} -> "
            f"{v['steady_step_instructions']:5d} {v['delta_by_opcode']}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
