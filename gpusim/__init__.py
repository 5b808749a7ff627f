"""gpusim: a discrete-event GPU simulator and cost model for attention kernels."""

__version__ = "0.1.0"
