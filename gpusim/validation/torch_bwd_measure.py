"""Timing PyTorch's FlashAttention-2 backward on the GPU: the measurements the model's
backward pass is validated against.

    python -m gpusim.validation.torch_bwd_measure --manifest M.json --out DIR [--budget-s S]
    python -m gpusim.validation.torch_bwd_measure --manifest M.json --dry-run   # no GPU

The manifest and its checks are :mod:`gpusim.validation.bwd_manifest`'s; ``--dry-run``
lists its runs with the tiles and grids expected on an H200 and their FLOPs. Measuring is
:class:`~gpusim.validation.torch_bwd_measurer.TorchBwdMeasurer`'s (the inputs, the checked
backward against :mod:`gpusim.validation.bwd_reference`'s float64 reference, the timing and
the profiler's trace; :data:`METHOD` sums it up). Each run is one JSON line of
``DIR/runs.jsonl`` as soon as it is measured (a failed run too, with its error; the sweep
goes on; a rerun skips what is there, ``--retry-failed`` measures failed runs again); its
trace, taken after all the timing, is added as a new line (the last line of an id wins).
``DIR/provenance.json`` says where the numbers came from. Torch is imported inside
:func:`main`'s GPU path only, and nothing here needs the project's own dependencies
(pydantic, simpy), so on the GPU machine, from the checkout's root and with no wheels
carried::

    GPUSIM_COMMIT=<hash> PYTHONUNBUFFERED=1 python3 -m gpusim.validation.torch_bwd_measure \
        --manifest M.json --out "$OUT/bwd" --budget-s 400

``--budget-s`` stops starting runs after that many seconds and tracing 60 s later; give the
call's limit room for the longest run past it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.errors import GpusimError
from gpusim.validation.bwd_manifest import BwdRun, expected, load_manifest
from gpusim.validation.bwd_reference import MATH_FACTOR, REL_ERR_LIMIT
from gpusim.validation.store import RecordStore
from gpusim.validation.torch_bwd_measurer import (
    L2_FLUSH_BYTES,
    REPEATS,
    WARMUP,
    TorchBwdMeasurer,
    log,
)

RUNS_FILE, PROVENANCE_FILE = "runs.jsonl", "provenance.json"
METHOD = {
    "warmup": WARMUP,
    "repeats": REPEATS,
    "statistic": "median",
    "l2_flush_bytes": L2_FLUSH_BYTES,
    "timer": "torch.cuda.Event pairs on the current stream around each call",
    "backward": "out.backward(dO, retain_graph=True), q/k/v .grad set to None before each",
    "inputs": "standard normal; q, k, v, dO stored (batch, seq, heads, dim), passed transposed",
    "reference": "float64 on the GPU, explicit softmax and its gradient, row chunks",
    "error": "relative Frobenius norm of (got - ref) over ref",
    "poison": "grads None; allocator blocks of the grads' sizes NaN-filled and freed before",
    "rel_err_limit": REL_ERR_LIMIT,
    "math_factor": MATH_FACTOR,
    "flops": "backward 10*B*H*Nq*Nk*d, forward 4*B*H*Nq*Nk*d, halved when causal",
}


def provenance(torch: Any, manifest: Path, measurer: TorchBwdMeasurer) -> dict[str, Any]:
    """GPU, driver, CUDA, torch, Python, clocks, date, commit (``$GPUSIM_COMMIT``)."""
    from gpusim.kernels.measurement_provenance import nvidia_smi

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    smi = nvidia_smi()
    out: dict[str, Any] = {
        "date_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": os.environ.get("GPUSIM_COMMIT"),
        "python": platform.python_version(),
        "host": platform.node(),
        "gpu_name": torch.cuda.get_device_name(),
        "sm_count": props.multi_processor_count,
        "total_memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "compute_capability": f"{props.major}.{props.minor}",
        "max_smem_per_block_optin": measurer.max_smem,
        "driver": smi.get("driver_version"),
        "sm_clock_mhz": smi.get("clocks.sm"),
        "sm_clock_max_mhz": smi.get("clocks.max.sm"),
        "nvidia_smi": smi,
        "cuda": torch.version.cuda,
        "torch_version": torch.__version__,
        "sdpa_api": measurer.sdpa_api,
        "argv": list(sys.argv),
        "manifest": str(manifest),
        "manifest_sha256": hashlib.sha256(Path(manifest).read_bytes()).hexdigest(),
    }
    with contextlib.suppress(Exception):  # an optional fact (needs pynvml)
        out["torch_clock_rate_mhz"] = torch.cuda.clock_rate()
    with contextlib.suppress(Exception):  # an optional fact
        out["cudnn_version"] = torch.backends.cudnn.version()
    with contextlib.suppress(Exception):  # an optional fact: the math backend's precision
        out["math_sdp_fp16_bf16_reduction"] = (
            torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
        )
    return out


def dry_run(runs: list[BwdRun]) -> int:
    """Each run with the tiles and grids expected on an H200, and its FLOPs; no GPU."""
    for r in runs:
        e = expected(r)
        print(
            f"{r.id:40s} {r.dtype} d{r.head_dim} {'causal' if r.causal else 'full  '} "
            f"{e['block_m']}x{e['block_n']} {e['warps']} warps smem {e['smem_bytes']} "
            f"grid {e['grids'][e['kernels'][1]]} bwd {r.flops_bwd() / 1e12:.3f} TFLOP"
        )
    print(f"{len(runs)} runs")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="torch_bwd_measure", description=__doc__.splitlines()[0])
    p.add_argument("--manifest", type=Path, required=True)
    p.add_argument("--out", type=Path, help="the folder of runs.jsonl and provenance.json")
    p.add_argument("--budget-s", type=float, help="stop starting runs after this many seconds")
    p.add_argument("--retry-failed", action="store_true", help="measure failed runs again")
    p.add_argument("--dry-run", action="store_true", help="list the runs; no GPU")
    a = p.parse_args(argv)
    try:
        runs = load_manifest(a.manifest)
    except GpusimError as exc:
        print(f"torch_bwd_measure: error: {exc}", file=sys.stderr)
        return 2
    if a.dry_run:
        return dry_run(runs)
    if a.out is None:
        print("torch_bwd_measure: error: --out is needed to measure", file=sys.stderr)
        return 2
    import torch

    if not torch.cuda.is_available():
        print("torch_bwd_measure: error: no CUDA device", file=sys.stderr)
        return 2
    deadline = None if a.budget_s is None else time.time() + a.budget_s
    a.out.mkdir(parents=True, exist_ok=True)
    store = RecordStore(a.out / RUNS_FILE, retry_failed=a.retry_failed)
    measurer = TorchBwdMeasurer(store, deadline)
    doc = {"provenance": provenance(torch, a.manifest, measurer), "method": METHOD}
    atomic.write_text(a.out / PROVENANCE_FILE, json.dumps(doc, indent=1, default=str))
    t0 = time.perf_counter()
    measurer.run_all(runs)
    doc["method"] = METHOD | {"sweep_wall_s": time.perf_counter() - t0}
    atomic.write_text(a.out / PROVENANCE_FILE, json.dumps(doc, indent=1, default=str))
    recs = measurer.store.ordered([r.id for r in runs])
    ok = sum(r.get("status") == "ok" for r in recs)
    log(f"{ok} ok, {len(recs) - ok} failed, {len(runs) - len(recs)} not measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
