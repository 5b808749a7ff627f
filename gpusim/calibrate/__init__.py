"""Microbenchmarks that measure a hardware profile's numbers on the GPU at hand.

Each benchmark family is one module (``dram``, ``l2``, ``latency``, ``tensor``,
``fp32``, ``sfu``, ``smem``, ``launch``, ``device``) over CUDA sources in
``kernels/``; :mod:`gpusim.calibrate.suite` runs them and records raw results with
provenance, and :mod:`gpusim.calibrate.profile_writer` turns recorded results into
a profile. Only the benchmark modules need CuPy; the rest runs anywhere.
"""
