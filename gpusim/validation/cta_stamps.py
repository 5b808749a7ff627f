"""Where and when each CTA of the project's kernel runs: a diagnostic build (on the GPU).

    python -m gpusim.validation.cta_stamps --manifest M --out FILE [--ids ID ...]

The flash2_tc kernel has two empty hooks (``F2_CTA_BEGIN``, ``F2_CTA_END``); this build
defines them so that thread 0 of every CTA writes its SM (``%smid``) and ``%globaltimer`` at
the CTA's start and end into a device array, and the source is otherwise the kernel's own (the
default build's PTX is unchanged by the hooks). Each listed config of a long-context manifest
is launched a few times on random inputs; the last launch's stamps are kept, with the event
time of each launch. What it answers: which SMs the CTAs of a partial last wave run on, and in
which order the first wave's CTAs end (held-out set 31). Not a timing of record: the stamps'
stores are not in the measured kernel.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic

#: CTAs the stamp array holds
MAX_CTAS = 8192
LAUNCHES = 5
PRELUDE = f"""
__device__ unsigned long long f2_stamps[3 * {MAX_CTAS}];
__device__ __forceinline__ unsigned long long f2_gtime() {{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}}
__device__ __forceinline__ unsigned f2_smid() {{
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}}
#define F2_CTA_BEGIN() const unsigned long long f2_t0 = f2_gtime()
#define F2_CTA_END()                                                                       \\
  __syncthreads();                                                                         \\
  if (threadIdx.x == 0) {{                                                                 \\
    const unsigned long long f2_yz =                                                       \\
        blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z;                           \\
    const unsigned long long f2_id = blockIdx.x + (unsigned long long)gridDim.x * f2_yz;   \\
    if (f2_id < {MAX_CTAS}) {{                                                             \\
      f2_stamps[3 * f2_id] = f2_smid();                                                    \\
      f2_stamps[3 * f2_id + 1] = f2_t0;                                                    \\
      f2_stamps[3 * f2_id + 2] = f2_gtime();                                               \\
    }}                                                                                     \\
  }}
"""


def stamp_config(runner: Any, module_for: Any, c: Any) -> dict[str, Any]:
    """One config's stamps (SM, start, end in ns from the first start) and launch times."""
    from gpusim.kernels.schedule_timing import random_inputs

    cp, w = runner.cp, c.workload
    inst = runner.instance(w, c.schedule)
    module = module_for(inst)
    loaded = runner._register(inst, module.get_function(inst.name_expression), "nvrtc-stamps")
    ptr = module.get_global("f2_stamps")
    stamps = cp.ndarray((3 * MAX_CTAS,), dtype=cp.uint64, memptr=ptr)
    q, k, v = random_inputs(cp, w, seed=0)
    o = cp.empty_like(q)
    times = []
    for _ in range(LAUNCHES):
        stamps.fill(0)
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        runner.launch(loaded, w, q, k, v, o)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    s = stamps.get().reshape(-1, 3)
    rows = int(sum(1 for r in s if r[1]))
    t0 = int(min(r[1] for r in s[:rows]))
    return {"id": c.config_id, "launch_s": times, "ctas": rows,
            "smid": [int(r[0]) for r in s[:rows]],
            "start_ns": [int(r[1]) - t0 for r in s[:rows]],
            "end_ns": [int(r[2]) - t0 for r in s[:rows]]}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Stamp the listed configs (all of the manifest's without ``--ids``); keep going on a
    failure and write what was measured."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--ids", nargs="*", default=None)
    a = ap.parse_args(argv)
    from gpusim.kernels.runner import Flash2Runner
    from gpusim.kernels.source import CXX_OPTIONS, kernel_source
    from gpusim.validation.long_context_configs import read_manifest

    configs = [c for c in read_manifest(a.manifest) if a.ids is None or c.config_id in a.ids]
    runner = Flash2Runner()
    source = PRELUDE + kernel_source()

    modules: dict[str, Any] = {}

    def module_for(inst):  # one NVRTC build per instance (the stamps live in its module)
        if inst.key not in modules:
            modules[inst.key] = runner.cp.RawModule(code=source, options=CXX_OPTIONS,
                                                    name_expressions=[inst.name_expression])
        return modules[inst.key]

    out: dict[str, Any] = {"manifest": str(a.manifest), "configs": [], "failed": []}
    for c in configs:
        try:
            out["configs"].append(stamp_config(runner, module_for, c))
            print(f"{c.config_id}: {out['configs'][-1]['ctas']} CTAs", flush=True)
        except Exception as exc:  # a diagnostic: the others still run
            out["failed"].append({"id": c.config_id, "error": f"{type(exc).__name__}: {exc}"})
            print(f"{c.config_id}: failed: {exc}", file=sys.stderr, flush=True)
        atomic.write_text(a.out, json.dumps(out) + "\n")
    return 0 if not out["failed"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
