"""Builds and launches the Hopper ``flash3_wgmma`` kernel (TMA + wgmma) through CuPy.

Source: ``flash3_wgmma.cu`` with its generated ``wgmma_ops.cuh`` inlined, one NVRTC-ready
string (``-arch=sm_90a``: wgmma and setmaxnreg exist only there), or cubins built offline
with nvcc (:func:`build_cubins`, same text). Launch: three tensor maps made on the host with
``cuTensorMapEncodeTiled`` (``cuda.bindings.driver``) over the (B·H, N, d) arrays, 64-element
boxes with 128-byte swizzle, passed by value as 128-byte kernel parameters; grid (query
blocks, B·H), or (query blocks, splits, B·H) for a split instance, whose partials
``flash2_combine`` (the mma.sync kernels' second kernel) merges; K and V with fewer heads than
Q for a GQA instance; dynamic shared memory as the catalogue computes it.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.wgmma_instances import WgmmaInstance
from gpusim.kernels.build import elf_function_symbols, find_tool, parse_ptxas, sass_opcode_counts
from gpusim.kernels.runner import Flash2Runner, split_buffers

KERNEL_DIR = Path(__file__).resolve().parent
NVRTC_OPTIONS = ("-std=c++17", "-arch=sm_90a")
NVCC_ARCH = ("-gencode=arch=compute_90a,code=sm_90a",)
PARAMS = "const __grid_constant__ TmaMap, const __grid_constant__ TmaMap, "
PARAMS += (
    "const __grid_constant__ TmaMap, u16*, int, int, int, float, int, int, float*, float*, int"
)
#: SASS opcodes that say the kernel is the Hopper-native one (and whether it spills).
SASS_OPS = ("HGMMA", "UTMALDG", "UBLKCP", "SYNCS", "WARPGROUP", "USETMAXREG", "MUFU", "LDL", "STL")


def kernel_source() -> str:
    """The kernel and its generated header as one translation unit."""
    ops = (KERNEL_DIR / "wgmma_ops.cuh").read_text().replace("#pragma once", "")
    body = (KERNEL_DIR / "flash3_wgmma.cu").read_text()
    body = body.replace('#include "wgmma_ops.cuh"', "")
    return ops + "\n" + body


def nvcc_translation_unit(instances: list[WgmmaInstance]) -> str:
    """Source plus explicit instantiations, so nvcc emits the instances offline."""
    lines = [f"template __global__ void {i.name_expression}({PARAMS});" for i in instances]
    return kernel_source() + "\n" + "\n".join(lines) + "\n"


def build_cubins(instances: list[WgmmaInstance], out_dir: Path, jobs: int = 2) -> dict:
    """One ``<key>.cubin`` per instance; returns ptxas's report and SASS counts per key."""
    nvcc = find_tool("nvcc")
    if nvcc is None:
        raise GpusimError("nvcc is not installed; build the wgmma kernels with NVRTC instead")
    out_dir.mkdir(parents=True, exist_ok=True)

    def one(inst: WgmmaInstance) -> tuple[str, dict]:
        path = out_dir / f"{inst.key}.cubin"
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "wgmma.cu"
            src.write_text(nvcc_translation_unit([inst]))
            cmd = [nvcc, *NVCC_ARCH, "-std=c++17", "-cubin", "-Xptxas", "-v", str(src)]
            proc = subprocess.run([*cmd, "-o", str(path)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise GpusimError(f"nvcc failed on {inst.key}: {proc.stderr.strip()[-1500:]}")
        (fn,) = elf_function_symbols(path.read_bytes())
        rec = {"function": fn, **parse_ptxas(proc.stderr + proc.stdout).get(fn, {})}
        rec["ptxas_warnings"] = sorted(set(re.findall(r"\(C\d{4}\)[^\n']*", proc.stderr)))
        (counts,) = sass_opcode_counts(path).values()
        rec["sass"] = {op: counts.get(op, 0) for op in SASS_OPS}
        return inst.key, rec

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        report = dict(pool.map(one, instances))
    (out_dir / "build.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    return report


def tensor_map(driver: Any, arr: Any, box_rows: int, bf16: bool) -> Any:
    """3-D tensor map (d, N, B·H) over a contiguous (B, H, N, d) 16-bit array; box 64 x rows."""
    d = arr.shape[-1]
    n = arr.shape[-2]
    bh = arr.size // (n * d)
    dt = driver.CUtensorMapDataType
    dtype = dt.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 if bf16 else dt.CU_TENSOR_MAP_DATA_TYPE_FLOAT16
    err, tmap = driver.cuTensorMapEncodeTiled(
        dtype,
        3,
        int(arr.data.ptr),
        [driver.cuuint64_t(x) for x in (d, n, bh)],
        [driver.cuuint64_t(x) for x in (d * 2, n * d * 2)],
        [driver.cuuint32_t(x) for x in (64, box_rows, 1)],
        [driver.cuuint32_t(1)] * 3,
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )
    if err != driver.CUresult.CUDA_SUCCESS:
        raise GpusimError(f"cuTensorMapEncodeTiled failed: {err}")
    return tmap


def map_argument(tmap: Any) -> Any:
    """The CUtensorMap's 128 bytes as a NumPy structured scalar CuPy passes by value."""
    import ctypes

    import numpy as np

    try:
        raw = ctypes.string_at(int(tmap.getPtr()), 128)
    except (AttributeError, TypeError):
        raw = np.array([int(w) for w in tmap.opaque], dtype=np.uint64).tobytes()
    words = np.frombuffer(raw, dtype=np.uint64)
    if words.size != 16:
        raise GpusimError(f"a CUtensorMap has 16 words; got {words.size}")
    rec = np.dtype([("opaque", np.uint64, (16,))], align=True)
    return np.frombuffer(words.tobytes(), dtype=rec)[0]


class WgmmaRunner:
    """Loads ``flash3_wgmma`` instances (cubins from ``cubin_dir`` or NVRTC) and runs them."""

    def __init__(self, cubin_dir: Path | str | None = None, by_value: bool = False):
        from gpusim.kernels.runner import import_cupy

        self.cp = import_cupy()
        try:
            from cuda.bindings import driver
        except ImportError as exc:
            raise GpusimError("cuda.bindings (cuda-python) is needed for tensor maps") from exc
        self.driver = driver
        self.cubin_dir = Path(cubin_dir) if cubin_dir else None
        dev = self.cp.cuda.Device()
        if str(dev.compute_capability) != "90":
            raise GpusimError(
                f"flash3_wgmma needs sm_90a (wgmma, TMA); this GPU is {dev.compute_capability}"
            )
        self.smem_optin_bytes = int(dev.attributes["MaxSharedMemoryPerBlockOptin"])
        self._fn: dict[WgmmaInstance, tuple[Any, str]] = {}
        #: Launch through CuPy with the maps as NumPy structured scalars (True), or through
        #: ``cuLaunchKernel`` with a parameter array built here (False, the default: the
        #: driver copies each parameter at the size the kernel declares, nothing to guess).
        self.by_value = by_value
        self._combiner = None  # the mma.sync kernels' runner, for flash2_combine (split-KV)

    def compile_nvrtc(self, instances: list[WgmmaInstance]) -> None:
        """Build ``instances`` with NVRTC in one module."""
        todo = [i for i in instances if i not in self._fn]
        if not todo:
            return
        try:
            mod = self.cp.RawModule(
                code=kernel_source(),
                options=NVRTC_OPTIONS,
                name_expressions=[i.name_expression for i in todo],
            )
            for inst in todo:
                self._register(inst, mod.get_function(inst.name_expression), "nvrtc")
        except GpusimError:
            raise
        except Exception as exc:
            raise GpusimError(f"NVRTC could not build flash3_wgmma: {exc}") from exc

    def load(self, inst: WgmmaInstance) -> Any:
        """The kernel function of ``inst`` (from its cubin when there is one)."""
        if inst in self._fn:
            return self._fn[inst][0]
        if inst.smem_bytes > self.smem_optin_bytes:
            raise GpusimError(f"{inst.key} needs {inst.smem_bytes} B of shared memory")
        cubin = self.cubin_dir / f"{inst.key}.cubin" if self.cubin_dir else None
        if cubin is not None and cubin.exists():
            (name,) = elf_function_symbols(cubin.read_bytes())
            fn = self.cp.RawModule(path=str(cubin)).get_function(name)
            self._register(inst, fn, str(cubin))
        else:
            self.compile_nvrtc([inst])
        return self._fn[inst][0]

    def _register(self, inst: WgmmaInstance, fn: Any, source: str) -> None:
        fn.max_dynamic_shared_size_bytes = inst.smem_bytes
        self._fn[inst] = (fn, source)

    def attributes(self, inst: WgmmaInstance) -> dict:
        """Registers, local memory (spills), shared memory as the driver reports them."""
        fn, source = self._fn[inst]
        keys = ("num_regs", "local_size_bytes", "shared_size_bytes", "max_threads_per_block")
        out = {k: int(getattr(fn, k)) for k in keys}
        return out | {"dynamic_smem_bytes": inst.smem_bytes, "built_by": source}

    def prepare(
        self,
        inst: WgmmaInstance,
        q: Any,
        k: Any,
        v: Any,
        out: Any,
        causal: bool,
        kv_splits: int = 1,
    ):
        """A zero-argument launch closure for (B, H, N, d) arrays (tensor maps made once); K
        and V may have fewer heads (a divisor of H) with a GQA instance; ``kv_splits`` > 1
        needs a split instance and adds the combine kernel to the launch."""
        import numpy as np

        for name, arr in (("q", q), ("k", k), ("v", v), ("out", out)):
            if arr.ndim != 4 or arr.shape[-1] != inst.head_dim or not arr.flags.c_contiguous:
                raise GpusimError(f"{name} must be a contiguous (B, H, N, {inst.head_dim}) array")
            if arr.dtype.itemsize != 2:
                raise GpusimError(f"{name} must hold 16-bit values, not {arr.dtype}")
        heads, heads_kv = q.shape[1], k.shape[1]
        if q.shape != out.shape or k.shape != v.shape or q.shape[0] != k.shape[0]:
            raise GpusimError(f"shapes disagree: q {q.shape}, k {k.shape}, v {v.shape}")
        if heads % heads_kv or (heads != heads_kv and not inst.gqa):
            raise GpusimError(
                f"{inst.key}: K/V with {heads_kv} heads for {heads} query heads needs a GQA "
                "instance and a divisor of the query heads"
            )
        if kv_splits < 1 or (kv_splits > 1) != inst.split:
            raise GpusimError(f"{inst.key}: kv_splits {kv_splits} needs a split instance")
        fn = self.load(inst)
        bf16 = inst.dtype == "bf16"
        nq, nk, d = q.shape[2], k.shape[2], inst.head_dim
        maps = [
            tensor_map(self.driver, q, inst.block_m, bf16),
            tensor_map(self.driver, k, inst.block_n, bf16),
            tensor_map(self.driver, v, inst.block_n, bf16),
        ]
        bh = q.shape[0] * q.shape[1]
        m_blocks = math.ceil(nq / inst.block_m)
        grid = (m_blocks, kv_splits, bh) if inst.split else (m_blocks, bh, 1)
        if max(grid[1:]) > 65535:
            raise GpusimError(f"batch*heads = {bh} exceeds the grid's limit 65535")
        part = split_buffers(self.cp, bh, nq, kv_splits, d) if inst.split else (out, out)
        args = (*(map_argument(m) for m in maps), out, np.int32(nq), np.int32(nk))
        args += (np.int32(1 if causal else 0), np.float32(math.log2(math.e) / math.sqrt(d)))
        args += (np.int32(heads), np.int32(heads // heads_kv), *part, np.int32(kv_splits))

        block = (inst.threads, 1, 1)
        if self.by_value:

            def main() -> None:
                fn(grid, block, args, shared_mem=inst.smem_bytes)

        else:
            main = self._driver_launch(fn, grid, block, inst.smem_bytes, maps, args[3:])
        launch = main
        if inst.split:
            combine = self._combine(inst, out, part, nq, nk, causal, kv_splits)

            def launch() -> None:
                main()
                combine()

        launch.keep_alive = (maps, q, k, v, out, part, main)  # the maps point at these buffers
        return launch

    def _combine(self, inst, out, part, nq: int, nk: int, causal: bool, splits: int):
        """The combine launch of a split instance: flash2_combine over the partials, with the
        mma.sync kernels' row rule (a divisor of the query block per combine CTA)."""
        import numpy as np

        from algorithms.split_kv import combine_rows
        from gpusim.kernel_catalog.split_kv import CombineInstance

        if self._combiner is None:
            self._combiner = Flash2Runner(self.cubin_dir)
        comb = CombineInstance(inst.dtype, inst.head_dim)
        loaded = self._combiner.load(comb)
        rows = combine_rows(inst.block_m)
        n = np.int32
        cargs = (*part, out, n(nq), n(nk), n(1 if causal else 0), n(splits), n(inst.block_m))
        cargs += (n(inst.block_n), n(rows))
        grid = (-(-nq // rows), out.shape[0] * out.shape[1], 1)

        def combine() -> None:
            loaded.function(grid, (comb.threads, 1, 1), cargs)

        return combine

    def _driver_launch(self, fn, grid, block, smem, maps, rest):
        """The same launch through ``cuLaunchKernel`` with a hand-built parameter array."""
        import ctypes

        bufs = [ctypes.create_string_buffer(bytes(map_argument(m).tobytes()), 128) for m in maps]
        out, nq, nk, causal, scale, heads, group, o_part, lse, splits = rest
        bufs += [ctypes.c_uint64(int(out.data.ptr)), ctypes.c_int32(int(nq))]
        bufs += [ctypes.c_int32(int(nk)), ctypes.c_int32(int(causal)), ctypes.c_float(float(scale))]
        bufs += [ctypes.c_int32(int(heads)), ctypes.c_int32(int(group))]
        bufs += [ctypes.c_uint64(int(o_part.data.ptr)), ctypes.c_uint64(int(lse.data.ptr))]
        bufs += [ctypes.c_int32(int(splits))]
        ptrs = (ctypes.c_void_p * len(bufs))(*[ctypes.addressof(b) for b in bufs])
        drv, f = self.driver, self.driver.CUfunction(fn.ptr)

        def launch() -> None:
            stream = self.cp.cuda.get_current_stream().ptr
            (err,) = drv.cuLaunchKernel(f, *grid, *block, smem, stream, ctypes.addressof(ptrs), 0)
            if err != drv.CUresult.CUDA_SUCCESS:
                raise GpusimError(f"cuLaunchKernel failed: {err}")

        launch.params = (bufs, ptrs)
        return launch

    def run(
        self,
        inst: WgmmaInstance,
        q: Any,
        k: Any,
        v: Any,
        out: Any,
        causal: bool,
        kv_splits: int = 1,
    ) -> Any:
        """``softmax(q k^T / sqrt(d)) v`` into ``out`` by ``inst``; returns out."""
        try:
            self.prepare(inst, q, k, v, out, causal, kv_splits)()
        except GpusimError:
            raise
        except Exception as exc:
            raise GpusimError(f"launch of {inst.key} failed: {exc}") from exc
        return out


def opcode_summary(report: dict) -> dict[str, Counter]:
    """SASS counts per instance key from a :func:`build_cubins` report."""
    return {k: Counter(v.get("sass", {})) for k, v in report.items()}
