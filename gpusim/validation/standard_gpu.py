"""Standard attention on the GPU: cuBLAS products (``cupy.matmul``) around a row-softmax kernel.

The three kernels of the model's ``standard`` algorithm, each timed on its own (CUDA events,
L2 flushed before every repeat): ``S = Q K^T`` (fp16 in and out, fp32 accumulation, by cuBLAS
through ``torch.matmul`` on zero-copy views of the CuPy arrays),
``P = softmax(S / sqrt(d))`` by :file:`cuda/row_softmax.cu` (one CTA per row, the row kept in
shared memory, so S is read once and P written once), and ``O = P V``. K^T is made contiguous
before timing, so the first product is one plain batched GEMM. Non-causal only: cuBLAS
computes every tile, while the model's causal ``standard`` skips the masked ones.

Why torch and not ``cupy.matmul``: CuPy 14.2 on the H200 ran fp16 batched products as an fp32
SIMT SGEMM on up-cast copies (Nsight showed ``sm80_xmma_gemm_f32f32_..._ffma`` kernels
writing fp32 S), which is not the fp16 tensor-core product the model's ``standard`` describes.
``gemm="cupy"`` keeps that path for comparison.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.kernels.schedule_timing import time_launches
from gpusim.workload import Workload

CUDA_DIR = Path(__file__).resolve().parent / "cuda"
SOFTMAX_SOURCE = CUDA_DIR / "row_softmax.cu"
SOFTMAX_THREADS = 128
SOFTMAX_NAME = f"row_softmax<{SOFTMAX_THREADS}>"
#: The model's names of the three kernels (algorithms.standard / algorithms.materialised).
STAGES = ("scores", "softmax_row", "pv")
FUNCTION_ATTRIBUTES = ("num_regs", "shared_size_bytes", "local_size_bytes", "binary_version")


def softmax_smem_bytes(seq_len_k: int) -> int:
    """Dynamic shared memory of one softmax CTA: the fp32 row."""
    return 4 * seq_len_k


def check_workload(w: Workload) -> None:
    """Raise GpusimError unless the cuBLAS + softmax path can run ``w``."""
    if w.dtype != "fp16":
        raise GpusimError(
            f"standard attention on the GPU runs fp16 (CuPy has no bf16); got {w.dtype}"
        )
    if w.causal:
        raise GpusimError("standard attention on the GPU is measured without causal masking")
    if w.seq_len_k % 8:
        raise GpusimError(f"the softmax kernel needs seq_len_k % 8 == 0 (got {w.seq_len_k})")


GEMMS = ("torch", "cupy")


def default_gemm() -> str:
    """``torch`` where PyTorch with CUDA is importable, else ``cupy``."""
    try:
        import torch

        return "torch" if torch.cuda.is_available() else "cupy"
    except ImportError:
        return "cupy"


class StandardAttention:
    """Builds the softmax kernel once and runs or times the three stages on CuPy arrays."""

    def __init__(self, cp: Any, cubin: Path | None = None, gemm: str | None = None):
        self.cp = cp
        self.gemm = gemm or default_gemm()
        if self.gemm not in GEMMS:
            raise GpusimError(f"unknown GEMM backend {self.gemm!r}; use one of {GEMMS}")
        try:
            if cubin is not None and cubin.exists():
                from gpusim.kernels.build import elf_function_symbols

                (mangled,) = elf_function_symbols(cubin.read_bytes())
                self.fn = cp.RawModule(path=str(cubin)).get_function(mangled)
                self.built_by = str(cubin)
            else:
                mod = cp.RawModule(
                    code=SOFTMAX_SOURCE.read_text(),
                    options=("-std=c++17",),
                    name_expressions=[SOFTMAX_NAME],
                )
                self.fn = mod.get_function(SOFTMAX_NAME)
                self.built_by = "nvrtc"
        except Exception as exc:
            raise GpusimError(f"could not build the softmax kernel: {exc}") from exc

    def attributes(self, w: Workload) -> dict:
        """The softmax kernel's registers and shared memory (the GEMMs' are cuBLAS's own)."""
        attrs = {a: int(getattr(self.fn, a)) for a in FUNCTION_ATTRIBUTES}
        return attrs | {
            "threads": SOFTMAX_THREADS,
            "dynamic_smem_bytes": softmax_smem_bytes(w.seq_len_k),
            "built_by": self.built_by,
        }

    def gemm_info(self) -> dict:
        """Which library ran the two products."""
        if self.gemm == "cupy":
            return {"gemm": "cupy.matmul", "cupy_version": self.cp.__version__}
        import torch

        return {
            "gemm": "torch.matmul (cuBLAS, fp16 in/out)",
            "torch_version": torch.__version__,
            "fp16_reduced_precision_reduction": bool(
                torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
            ),
        }

    def _matmul(self, a: Any, b: Any, out: Any):
        """``out = a @ b`` by the chosen library; a function of no arguments."""
        if self.gemm == "cupy":
            return lambda: self.cp.matmul(a, b, out=out)
        import torch

        ta, tb, tout = (torch.from_dlpack(x) for x in (a, b, out))
        return lambda: torch.matmul(ta, tb, out=tout)

    def buffers(self, w: Workload, seed: int = 0) -> dict[str, Any]:
        """Random fp16 Q, K^T (contiguous), V and the S, P, O outputs."""
        check_workload(w)
        cp = self.cp
        rng = cp.random.default_rng(seed)
        bh = (w.batch, w.heads)

        def rand(*shape: int) -> Any:
            return rng.standard_normal(shape, dtype=cp.float32).astype(cp.float16)

        return {
            "q": rand(*bh, w.seq_len_q, w.head_dim),
            "kt": rand(*bh, w.head_dim, w.seq_len_k),
            "v": rand(*bh, w.seq_len_k, w.head_dim),
            "s": cp.empty((*bh, w.seq_len_q, w.seq_len_k), dtype=cp.float16),
            "p": cp.empty((*bh, w.seq_len_q, w.seq_len_k), dtype=cp.float16),
            "o": cp.empty((*bh, w.seq_len_q, w.head_dim), dtype=cp.float16),
        }

    def launchers(self, w: Workload, b: dict[str, Any]) -> dict[str, Any]:
        """One callable per stage, in order."""
        fn = self.fn
        import numpy as np

        smem = softmax_smem_bytes(w.seq_len_k)
        fn.max_dynamic_shared_size_bytes = smem
        rows = w.batch_heads * w.seq_len_q
        scale = np.float32(math.log2(math.e) / math.sqrt(w.head_dim))
        n = np.int32(w.seq_len_k)
        return {
            "scores": self._matmul(b["q"], b["kt"], b["s"]),
            "softmax_row": lambda: fn(
                (rows, 1, 1), (SOFTMAX_THREADS, 1, 1), (b["s"], b["p"], n, scale), shared_mem=smem
            ),
            "pv": self._matmul(b["p"], b["v"], b["o"]),
        }

    def check(self, w: Workload, b: dict[str, Any]) -> float:
        """Relative error of O for the first (batch, head) against a float32 reference."""
        cp = self.cp
        q = b["q"][0, 0].astype(cp.float32)
        s = q @ b["kt"][0, 0].astype(cp.float32) / math.sqrt(w.head_dim)
        p = cp.exp(s - s.max(axis=1, keepdims=True))
        ref = (p / p.sum(axis=1, keepdims=True)) @ b["v"][0, 0].astype(cp.float32)
        got = b["o"][0, 0].astype(cp.float32)
        return float(cp.linalg.norm(got - ref) / cp.linalg.norm(ref))

    def time(self, w: Workload, repeats: int, warmup: int, flush: Any, seed: int = 0) -> dict:
        """Median seconds of each stage, their sum, the output's error and the attributes."""
        b = self.buffers(w, seed)
        launch = self.launchers(w, b)
        self.cp.cuda.Device().synchronize()  # inputs ready before torch's stream reads them
        try:
            stage_times = {
                name: time_launches(self.cp, f, repeats, warmup, flush)
                for name, f in launch.items()
            }
        except Exception as exc:
            raise GpusimError(f"standard attention failed: {exc}") from exc
        med = {k: statistics.median(v) for k, v in stage_times.items()}
        return {
            "median_s": sum(med.values()),
            "stage_median_s": med,
            "stage_times_s": stage_times,
            "rel_err": self.check(w, b),
            "attributes": {"softmax_row": self.attributes(w)},
            "gemm": self.gemm_info(),
        }
