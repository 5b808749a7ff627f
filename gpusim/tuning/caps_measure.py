"""The tuner's launch caps against the H200: kernel instances run with fewer CTAs per SM.

Run on the GPU machine from the repository root:

    python -m gpusim.tuning.caps_measure --cubin-dir build/tuning --out OUT/h200_caps.json

The tuner also predicts each schedule with fewer CTAs per SM than fit (a budget of shared
memory per SM: gpusim/tuning/launch_caps.py); the tuning proof times only the full launch.
Here every instance of two proof workloads (d128 N4096 and d64 N8192, bf16, not causal)
that fits two or more CTAs per SM is timed at its full count and at every smaller count,
the smaller ones by padding each block's dynamic shared memory (the kernel uses only its
own part). The CTAs per SM of each launch come from the driver's occupancy query; the
padded launches' outputs must equal the full launch's bit for bit. Predictions are made on
the CPU afterwards (``python -m gpusim.tuning.caps_report``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from gpusim.tuning.proof_workloads import CAPS_WORKLOADS
from gpusim.tuning.space import search_space


def padded_bytes(props: dict, ctas: int) -> int:
    """Dynamic shared memory per block that lets at most ``ctas`` blocks share an SM, from the
    device's shared memory per SM and per-block reserve (233472 and 1024 B on the H200)."""
    return props["sharedMemPerMultiprocessor"] // ctas - props["reservedSharedMemPerBlock"]


def ctas_per_sm(cp, fn, threads: int, smem: int) -> int:
    """The driver's count of blocks of ``fn`` that fit one SM."""
    query = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor
    handle = fn.kernel.ptr if hasattr(fn, "kernel") else fn.ptr  # RawKernel or Function
    return int(query(handle, threads, smem))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="the record's file (a new one)")
    ap.add_argument("--cubin-dir", type=Path, required=True)
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()

    import cupy as cp

    from gpusim.calibrate.calibration_provenance import collect
    from gpusim.kernels.runner import Flash2Runner
    from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES, random_inputs, time_launches

    runner = Flash2Runner(cubin_dir=args.cubin_dir)
    flush = cp.empty(L2_FLUSH_BYTES, dtype=cp.uint8)
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode()
    record = {
        "kind": "gpusim launch caps proof",
        "provenance": collect(cp, name, sys.argv[1:]) | {"command": " ".join(sys.argv)},
        "repeats": args.repeats,
        "binaries": str(args.cubin_dir),
        "workloads": [],
    }
    out_path = args.out
    out_path.parent.mkdir(parents=True, exist_ok=True)
    for w in CAPS_WORKLOADS:
        q, k, v = random_inputs(cp, w, 0)
        entry = {"workload": w.model_dump(), "instances": []}
        record["workloads"].append(entry)
        space = search_space("flash2", w)
        for s in space.schedules:
            if s in space.unsupported:
                continue
            inst = runner.instance(w, s)
            loaded = runner.load(inst)
            fn = loaded.function
            full = ctas_per_sm(cp, fn, inst.threads, inst.smem_bytes)
            if full < 2:
                continue
            ref = cp.full(q.shape, cp.nan, dtype=q.dtype)  # poisoned; the full launch fills it
            runner.launch(loaded, w, q, k, v, ref)
            launches = []
            for ctas in range(full, 0, -1):
                smem = inst.smem_bytes if ctas == full else padded_bytes(props, ctas)
                fn.max_dynamic_shared_size_bytes = max(inst.smem_bytes, smem)
                got = ctas_per_sm(cp, fn, inst.threads, smem)
                o = cp.full(q.shape, cp.nan, dtype=q.dtype)

                def launch(loaded=loaded, w=w, q=q, k=k, v=v, o=o, smem=smem) -> None:
                    runner.launch(loaded, w, q, k, v, o, shared_mem_bytes=smem)

                times = time_launches(cp, launch, args.repeats, 3, flush)
                same = bool((o.view(cp.uint16) == ref.view(cp.uint16)).all())
                launches.append({
                    "ctas_per_sm": got, "dynamic_smem_bytes": smem,
                    "median_s": statistics.median(times), "min_s": min(times), "times_s": times,
                    "output_equals_full_launch": same,
                })  # fmt: skip
            fn.max_dynamic_shared_size_bytes = inst.smem_bytes
            entry["instances"].append({
                "schedule": s.model_dump(), "instance": inst.key,
                "attributes": loaded.attributes(), "launches": launches,
            })  # fmt: skip
            print(f"{inst.key}: " + ", ".join(
                f"{x['ctas_per_sm']} CTAs {1e3 * x['median_s']:.3f} ms" for x in launches
            ), file=sys.stderr, flush=True)  # fmt: skip
            out_path.write_text(json.dumps(record, indent=1) + "\n")  # kept if a later one fails
    out_path.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps({"file": str(out_path)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
