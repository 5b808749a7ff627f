"""Runs the flash2 schedule as a CUDA kernel through CuPy.

The runner takes the same :class:`~gpusim.workload.Workload` and
:class:`~gpusim.schedule.Schedule` objects that the simulator times, picks the template
instance they name, builds it (``cupy.RawModule(code=..., name_expressions=[...])``, or a
cubin built offline by :mod:`gpusim.kernels.build`), raises its dynamic shared-memory limit
and launches it on (B, H, N, d) contiguous CuPy arrays (K and V: (B, heads_kv, N, d)). A
schedule with ``kv_splits`` > 1 runs as two launches: the split kernel into an fp32
workspace (:class:`SplitWorkspace`, allocated once per workload) and the combine kernel.
Everything that can go wrong before or at launch raises :class:`~gpusim.errors.GpusimError`
with what is missing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import KernelInstance, instance_for
from gpusim.kernel_catalog.split_kv import CombineInstance, combine_rows_of
from gpusim.kernels.build import elf_function_symbols
from gpusim.kernels.source import CXX_OPTIONS, kernel_source
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Accepted array dtypes per workload dtype; bf16 also travels as its raw 16-bit pattern
#: because CuPy has no native bfloat16.
ARRAY_DTYPES = {
    "fp32": ("float32",),
    "fp16": ("float16",),
    "bf16": ("bfloat16", "uint16", "int16"),
}
FUNCTION_ATTRIBUTES = (
    "num_regs",
    "shared_size_bytes",
    "local_size_bytes",
    "const_size_bytes",
    "max_threads_per_block",
    "binary_version",
    "ptx_version",
)


def import_cupy() -> Any:
    """CuPy with a visible CUDA device, or GpusimError naming what is missing."""
    try:
        import cupy
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise GpusimError(
            "CuPy is not installed; install cupy-cuda12x or cupy-cuda13x to run CUDA kernels"
        ) from exc
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver
        raise GpusimError(f"no CUDA GPU is usable: {exc}") from exc
    if count < 1:
        raise GpusimError("no CUDA GPU is visible to CuPy")
    return cupy


@dataclass
class LoadedKernel:
    """A loaded instance: the CuPy kernel object and its attributes as read from the driver."""

    instance: KernelInstance | CombineInstance
    function: Any
    source: str  # "nvrtc" or the cubin path

    def attributes(self) -> dict:
        """Registers, static/dynamic shared memory, local memory (spills) and limits."""
        attrs = {a: int(getattr(self.function, a)) for a in FUNCTION_ATTRIBUTES}
        attrs["dynamic_smem_bytes"] = self.instance.smem_bytes
        attrs["built_by"] = self.source
        return attrs


@dataclass
class SplitWorkspace:
    """What a split-KV run needs besides its inputs: the splits' fp32 partial outputs
    ``o_part`` (B*H, Nq, splits, d), their log-sum-exps ``lse`` (B*H, Nq, splits), the loaded
    combine kernel and its query rows per CTA."""

    splits: int
    o_part: Any
    lse: Any
    combine: LoadedKernel
    combine_rows: int


def split_buffers(cp: Any, batch_heads: int, seq_q: int, splits: int, head_dim: int):
    """A split launch's fp32 partial outputs (B*H, Nq, splits, d) and log-sum-exps (B*H, Nq,
    splits), which flash2_combine merges (the mma.sync and the wgmma runners both)."""
    try:
        o_part = cp.empty((batch_heads, seq_q, splits, head_dim), cp.float32)
        lse = cp.empty((batch_heads, seq_q, splits), cp.float32)
    except Exception as exc:  # CuPy's OutOfMemoryError
        raise GpusimError(f"no device memory for the split-KV workspace: {exc}") from exc
    return o_part, lse


class Flash2Runner:
    """Builds, caches and launches flash2 kernel instances on the current CuPy device.

    ``cubin_dir``: a folder of ``<instance key>.cubin`` files from
    :func:`gpusim.kernels.build.build_cubins`; instances found there are loaded instead of
    compiled by NVRTC (same source, same template instance).
    """

    def __init__(self, cubin_dir: Path | str | None = None):
        self.cp = import_cupy()
        self.cubin_dir = Path(cubin_dir) if cubin_dir else None
        self._loaded: dict[KernelInstance, LoadedKernel] = {}
        dev = self.cp.cuda.Device()
        self.smem_optin_bytes = int(dev.attributes["MaxSharedMemoryPerBlockOptin"])
        self.regs_per_block = int(dev.attributes["MaxRegistersPerBlock"])
        self.compute_capability = str(dev.compute_capability)
        if int(self.compute_capability) < 80:
            raise GpusimError(
                f"the flash2 kernels need compute capability >= 8.0 (cp.async, ldmatrix, "
                f"bf16 mma); this GPU is {self.compute_capability}"
            )

    # --- building ----------------------------------------------------------------------
    def load(self, inst: KernelInstance | CombineInstance) -> LoadedKernel:
        """The loaded kernel of ``inst``, compiled or read from a cubin on first use."""
        if inst in self._loaded:
            return self._loaded[inst]
        if inst.smem_bytes > self.smem_optin_bytes:
            raise GpusimError(
                f"{inst.key} needs {inst.smem_bytes} bytes of shared memory per block; "
                f"this GPU allows {self.smem_optin_bytes}"
            )
        cubin = self.cubin_dir / f"{inst.key}.cubin" if self.cubin_dir else None
        try:
            if cubin is not None and cubin.exists():
                (mangled,) = elf_function_symbols(cubin.read_bytes())
                module = self.cp.RawModule(path=str(cubin))
                fn, source = module.get_function(mangled), str(cubin)
            else:
                self.compile([inst])
                return self._loaded[inst]
        except GpusimError:
            raise
        except Exception as exc:
            raise GpusimError(f"could not load {inst.key}: {exc}") from exc
        return self._register(inst, fn, source)

    def compile(self, instances: list[KernelInstance | CombineInstance]) -> None:
        """Compile ``instances`` with NVRTC in one module (one call, many name expressions)."""
        todo = [i for i in instances if i not in self._loaded]
        if not todo:
            return
        try:
            module = self.cp.RawModule(
                code=kernel_source(),
                options=CXX_OPTIONS,
                name_expressions=[i.name_expression for i in todo],
            )
            for inst in todo:
                self._register(inst, module.get_function(inst.name_expression), "nvrtc")
        except GpusimError:
            raise
        except Exception as exc:
            raise GpusimError(f"NVRTC could not build the flash2 kernels: {exc}") from exc

    def _register(
        self, inst: KernelInstance | CombineInstance, fn: Any, source: str
    ) -> LoadedKernel:
        # Past 48 KB a launch fails until the function's dynamic limit is raised.
        fn.max_dynamic_shared_size_bytes = inst.smem_bytes
        if int(fn.max_threads_per_block) < inst.threads:
            raise GpusimError(
                f"{inst.key} uses {int(fn.num_regs)} registers per thread, so at most "
                f"{int(fn.max_threads_per_block)} threads fit a block; it needs {inst.threads}"
            )
        loaded = LoadedKernel(inst, fn, source)
        self._loaded[inst] = loaded
        return loaded

    # --- running -----------------------------------------------------------------------
    def instance(self, workload: Workload, schedule: Schedule) -> KernelInstance:
        """The instance for this workload and schedule on this GPU."""
        return instance_for(workload, schedule, self.smem_optin_bytes)

    def split_workspace(self, workload: Workload, schedule: Schedule) -> SplitWorkspace | None:
        """The fp32 workspace and combine kernel of a split-KV schedule (None without split)."""
        if schedule.kv_splits == 1:
            return None
        w, s = workload, schedule.kv_splits
        combine = self.load(CombineInstance(w.dtype, w.head_dim))
        o_part, lse = split_buffers(self.cp, w.batch_heads, w.seq_len_q, s, w.head_dim)
        return SplitWorkspace(s, o_part, lse, combine, combine_rows_of(w, schedule))

    def check_arrays(self, workload: Workload, q: Any, k: Any, v: Any, out: Any) -> None:
        """Raise GpusimError unless q, k, v, out are contiguous CuPy arrays of the right shape."""
        w = workload
        want_q = (w.batch, w.heads, w.seq_len_q, w.head_dim)
        want_k = (w.batch, w.kv_heads, w.seq_len_k, w.head_dim)
        for name, arr, shape in (
            ("q", q, want_q),
            ("k", k, want_k),
            ("v", v, want_k),
            ("out", out, want_q),
        ):
            if not isinstance(arr, self.cp.ndarray):
                raise GpusimError(f"{name} must be a cupy.ndarray, got {type(arr).__name__}")
            if tuple(arr.shape) != shape:
                raise GpusimError(
                    f"{name} has shape {tuple(arr.shape)}; expected (B, H, N, d) = {shape} "
                    f"(K and V with heads_kv heads)"
                )
            if arr.dtype.name not in ARRAY_DTYPES[w.dtype]:
                raise GpusimError(
                    f"{name} has dtype {arr.dtype.name}; workload dtype {w.dtype} needs one of "
                    f"{ARRAY_DTYPES[w.dtype]}"
                )
            if not arr.flags.c_contiguous:
                raise GpusimError(
                    f"{name} is not C-contiguous; the kernel needs (B, H, N, d) contiguous"
                )
            dev_id = getattr(arr.device, "id", None)
            if dev_id is not None and dev_id != self.cp.cuda.Device().id:
                raise GpusimError(f"{name} lives on GPU {dev_id}, not the current one")

    def launch(
        self,
        loaded: LoadedKernel,
        workload: Workload,
        q: Any,
        k: Any,
        v: Any,
        out: Any,
        shared_mem_bytes: int | None = None,
        split: SplitWorkspace | None = None,
    ) -> None:
        """Launch without argument checks (the timing loop's path); errors become GpusimError.

        ``shared_mem_bytes`` (at least the instance's) pads each block's dynamic shared memory
        so that fewer blocks fit an SM; the caller raises the function's limit first. A split
        instance needs ``split`` (:meth:`split_workspace`) and launches the combine kernel too.
        """
        import numpy as np

        inst, w = loaded.instance, workload
        # pack_gqa: a tile holds block_m / group queries of each of a group's heads, and the
        # grid has a CTA per (query block, batch * K/V head).
        rows = inst.block_m // w.group_size if inst.pack else inst.block_m
        bhs = w.batch * w.kv_heads if inst.pack else w.batch_heads
        m_blocks = math.ceil(w.seq_len_q / rows)
        if inst.split != (split is not None):
            raise GpusimError(f"{inst.key}: a split-KV workspace goes with split instances only")
        # FlashAttention-2's split grid: (m blocks, splits, batch*heads).
        grid = (m_blocks, split.splits, bhs) if split else (m_blocks, bhs, 1)
        if max(grid[1:]) > 65535:
            raise GpusimError(f"batch*heads = {bhs} exceeds the grid's limit 65535")
        args = [
            q,
            k,
            v,
            out,
            np.int32(w.seq_len_q),
            np.int32(w.seq_len_k),
            np.int32(1 if w.causal else 0),
            np.float32(math.log2(math.e) / math.sqrt(w.head_dim)),
        ]
        if inst.variant == "tc":
            part = (split.o_part, split.lse) if split else (out, out)  # unread without SPLIT
            args += [*part, np.int32(split.splits if split else 1)]
            args += [np.int32(w.heads), np.int32(w.group_size)]
        try:
            smem = max(inst.smem_bytes, shared_mem_bytes or 0)
            loaded.function(grid, (inst.threads, 1, 1), tuple(args), shared_mem=smem)
            if split:
                comb, n = split.combine.instance, np.int32
                cargs = (split.o_part, split.lse, out, n(w.seq_len_q), n(w.seq_len_k))
                cargs += (n(1 if w.causal else 0), n(split.splits), n(rows))
                cargs += (n(inst.block_n), n(split.combine_rows))
                cgrid = comb.grid(w, split.combine_rows)
                split.combine.function(cgrid, (comb.threads, 1, 1), cargs)
        except Exception as exc:
            raise GpusimError(f"launch of {inst.key} failed: {exc}") from exc

    def run(
        self,
        workload: Workload,
        schedule: Schedule,
        q: Any,
        k: Any,
        v: Any,
        out: Any | None = None,
        split: SplitWorkspace | None = None,
    ) -> Any:
        """``softmax(q k^T / sqrt(d)) v`` by the kernel instance of ``schedule``; returns out.

        A split-KV schedule allocates its workspace unless ``split`` passes one."""
        inst = self.instance(workload, schedule)
        if out is None:
            out = self.cp.empty_like(q)
        self.check_arrays(workload, q, k, v, out)
        loaded = self.load(inst)
        if split is None:
            split = self.split_workspace(workload, schedule)
        elif split.splits != schedule.kv_splits:
            raise GpusimError(
                f"the workspace holds {split.splits} splits; the schedule asks for "
                f"{schedule.kv_splits}"
            )
        self.launch(loaded, workload, q, k, v, out, split=split)
        return out


_DEFAULT: Flash2Runner | None = None


def run_flash2(
    workload: Workload, schedule: Schedule, q: Any, k: Any, v: Any, out: Any = None
) -> Any:
    """Run ``schedule`` on ``workload`` with a process-wide runner (NVRTC-built instances)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Flash2Runner()
    return _DEFAULT.run(workload, schedule, q, k, v, out)
