"""Warp-instructions per step of the tensor-core kernel's main loop, read from its compiled SASS.

A formula over tile sizes misses by up to 40 % on some instances (the compiler unrolls,
hoists and predicates differently per instance), so the counts come from each instance's
own machine code, its main loop walked along one step's path
(:mod:`gpusim.kernel_catalog.sass_loop`); the same step, decoded
(:mod:`gpusim.kernel_catalog.sass_decode`), is what the SM core model replays.
Both are committed: ``loop_counts.json`` and ``loop_paths.json.gz``.

HMMA and LDSM are reported apart (the tracer counts those from the tiles). These are
compile-time facts: nothing here is fitted to a timing. This module reads the committed files;
regenerate them with ``python -m gpusim.kernels.loop_extract`` (nvcc and cuobjdump needed).
"""

from __future__ import annotations

import functools
import gzip
import json

from gpusim.data.layout import KERNELS_BUILD
from gpusim.kernel_catalog.sass_instr import Instr

LOOP_COUNTS = KERNELS_BUILD / "loop_counts.json"
#: One step of each instance's loop as the core model runs it (gzip-compressed JSON).
LOOP_PATHS = LOOP_COUNTS.with_name("loop_paths.json.gz")
#: Counted by the tracer from the tiles, not here.
PRODUCT_OPS = ("HMMA", "LDSM")


@functools.cache
def loop_path(key: str) -> tuple | None:
    """The committed steady step of instance ``key`` as core-model instructions, or None."""
    table = _loop_paths()
    if key not in table:
        return None
    return tuple(Instr.from_row(r) for r in table[key])


def loop_paths_table() -> dict[str, list]:
    """Every committed steady step, by instance key, as stored (rows, not instructions)."""
    return _loop_paths()


@functools.cache
def _loop_paths() -> dict[str, list]:
    if not LOOP_PATHS.exists():
        return {}
    return json.loads(gzip.decompress(LOOP_PATHS.read_bytes()))["instances"]


@functools.cache
def loop_counts() -> dict[str, dict[str, int]]:
    """The committed counts (empty when the file is absent)."""
    if not LOOP_COUNTS.exists():
        return {}
    return json.loads(LOOP_COUNTS.read_text())["instances"]
