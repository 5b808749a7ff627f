"""Nsight Compute's DRAM and SM-to-L2 bytes of the long-context sweep's ``ncu`` configs.

    python -m gpusim.validation.long_context_ncu --manifest M --ids-file F [--cubin-dir D]

is the driver ncu runs: each listed config launched exactly once (both kernels of a
split-KV run; PyTorch's flash kernels for its runs) between two one-thread marker kernels
whose grid sizes encode the config's index (:func:`gpusim.ncu.attribute`), inputs drawn
before the opening marker. :func:`ncu_step` runs it under ``ncu --clock-control none
--cache-control all`` (caches flushed before every kernel, as the timed runs flush the L2)
with the bytes metrics of :mod:`gpusim.ncu`, and writes the per-config sums as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.ncu import MARKER_KERNEL
from gpusim.validation.long_context_configs import LongContextConfig, read_manifest
from gpusim.validation.ncu_driver import launch_marked, marker_kernel

#: Our kernels (flash2_tc, flash2_combine), PyTorch's (flash_fwd_kernel,
#: flash_fwd_splitkv_kernel, flash_fwd_splitkv_combine_kernel) and the markers.
KERNEL_FILTER = f"regex:{MARKER_KERNEL}|flash"


def _launches(runner: Any, c: LongContextConfig) -> tuple[list[Callable[[], Any]], list]:
    """One call of the config's kernel(s), and the buffers to keep alive meanwhile."""
    from gpusim.kernels.schedule_timing import random_inputs

    cp, w = runner.cp, c.workload
    q, k, v = random_inputs(cp, w, seed=0)
    if c.kernel == "project":
        loaded = runner.load(runner.instance(w, c.schedule))
        split = runner.split_workspace(w, c.schedule)
        o = cp.empty_like(q)
        return [lambda: runner.launch(loaded, w, q, k, v, o, split=split)], [q, k, v, o, split]
    import torch

    tdt = {"bf16": torch.bfloat16, "fp16": torch.float16}[w.dtype]
    tq, tk, tv = (
        torch.from_dlpack(x).view(tdt) if w.dtype == "bf16" else torch.from_dlpack(x)
        for x in (q, k, v)
    )
    op = torch.ops.aten._scaled_dot_product_flash_attention
    return [lambda: op(tq, tk, tv, 0.0, w.causal, False)], [q, k, v, tq, tk, tv]


def driver_main(argv: list[str] | None = None) -> int:
    """Launch the configs named in the ids file once each, markers around each."""
    ap = argparse.ArgumentParser(description=driver_main.__doc__)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--ids-file", type=Path, required=True)
    ap.add_argument("--cubin-dir", type=Path, default=None)
    args = ap.parse_args(argv)

    from gpusim.kernels.runner import Flash2Runner

    ids = [line.strip() for line in args.ids_file.read_text().splitlines() if line.strip()]
    by_id = {c.config_id: c for c in read_manifest(args.manifest)}
    runner = Flash2Runner(cubin_dir=args.cubin_dir)
    cp = runner.cp
    marker = marker_kernel(cp)
    for index, cid in enumerate(ids):
        keep: list = []
        try:
            launches, keep = _launches(runner, by_id[cid])
            launch_marked(cp, marker, index, launches)
            print(f"ncu driver: {cid} launched", file=sys.stderr, flush=True)
        except Exception as exc:  # one config failing must not stop the others
            print(f"ncu driver: {cid} failed: {exc}", file=sys.stderr, flush=True)
        finally:
            keep.clear()
            cp.get_default_memory_pool().free_all_blocks()
    return 0


#: Configs per ncu process: a process killed at its timeout loses its whole report, so the
#: longest runs (the DRAM target's 64k and 128k) go first, a few at a time.
CHUNK = 6


def ncu_step(
    configs: list[LongContextConfig],
    manifest: Path,
    out_file: Path,
    scratch: Path,
    cubin_dir: Path | None,
    timeout_s: float,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Profile the ``ncu`` configs not yet in ``out_file`` (longest first, :data:`CHUNK` per
    ncu process, ``timeout_s`` for them all); write ``out_file`` after each and return it."""
    from gpusim import ncu

    state: dict[str, Any] = json.loads(out_file.read_text()) if out_file.exists() else {}
    state.setdefault("by_config", {})
    state.setdefault("passes", [])
    exe = ncu.find_ncu()
    if exe is None:
        state |= {"available": False, "error": "ncu not found"}
        atomic.write_text(out_file, json.dumps(state, indent=1))
        return state
    marked = [c for c in configs if c.ncu and c.config_id not in state["by_config"]]
    marked.sort(key=lambda c: -c.workload.seq_len_k)
    if not marked:
        return state
    known, qerr = ncu.query_metrics(exe)
    metrics, dropped = ncu.select_metrics(known, ncu.REQUIRED_METRICS + ncu.BYTES_PASS_EXTRA)
    if "launch__grid_size" not in metrics:  # the markers are told apart by their grid size
        metrics.append("launch__grid_size")
    state |= {"available": True, "ncu": exe, "metrics_dropped": dropped, "query_error": qerr}
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        ver = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        state["version"] = ver.stdout.strip().splitlines()[-1] if ver.stdout.strip() else None
    scratch.mkdir(parents=True, exist_ok=True)
    end = time.monotonic() + timeout_s
    for n in range(0, len(marked), CHUNK):
        left = end - time.monotonic()
        if left < 20:
            log(f"ncu: no time left for {len(marked) - n} configs")
            break
        ids = [c.config_id for c in marked[n : n + CHUNK]]
        ids_file = scratch / f"ncu_ids_{n // CHUNK}.txt"
        ids_file.write_text("\n".join(ids) + "\n")
        argv = [sys.executable, "-m", "gpusim.validation.long_context_ncu"]
        argv += ["--manifest", str(manifest), "--ids-file", str(ids_file)]
        if cubin_dir:
            argv += ["--cubin-dir", str(cubin_dir)]
        log(f"ncu: {len(ids)} configs, {len(metrics)} metrics, {left:.0f} s left")
        t0 = time.perf_counter()
        base = scratch / f"ncu_bytes_{n // CHUNK}"
        res = ncu.profile(exe, argv, ids, base, metrics, left, KERNEL_FILTER)
        res["wall_s"] = time.perf_counter() - t0
        state["by_config"].update(res.pop("by_config", {}))
        state["passes"].append(res)
        log(f"ncu: {res.get('kernels_profiled', 0)} kernels in {res['wall_s']:.1f} s")
        if res.get("error"):
            log(f"ncu: {res['error']}")
        atomic.write_text(out_file, json.dumps(state, indent=1))
    return state


if __name__ == "__main__":
    raise SystemExit(driver_main())
