"""gpusim: a discrete-event GPU simulator and cost model for attention kernels."""

from gpusim.version import __version__ as __version__
