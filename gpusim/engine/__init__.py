"""The discrete-event GPU engine: SMs, pipes, L2 and DRAM in SimPy, and ``simulate``."""

from gpusim.engine.hook import GpuHandle
from gpusim.engine.result import KernelResult, SimResult
from gpusim.engine.simulate import DETAILS, simulate

__all__ = ["DETAILS", "GpuHandle", "KernelResult", "SimResult", "simulate"]
