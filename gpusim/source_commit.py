"""Which commit of this repository a result came from: the one ``git_commit`` every record uses."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: The checkout holding the package (``gpusim/`` sits at its top).
REPO_ROOT = Path(__file__).resolve().parents[1]
#: Set by a driver that runs a copied tree without ``.git`` (the newer name first).
COMMIT_ENV = ("GPUSIM_COMMIT", "GPUSIM_GIT_COMMIT")


def git_commit() -> str:
    """The commit named by $GPUSIM_COMMIT (or $GPUSIM_GIT_COMMIT), else ``git rev-parse HEAD``
    with ``+dirty`` when tracked files differ from it, else ``"unknown"``."""
    for name in COMMIT_ENV:
        if os.environ.get(name):
            return os.environ[name]
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        if not head:
            return "unknown"
        dirty = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (subprocess.SubprocessError, OSError):
        return "unknown"
