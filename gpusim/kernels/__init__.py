"""The flash2 schedule as real CUDA kernels (fp16/bf16 tensor core, fp32 SIMT), run through CuPy.

``instances`` says which template instances exist, ``source``/``build`` compile them (NVRTC at
run time, nvcc offline), ``runner`` launches them from a Workload and a Schedule, ``timing``
and ``check`` measure and verify them on the GPU, ``provenance`` records where results came from.
"""
