"""The error an fp64 run of a correct schedule may show against the float64 reference.

A leaf of its own so that the command line can show it as a default without importing
the numeric interpreter (and NumPy) at start-up.
"""

#: fp64 storage: a correct schedule agrees with the reference to rounding (~1e-16).
FP64_TOLERANCE = 1e-10
