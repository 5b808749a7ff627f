"""The float64 reference of one wgmma m64nNk16 product of the microbenchmark (kernels/wgmma.cu).

The operands are the random words the kernel copies into shared memory (word ``i`` of the
region at word ``i``, B first, then A) or, for A from registers, four words per thread. This
decodes them under the layouts the kernel's descriptors claim (the PTX ISA's canonical K-major
layouts, 128-byte swizzle or none) and the register fragments' documented placement, and
compares the product with what the tensor cores wrote. Timings do not depend on the values;
the check says whether the descriptors describe the tiles the kernel means.
"""

from __future__ import annotations

from typing import Any

import numpy as np

K = 16  # one product's K


def operand_words(rng: np.random.Generator, dtype: str, words: int) -> np.ndarray:
    """Random words of two non-zero 16-bit values each (|x| in [0.25, 1], random sign)."""
    vals = rng.uniform(0.25, 1.0, 2 * words) * rng.choice([-1.0, 1.0], 2 * words)
    if dtype == "fp16":
        halves = vals.astype(np.float16).view(np.uint16)
    else:  # bf16: the top half of the float32 (truncated)
        halves = (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return halves.view(np.uint32).copy()


def _decode(halves: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "fp16":
        return halves.view(np.float16).astype(np.float64)
    return (halves.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def tile_offset(r: int, k: int, rows: int, swz: int) -> int:
    """Byte offset of element (row r, k) of k-step 0 of a K-major tile of ``rows`` rows."""
    if swz:  # 128-byte rows of 64 K, 8-row atoms of 1024 bytes, chunk c at c ^ (r % 8)
        return (r // 8) * 1024 + (r % 8) * 128 + (((k // 8) ^ (r % 8)) * 16) + (k % 8) * 2
    # 8x8 core matrices of 128 bytes: K-neighbours 128 bytes apart (LBO), rows' 256 (SBO)
    return (r // 8) * 256 + (k // 8) * 128 + (r % 8) * 16 + (k % 8) * 2


def smem_tile(words: np.ndarray, base: int, rows: int, dtype: str, swz: int) -> np.ndarray:
    halves = np.tile(words, 4).view(np.uint16)  # the kernel wraps the init words
    idx = np.array(
        [[(base + tile_offset(r, k, rows, swz)) // 2 for k in range(K)] for r in range(rows)]
    )
    return _decode(halves[idx], dtype)


def register_a(words: np.ndarray, dtype: str) -> np.ndarray:
    """A (64 x 16) from the threads' four words: thread t's word i is words[(4 t + i) % W]."""
    a = np.zeros((64, K))
    halves = words.view(np.uint16)
    nw = len(words)
    for t in range(128):
        w, lane = divmod(t, 32)
        r0, c0 = 16 * w + lane // 4, 2 * (lane % 4)
        for i, (dr, dk) in enumerate(((0, 0), (8, 0), (0, 8), (8, 8))):
            word = (4 * t + i) % nw
            for h in range(2):
                a[r0 + dr, c0 + dk + h] = _decode(halves[2 * word + h : 2 * word + h + 1], dtype)[0]
    return a


def accumulators(got: np.ndarray, n: int) -> np.ndarray:
    """The 64 x n tile from the threads' stored accumulators (out[t * n/2 + i])."""
    d = np.full((64, n), np.nan)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            j, q = divmod(i, 4)
            d[16 * w + lane // 4 + 8 * (q // 2), 8 * j + 2 * (lane % 4) + q % 2] = got[
                t * n // 2 + i
            ]
    return d


def check_product(
    got: np.ndarray, words: np.ndarray, n: int, dtype: str, areg: bool, swz: int
) -> dict[str, Any]:
    """The relative error of one product against its float64 reference."""
    b = smem_tile(words, 0, n, dtype, swz)
    a = register_a(words, dtype) if areg else smem_tile(words, n * 128, 64, dtype, swz)
    ref = a @ b.T
    d = accumulators(got, n)
    err = (
        float(np.linalg.norm(d - ref) / np.linalg.norm(ref))
        if np.isfinite(d).all()
        else float("inf")
    )
    return {
        "n": n,
        "dtype": dtype,
        "a_src": "reg" if areg else "smem",
        "swizzle": swz,
        "rel_error": err,
        "ok": err < 1e-5,
    }
