"""A content-addressed store of compared runs, so an unchanged model never simulates a
recorded run twice.

A row is stored under the hash of everything it depends on: the record (inputs and
measurements), the profile's values, the simulation's detail, and a fingerprint of the model
(every source file of ``gpusim/`` the simulation can import, of ``algorithms/``, the
shipped profiles, the offline
build's files the engine reads, the Python and NumPy versions). Any change to any of them is a
miss, so a hit returns the very row a fresh simulation would give. The store lives outside the
repository (``$GPUSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/gpusim``, else ``~/.cache/gpusim``);
``GPUSIM_CACHE_DIR=off`` turns it off.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.data.layout import KERNELS_BUILD, REPO_ROOT

#: What the model's predictions are computed from, besides the record and the profile.
MODEL_SOURCES = (("gpusim", "*.py"), ("algorithms", "*.py"), ("hardware_profiles", "*"))
#: Code the simulation never imports (the layers above it, the GPU harnesses, the report
#: writers), so its edits keep the store; of gpusim/validation only the comparison counts.
NOT_MODEL = (
    "gpusim/cli/",
    "gpusim/reporting/",
    "gpusim/calibrate/",
    "gpusim/data/",
    "gpusim/validation/",
)
MODEL_IN_VALIDATION = (
    "gpusim/validation/predicted_vs_measured.py",
    "gpusim/validation/measured_footprint.py",
)


def cache_dir() -> Path | None:
    """The store's folder, or None when it is turned off."""
    env = os.environ.get("GPUSIM_CACHE_DIR")
    if env == "off":
        return None
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gpusim"


@functools.cache
def model_fingerprint() -> str:
    """sha256 over the model's source files and the build facts it reads (once a process)."""
    h = hashlib.sha256(f"{sys.version}|{_numpy_version()}".encode())
    files = [p for folder, pattern in MODEL_SOURCES for p in (REPO_ROOT / folder).rglob(pattern)]
    files += list(KERNELS_BUILD.glob("*"))
    files = [f for f in files if _is_model(str(f.relative_to(REPO_ROOT)))]
    for p in sorted(f for f in files if f.is_file() and "__pycache__" not in f.parts):
        h.update(str(p.relative_to(REPO_ROOT)).encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _is_model(relative: str) -> bool:
    return relative in MODEL_IN_VALIDATION or not relative.startswith(NOT_MODEL)


def _numpy_version() -> str:
    import numpy

    return numpy.__version__


def row_key(record: dict[str, Any], profile_json: str, detail: str) -> str:
    """The store's key of one record's row."""
    h = hashlib.sha256(model_fingerprint().encode())
    h.update(json.dumps(record, sort_keys=True).encode())
    h.update(profile_json.encode())
    h.update(detail.encode())
    return h.hexdigest()


def load(key: str) -> dict[str, Any] | None:
    """The stored row of ``key`` (its ``as_dict()``), or None."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / "validate" / key[:2] / f"{key}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def store(key: str, row: dict[str, Any]) -> None:
    """Keep ``row`` under ``key``; a store that cannot be written is skipped."""
    folder = cache_dir()
    if folder is None:
        return
    path = folder / "validate" / key[:2] / f"{key}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(path, json.dumps(row))
    except OSError:
        pass
