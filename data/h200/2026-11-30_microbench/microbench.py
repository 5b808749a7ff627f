"""One-off microbenchmarks behind the ``measured on ...`` sources of the Hopper profiles.

Run on a machine with an NVIDIA GPU and CuPy: ``python microbench.py OUT.json``.
It records the device attributes the profiles quote and measures, per SM and per
clock (``clock64`` deltas on each SM, so clock throttling does not bias them):
``mma.sync`` rates, MUFU ``ex2`` and FFMA rates, shared-memory bandwidth, L2 and
DRAM pointer-chase latencies, L2 and DRAM read bandwidth, and kernel launch cost.
``gpusim calibrate`` is the maintained tool; this script documents where the
numbers in ``hardware_profiles/*.yaml`` marked "measured" came from.
"""

from __future__ import annotations

import datetime
import json
import platform
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

SRC = (Path(__file__).with_name("microbench.cu")).read_text()


def per_sm_rate(rec: np.ndarray, work_per_block: float) -> dict:
    """Work per SM clock: each SM's blocks' work over its first start to last end."""
    rec = rec.reshape(-1, 3)
    rates = []
    for sm in np.unique(rec[:, 2]):
        rows = rec[rec[:, 2] == sm]
        rates.append(len(rows) * work_per_block / (rows[:, 1].max() - rows[:, 0].min()))
    rates = np.array(rates)
    return {
        "median": float(np.median(rates)),
        "min": float(rates.min()),
        "max": float(rates.max()),
        "sms": len(rates),
    }


def timed(fn, repeat=3) -> float:
    """Best device time in seconds of ``fn()`` over ``repeat`` runs (after one warm-up)."""
    fn()
    best = float("inf")
    for _ in range(repeat):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(e0, e1) * 1e-3)
    return best


def main(out_path: str) -> None:
    dev = cp.cuda.Device(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    keep = [
        "multiProcessorCount",
        "clockRate",
        "l2CacheSize",
        "sharedMemPerMultiprocessor",
        "sharedMemPerBlockOptin",
        "reservedSharedMemPerBlock",
        "regsPerMultiprocessor",
        "regsPerBlock",
        "maxThreadsPerMultiProcessor",
        "maxThreadsPerBlock",
        "maxBlocksPerMultiProcessor",
        "totalGlobalMem",
        "memoryClockRate",
        "memoryBusWidth",
        "major",
        "minor",
        "persistingL2CacheMaxSize",
    ]
    name = props["name"]
    res: dict = {
        "device_name": name.decode() if isinstance(name, bytes) else name,
        "attributes": {k: int(props[k]) for k in keep if k in props},
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cp.cuda.runtime.driverGetVersion(),
        "cupy": cp.__version__,
        "python": platform.python_version(),
        "date_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "mem_info_total_bytes": int(dev.mem_info[1]),
    }
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    sink = cp.zeros(4, cp.float32)
    warps, blocks, iters = 8, 2 * sms, 4096
    rec = cp.zeros(3 * blocks, cp.int64)

    def rate(name, work_per_iter_per_warp, smem=0):
        k = mod.get_function(name)
        if smem:
            k.max_dynamic_shared_size_bytes = smem
        run = lambda: k((blocks,), (32 * warps,), (np.int32(iters), rec, sink), shared_mem=smem)  # noqa: E731
        t = timed(run)
        r = per_sm_rate(rec.get(), work_per_iter_per_warp * iters * warps)
        cyc = rec.get().reshape(-1, 3)
        r["implied_sm_clock_hz"] = float((cyc[:, 1] - cyc[:, 0]).max() / t)
        return r

    # 8 independent MMAs per iteration per warp; m16n8k16 = 4096 FLOP, m16n8k8 = 2048 FLOP.
    res["mma_sync_f16_f32acc_flops_per_clk_per_sm"] = rate("mma_f16", 8 * 4096)
    res["mma_sync_bf16_f32acc_flops_per_clk_per_sm"] = rate("mma_bf16", 8 * 4096)
    res["mma_sync_tf32_f32acc_flops_per_clk_per_sm"] = rate("mma_tf32", 8 * 2048)
    res["mufu_ex2_per_clk_per_sm"] = rate("ex2_rate", 8 * 32)
    res["ffma_flops_per_clk_per_sm"] = rate("ffma_rate", 32 * 32 * 2)
    smem_bytes = 8 * 32 * warps * 16  # eight slots of one uint4 per thread
    res["smem_ld_v4_bytes_per_clk_per_sm"] = rate("smem_rate", 8 * 32 * 16, smem=smem_bytes)

    chase = mod.get_function("chase")
    line = 128
    rng = np.random.default_rng(0)
    for label, nbytes in (("l2_8MiB", 8 << 20), ("dram_256MiB", 256 << 20), ("dram_2GiB", 2 << 30)):
        nlines = nbytes // line
        perm = rng.permutation(nlines)
        nxt = np.empty(nlines, np.uint64)
        nxt[perm] = np.roll(perm, -1) * (line // 8)  # a single random cycle over all lines
        table = cp.zeros(nbytes // 8, cp.uint64)
        table[:: line // 8] = cp.asarray(nxt)
        out = cp.zeros(2, cp.int64)
        steps = 20000
        # L2: one full lap first so every line is resident. DRAM: evict the table from L2 first.
        warm = nlines if label.startswith("l2") else 0
        if not warm:
            scratch = cp.ones(256 << 20, cp.uint32)
            scratch.sum()
            del scratch
        chase((1,), (1,), (table, np.int32(warm), np.int32(steps), out))
        cp.cuda.runtime.deviceSynchronize()
        cycles = int(out.get()[0]) / steps
        res[f"chase_{label}_cycles"] = cycles
        del table

    rbw = mod.get_function("read_bw")
    usink = cp.zeros(1, cp.uint32)
    for label, nbytes, passes in (("l2_24MiB", 24 << 20, 20), ("dram_4GiB", 4 << 30, 1)):
        buf = cp.ones(nbytes // 4, cp.uint32)
        args = (buf, np.int64(nbytes // 16), np.int32(passes), usink)
        t = timed(lambda a=args: rbw((4 * sms,), (512,), a))
        res[f"read_{label}_bytes_per_s"] = nbytes * passes / t
        del buf

    empty = mod.get_function("empty")
    n = 2000
    empty((1,), (32,), ())
    cp.cuda.runtime.deviceSynchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        empty((1,), (32,), ())
    t_host = (time.perf_counter() - t0) / n
    cp.cuda.runtime.deviceSynchronize()
    res["launch_back_to_back_device_s"] = (
        timed(lambda: [empty((1,), (32,), ()) for _ in range(n)]) / n
    )
    res["launch_host_submit_s"] = t_host
    t0 = time.perf_counter()
    for _ in range(500):
        empty((1,), (32,), ())
        cp.cuda.runtime.deviceSynchronize()
    res["launch_round_trip_s"] = (time.perf_counter() - t0) / 500

    Path(out_path).write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "microbench.json")
