"""The GPU side of the long-context sweep: build its kernels, time it, count its bytes.

The entry point is ``python -m gpusim.reporting.long_context`` (``build``, ``measure``,
``ncu``; ``predict`` and ``compare`` need no GPU). Every step reads the committed manifest
(:func:`gpusim.validation.long_context_configs.read_manifest`), and every step resumes:
``sweep.jsonl`` keeps each record as it is measured, ``ncu.json`` each config's counts.
``provenance.json`` says where the numbers came from (GPU, driver, CUDA, libraries, clocks
seen, the manifest's digest, the command, the commit) and what each kernel instance is
(registers, shared memory, spills, built by nvcc or NVRTC).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import KernelInstance, instance_for
from gpusim.kernel_catalog.split_kv import CombineInstance
from gpusim.validation.long_context_configs import LongContextConfig, manifest_doc
from gpusim.validation.store import RecordStore

SWEEP_FILE = "sweep.jsonl"
NCU_FILE = "ncu.json"
PROVENANCE_FILE = "provenance.json"


def project_instances(configs: list[LongContextConfig]) -> list[KernelInstance | CombineInstance]:
    """The kernel instances the project's runs need (split runs: the combine kernel too)."""
    out: set = set()
    for c in configs:
        if c.kernel != "project":
            continue
        out.add(instance_for(c.workload, c.schedule))
        if c.schedule.kv_splits > 1:
            out.add(CombineInstance(c.workload.dtype, c.workload.head_dim))
    return sorted(out, key=lambda i: i.key)


def build(configs: list[LongContextConfig], cubin_dir: Path, jobs: int, checks: bool) -> dict:
    """nvcc-built cubins of the sweep's instances (and of the correctness check's variants
    when ``checks``) in ``cubin_dir``; ptxas's report per instance."""
    from gpusim.kernels.build import build_cubins
    from gpusim.kernels.check_long_context import variants

    insts = project_instances(configs)
    if checks:
        extra = variants()
        extra += [CombineInstance(i.dtype, i.head_dim) for i in extra if i.split]
        insts = sorted(set(insts) | set(extra), key=lambda i: i.key)
    return build_cubins(insts, cubin_dir, jobs=jobs)


def provenance_doc(cp: Any, manifest_path: Path, configs: list, method: dict) -> dict:
    """Provenance of a measurement run (the data manifest tool reads its fields)."""
    from gpusim.kernels.build import nvcc_version
    from gpusim.kernels.measurement_provenance import provenance

    prov = provenance(cp)
    try:
        prov["nvrtc_version"] = ".".join(str(v) for v in cp.cuda.nvrtc.getVersion())
    except Exception as exc:  # recorded, not fatal
        prov["nvrtc_version"] = f"unknown ({type(exc).__name__})"
    prov["nvcc_version"] = nvcc_version()
    prov["argv"] = list(sys.argv)
    prov["commit_env"] = os.environ.get("GPUSIM_COMMIT")
    prov["manifest"] = str(manifest_path)
    prov["manifest_configs_sha256"] = manifest_doc(configs)["configs_sha256"]
    return {"provenance": prov, "method": method}


METHOD = {
    "timer": "CUDA events around each launch (a split-KV run: both its kernels)",
    "statistic": "median",
    "repeats": "about 0.3 s of repeats, 5 to 30; warm-up 3 (1 for runs over 50 ms)",
    "l2_flush_bytes": 268435456,
    "inputs": "standard normal, drawn once per workload (never zeros)",
    "correctness": "output poisoned with NaN (PyTorch's: its own buffer, checked for NaN); "
    "2 (batch, head) pairs x up to 128 rows against float64, every key; relative error "
    "limit of gpusim.validation.measure.MAX_REL_ERR",
    "torch": "torch.ops.aten._scaled_dot_product_flash_attention (the SDPA flash backend; "
    "is_causal = bottom-right), kernels read from torch.profiler",
}


def measure(
    configs: list[LongContextConfig],
    manifest_path: Path,
    out_dir: Path,
    cubin_dir: Path | None,
    deadline: float | None,
    log: Callable[[str], None],
) -> Path:
    """Time every config not in ``out_dir/sweep.jsonl`` yet; the store's path."""
    from gpusim.calibrate.clocks import SmiSampler
    from gpusim.kernels.runner import import_cupy
    from gpusim.validation.long_context_measure import LongContextMeasurer

    cp = import_cupy()
    out_dir.mkdir(parents=True, exist_ok=True)
    doc = provenance_doc(cp, manifest_path, configs, dict(METHOD))
    atomic.write_text(out_dir / PROVENANCE_FILE, json.dumps(doc, indent=1))
    store = RecordStore(out_dir / SWEEP_FILE)
    measurer = LongContextMeasurer(store, cubin_dir, deadline, log)
    t0 = time.perf_counter()
    with SmiSampler(period_ms=200) as smi:
        m0 = time.monotonic()
        measurer.run(configs)
        doc["provenance"]["smi_during_sweep"] = smi.window(m0, time.monotonic())
    doc["method"]["sweep_wall_s"] = time.perf_counter() - t0
    doc["instances"] = instance_attributes(measurer.runner, configs)
    atomic.write_text(out_dir / PROVENANCE_FILE, json.dumps(doc, indent=1))
    return out_dir / SWEEP_FILE


def instance_attributes(runner: Any, configs: list[LongContextConfig]) -> dict[str, dict]:
    """Registers, shared memory, local memory and how it was built, per loaded instance."""
    out: dict[str, dict] = {}
    try:
        insts = project_instances(configs)
    except GpusimError as exc:
        return {"error": {"reason": str(exc)}}
    for inst in insts:
        try:
            out[inst.key] = inst.as_dict() | runner.load(inst).attributes()
        except Exception as exc:  # the records of its runs say so too
            out[inst.key] = {"error": str(exc)[:300]}
    return out


def records(out_dir: Path) -> list[dict]:
    """The measured records of a run folder (the last of each id)."""
    return list(RecordStore(out_dir / SWEEP_FILE).records.values())
