"""Fuzz-suite plumbing: the case tally per process, and its sum in the terminal summary.

Under xdist each worker writes its tally to ``.pytest_cache/robustness/<run>-<worker>.json``
when it finishes; the controller (when it loaded this conftest, i.e. when
``tests/robustness`` was named on the command line) adds up the files of its own run,
told apart by xdist's test-run id, so concurrent pytest sessions in the same checkout
do not mix. Without xdist the one process prints its own tally.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from gpusim.atomic import write_json
from tests.robustness.tally import TALLY

#: Worker tallies older than this are from sessions long gone.
STALE_S = 86400


def _tally_dir(config: pytest.Config) -> Path:
    return Path(config.rootpath) / ".pytest_cache" / "robustness"


def pytest_configure(config: pytest.Config) -> None:
    """Fix xdist's test-run id in the controller, so that it knows which files are its own."""
    if hasattr(config, "workerinput"):
        return
    if getattr(config.option, "testrunuid", "") is None:  # xdist installed, id not given
        config.option.testrunuid = uuid.uuid4().hex


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker writes its tally for the controller to add up."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not (TALLY and run and worker):
        return
    d = _tally_dir(session.config)
    d.mkdir(parents=True, exist_ok=True)
    write_json(d / f"{run}-{worker}.json", dict(TALLY))


def _session_tally(config: pytest.Config) -> Counter[str]:
    total: Counter[str] = Counter(TALLY)
    run = getattr(config.option, "testrunuid", None)
    d = _tally_dir(config)
    if not (run and d.is_dir()):
        return total
    for f in d.glob("*.json"):
        if f.name.startswith(f"{run}-"):
            total.update(json.loads(f.read_text()))
            f.unlink()
        elif f.stat().st_mtime < time.time() - STALE_S:
            f.unlink(missing_ok=True)
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
