"""The SM-partition set on the GPU: each config timed on a green context of its SM count.

    python -m gpusim.validation.partitions_device --out OUT [--manifest M] [--budget-s S]
    python -m gpusim.validation.partitions_device --dry-run   # the plan, no GPU

One green context per SM count of the manifest (:mod:`gpusim.kernels.green_context`; the
SMs the driver granted and those a probe kernel ran on are recorded); each config's work
runs on its partition's stream, CuPy's and PyTorch's alike. Timing and correctness are
the long-context sweep's (:class:`~gpusim.validation.long_context_measure.LongContextMeasurer`:
random inputs, a NaN-poisoned output judged on a float64 sample, CUDA events around each
launch, the L2 flushed before each repeat, warm-up, the median), with the events, the
flush and the launches all on the partition's stream. Records are appended to
``OUT/sweep.jsonl`` as they are measured (a rerun resumes), ``OUT/provenance.json`` holds
the machine, the versions, the partitions and the method.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.data.layout import H200
from gpusim.errors import GpusimError
from gpusim.validation.long_context_measure import LongContextMeasurer
from gpusim.validation.partition_configs import PartitionConfig, manifest_doc, read_manifest
from gpusim.validation.store import RecordStore

MANIFEST = H200 / "2026-12-02_partitions" / "manifest_configs.json"
SWEEP_FILE, PROVENANCE_FILE = "sweep.jsonl", "provenance.json"

METHOD = {
    "partitions": "green contexts (cuda.bindings.driver: cuDeviceGetDevResource, "
    "cuDevSmResourceSplitByCount(1 group, min count = the config's sm_count), "
    "cuDevResourceGenerateDesc, cuGreenCtxCreate, cuGreenCtxStreamCreate); 132: the "
    "device's resource unsplit; CuPy through cupy.cuda.ExternalStream, PyTorch through "
    "torch.cuda.ExternalStream, on the partition's stream",
    "timer": "CUDA events on the partition's stream around each launch",
    "statistic": "median",
    "repeats": "about 0.3 s of repeats, 5 to 30; warm-up 3 (1 for runs over 50 ms)",
    "l2_flush_bytes": 268435456,
    "inputs": "standard normal, drawn once per workload (never zeros)",
    "correctness": "output poisoned with NaN (PyTorch's: its own buffer, checked for NaN); "
    "2 (batch, head) pairs x up to 128 rows against float64, every key",
    "torch": "torch.ops.aten._scaled_dot_product_flash_attention (the SDPA flash backend), "
    "kernels read from torch.profiler (outside the partitions)",
}


def build(configs: list[PartitionConfig], cubin_dir: Path, jobs: int) -> dict[str, dict]:
    """nvcc-built cubins of the project's instances (as the long-context sweep ran them);
    ptxas's report per instance."""
    from gpusim.kernel_catalog.instances import instance_for
    from gpusim.kernels.build import build_cubins

    insts = {instance_for(c.workload, c.schedule) for c in configs if c.kernel == "project"}
    return build_cubins(sorted(insts, key=lambda i: i.key), cubin_dir, jobs=jobs)


class PartitionMeasurer(LongContextMeasurer):
    """The long-context measurer with each config's work on its partition's stream."""

    def __init__(self, store: RecordStore, partitions: dict[int, Any], **kwargs: Any):
        super().__init__(store, **kwargs)
        self.partitions = partitions

    def _measure(self, c: PartitionConfig) -> dict[str, Any]:  # type: ignore[override]
        part = self.partitions.get(c.sm_count)
        if part is None:
            raise GpusimError(f"no partition of {c.sm_count} SMs was made")
        with part.current():
            rec = super()._measure(c)  # type: ignore[arg-type]
        return rec | {"partition": part.as_dict(), "sm_count_obtained": part.sm_count}


def open_partitions(counts: list[int], log: Callable[[str], None]) -> tuple[dict, dict]:
    """A green context per SM count, and each one's facts (or why it failed)."""
    from gpusim.kernels.green_context import open_partition

    parts, facts = {}, {}
    for n in counts:
        try:
            parts[n] = open_partition(n)
            facts[str(n)] = parts[n].as_dict()
        except Exception as exc:  # its configs fail with the reason; the others go on
            facts[str(n)] = {"requested_sms": n, "error": f"{type(exc).__name__}: {exc}"[:500]}
        log(f"partition {n}: {facts[str(n)]}")
    return parts, facts


def measure(
    configs: list[PartitionConfig],
    manifest_path: Path,
    out_dir: Path,
    deadline: float | None,
    log: Callable[[str], None],
    cubin_dir: Path | None = None,
) -> Path:
    """Time every config not in ``out_dir/sweep.jsonl`` yet, on its partition (the project's
    kernels from ``cubin_dir``'s cubins where there are, else built by NVRTC)."""
    from gpusim.calibrate.clocks import SmiSampler
    from gpusim.kernels.measurement_provenance import provenance
    from gpusim.kernels.runner import import_cupy

    cp = import_cupy()
    out_dir.mkdir(parents=True, exist_ok=True)
    prov = provenance(cp) | {"argv": list(sys.argv), "manifest": str(manifest_path)}
    prov["manifest_configs_sha256"] = manifest_doc(configs)["configs_sha256"]
    with contextlib.suppress(Exception):  # an optional fact
        prov["nvrtc_version"] = ".".join(str(v) for v in cp.cuda.nvrtc.getVersion())
    with contextlib.suppress(Exception):  # an optional fact
        import torch

        prov["torch_version"] = torch.__version__
    parts, facts = open_partitions(sorted({c.sm_count for c in configs}), log)
    doc = {"provenance": prov, "method": dict(METHOD), "partitions": facts}
    atomic.write_text(out_dir / PROVENANCE_FILE, json.dumps(doc, indent=1))
    store = RecordStore(out_dir / SWEEP_FILE)
    measurer = PartitionMeasurer(store, parts, cubin_dir=cubin_dir, deadline=deadline, log=log)
    t0 = time.perf_counter()
    with SmiSampler(period_ms=200) as smi:
        m0 = time.monotonic()
        measurer.run(configs)  # type: ignore[arg-type]
        doc["provenance"]["smi_during_sweep"] = smi.window(m0, time.monotonic())
    doc["method"]["sweep_wall_s"] = time.perf_counter() - t0
    doc["instances"] = _instances(measurer, configs)
    atomic.write_text(out_dir / PROVENANCE_FILE, json.dumps(doc, indent=1))
    for p in parts.values():
        with contextlib.suppress(Exception):  # an optional fact
            p.close()
    return out_dir / SWEEP_FILE


def _instances(measurer: PartitionMeasurer, configs: list[PartitionConfig]) -> dict:
    """Registers, shared memory and how it was built, per project instance loaded."""
    from gpusim.kernel_catalog.instances import instance_for

    out: dict[str, Any] = {}
    for c in configs:
        if c.kernel != "project":
            continue
        inst = instance_for(c.workload, c.schedule)
        if inst.key in out:
            continue
        try:
            out[inst.key] = inst.as_dict() | measurer.runner.load(inst).attributes()
        except Exception as exc:  # the records of its runs say so too
            out[inst.key] = {"error": str(exc)[:300]}
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure the manifest's configs (or print the plan with ``--dry-run``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--budget-s", type=float, default=None)
    ap.add_argument("--only", default="", help="comma-separated parts of config ids")
    ap.add_argument("--cubin-dir", type=Path, default=None, help="nvcc-built cubins")
    ap.add_argument("--build-jobs", type=int, default=0, help="build the cubins first")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        configs = read_manifest(args.manifest)
        parts = [p for p in args.only.split(",") if p]
        if parts:
            configs = [c for c in configs if any(p in c.config_id for p in parts)]
        if args.dry_run:
            from gpusim.kernel_catalog.instances import instance_for

            keys = {
                instance_for(c.workload, c.schedule).key for c in configs if c.kernel == "project"
            }
            counts = sorted({c.sm_count for c in configs})
            print(f"{len(configs)} configs, partitions {counts}, instances {sorted(keys)}")
            return 0
        if args.out is None:
            raise GpusimError("--out is required unless --dry-run")
        deadline = time.time() + args.budget_s if args.budget_s else None
        if args.build_jobs and args.cubin_dir:
            t0 = time.perf_counter()
            try:
                report = build(configs, args.cubin_dir, args.build_jobs)
                log(f"built {sorted(report)} in {time.perf_counter() - t0:.1f} s")
            except Exception as exc:  # NVRTC builds them then; provenance says which ran
                log(f"nvcc build failed ({type(exc).__name__}: {exc}); NVRTC instead")
        path = measure(configs, args.manifest, args.out, deadline, log, args.cubin_dir)
    except GpusimError as exc:
        print(f"partitions_device: error: {exc}", file=sys.stderr)
        return 2
    recs = list(RecordStore(path).records.values())
    ok = sum(r.get("status") == "ok" for r in recs)
    print(f"{ok}/{len(recs)} ok of {len(configs)} configs; records in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
