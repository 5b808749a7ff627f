"""The flash2 schedule as real CUDA kernels (fp16/bf16 tensor core, fp32 SIMT), run through CuPy.

``source``/``build`` compile the instances :mod:`gpusim.kernel_catalog.instances` lists (NVRTC
at run time, nvcc offline), ``loop_extract`` regenerates the committed loop counts from their
SASS, ``runner`` launches them from a Workload and a Schedule, ``schedule_timing`` and ``check``
measure and verify them on the GPU, ``measurement_provenance`` records where results came from.
"""
