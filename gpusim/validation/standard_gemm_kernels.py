"""Which cuBLAS kernels standard attention's two products run, and their DRAM traffic (GPU).

    ncu --clock-control none --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,\
dram__bytes_write.sum,launch__grid_size,launch__block_size \
        python3 -m gpusim.validation.standard_gemm_kernels

The model times standard attention's products (``algorithms.standard``: S = Q K^T, O = P V)
as tiled GEMMs of its own tile; the validation sweep measured them 14-16 % faster than
predicted in the model's view of DRAM (``reports/validation``, seen). cuBLAS's kernel names
carry their tiles (``..._tilesize128x128x64...``), which say in what runs the products read
P and write S (``data/h200/2026-12-04_calibration_dram_pattern``: runs under 256 bytes cost
DRAM bandwidth). This launches each product of the validation sweep's six standard shapes
once, as ``gpusim.validation.standard_gpu`` does (``torch.matmul``, fp16 in and out, on
zero-copy views of CuPy arrays), for Nsight Compute to name and count. No timing is taken.
"""

from __future__ import annotations

from gpusim.validation.configs import sweep_configs
from gpusim.validation.standard_gpu import StandardAttention


def main() -> int:
    import cupy as cp

    gpu = StandardAttention(cp, gemm="torch")
    for c in (c for c in sweep_configs() if c.kind == "standard"):
        w = c.workload
        bufs = gpu.buffers(w)
        launch = gpu.launchers(w, bufs)
        for stage in ("scores", "pv"):
            launch[stage]()
        cp.cuda.runtime.deviceSynchronize()
        print(f"standard_gemm_kernels: {c.config_id}: scores, pv launched", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
