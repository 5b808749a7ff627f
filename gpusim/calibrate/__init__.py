"""Microbenchmarks that measure a hardware profile's numbers on the GPU at hand.

Each benchmark family is one module over CUDA sources in ``kernels/``: the value
benchmarks (``device``, ``launch``, ``dram``, ``l2``, ``latency``, ``smem``, ``fp32``,
``sfu``, ``tensor``) give profile values directly; the record benchmarks
(:mod:`gpusim.calibrate.recorded`: ``barrier``, ``simt_mm``, ``smem_overlap``,
``smem_fill``, ``cta_scatter``, ``dram_mlp``, ``l2_cache``) keep a raw record from which
the profile's fields are derived. :mod:`gpusim.calibrate.suite` runs them all (``gpusim
calibrate``; ``--quick`` runs each one's quick variant) and records raw results with
provenance; :mod:`gpusim.calibrate.profile_writer` turns recorded results into a complete
profile (:mod:`gpusim.calibrate.completeness` says what it lacks), and
:mod:`gpusim.calibrate.compare_profiles` sets two profiles side by side. Only the
benchmarks need CuPy (``l2_cache`` also Nsight Compute); the rest runs anywhere.
"""
