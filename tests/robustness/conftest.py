"""Fuzz-suite plumbing: the case tally per process, and its sum in the terminal summary."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from gpusim.atomic import write_json
from tests.robustness.tally import TALLY

_STARTED = time.time()


def _tally_dir(config: pytest.Config) -> Path:
    return Path(config.rootpath) / ".pytest_cache" / "robustness"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Each process (xdist worker or a plain run) writes its tally for the summary to add up."""
    if not TALLY:
        return
    d = _tally_dir(session.config)
    d.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    write_json(d / f"{worker}-{os.getpid()}.json", {"started": _STARTED, "cases": TALLY})


def _session_tally(config: pytest.Config) -> Counter[str]:
    total: Counter[str] = Counter()
    d = _tally_dir(config)
    for f in d.glob("*.json") if d.is_dir() else ():
        # Only files written by this session's processes (they start after this one).
        mtime = f.stat().st_mtime
        if mtime < _STARTED - 86400:
            f.unlink(missing_ok=True)  # a day old: an earlier session's
        if mtime < _STARTED:
            continue
        total.update(json.loads(f.read_text())["cases"])
    return total


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """Print the cases per class of input (and write them to $GPUSIM_ROBUSTNESS_COUNTS)."""
    total = _session_tally(config)
    if not total:
        return
    terminalreporter.section("robustness: fuzz cases per class of input")
    for name, n in sorted(total.items()):
        terminalreporter.write_line(f"{n:8d}  {name}")
    out = os.environ.get("GPUSIM_ROBUSTNESS_COUNTS")
    if out:
        write_json(out, dict(sorted(total.items())))
