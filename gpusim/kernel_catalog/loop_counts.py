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

from gpusim.data.layout import KERNELS_BUILD, SWITCH_LOOPS
from gpusim.kernel_catalog.sass_instr import Instr

LOOP_COUNTS = KERNELS_BUILD / "loop_counts.json"
#: One step of each instance's loop as the core model runs it (gzip-compressed JSON).
LOOP_PATHS = LOOP_COUNTS.with_name("loop_paths.json.gz")
#: The sampled long-context switch instances' steady steps (gpusim/kernels/switch_loops.py),
#: and their ptxas reports.
SWITCH_LOOP_PATHS = SWITCH_LOOPS / "loop_paths.json.gz"
SWITCH_PTXAS = SWITCH_LOOPS / "ptxas.json"
#: Counted by the tracer from the tiles, not here.
PRODUCT_OPS = ("HMMA", "LDSM")


@functools.cache
def loop_path(key: str) -> tuple | None:
    """The committed steady step of instance ``key`` (a grid instance, or a sampled switch
    instance) as core-model instructions, or None."""
    rows = _loop_paths().get(key) or switch_loop_paths().get(key)
    if rows is None:
        return None
    return tuple(Instr.from_row(r) for r in rows)


def switch_loop_paths() -> dict[str, list]:
    """The sampled switch instances' steady steps, by instance key, as stored."""
    return _switch_doc().get("instances", {})


def switch_bases() -> dict[str, str]:
    """Each sampled switch instance's base (grid) instance key."""
    return _switch_doc().get("bases", {})


@functools.cache
def _switch_doc() -> dict:
    if not SWITCH_LOOP_PATHS.exists():
        return {}
    return json.loads(gzip.decompress(SWITCH_LOOP_PATHS.read_bytes()))


@functools.cache
def switch_registers() -> dict[str, int]:
    """Registers per thread ptxas gave each sampled switch instance."""
    if not SWITCH_PTXAS.exists():
        return {}
    doc = json.loads(SWITCH_PTXAS.read_text())["instances"]
    return {k: v["registers"] for k, v in doc.items()}


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
