"""Storage data types: their sizes and names, shared by every layer."""

from typing import Literal

DType = Literal["fp64", "fp32", "fp16", "bf16"]

#: Bytes per element of each storage type.
DTYPE_BYTES: dict[str, int] = {"fp64": 8, "fp32": 4, "fp16": 2, "bf16": 2}

#: The types a user may ask for on the command line (fp64 exists for exactness checks only).
USER_DTYPES = ("fp32", "fp16", "bf16")


def dtype_bytes(dtype: str) -> int:
    """Bytes per element of ``dtype``."""
    return DTYPE_BYTES[dtype]
