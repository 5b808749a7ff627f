"""What the CPU side knows about the CUDA kernels, without CuPy or a GPU.

``instances`` lists the template instances that exist, ``compiled`` holds ptxas's registers
and spills per instance, ``sass_loop``/``sass_decode`` walk and decode a compiled main loop,
``sass_instr`` is one decoded instruction and ``loop_counts`` reads the committed loop counts
and paths. The CuPy runtime that builds, runs and times the kernels is :mod:`gpusim.kernels`.
"""
