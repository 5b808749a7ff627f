"""Suite-wide scheduling under pytest-xdist: a module's tests stay on one worker.

Several modules share one costly module-scoped fixture (the 63 validation runs simulated
again, the core model's 45 microbenchmark replays, the tuner's recomputed proof
predictions). With xdist's default ``load`` distribution their tests are spread over the
workers and each worker computes the fixture again; sending a module as one unit computes
it once. The costliest units go first, so the cheap modules fill in behind them and the
workers finish together. ``--dist`` given explicitly is left alone.
"""

from __future__ import annotations

import pytest

#: Units that take longest on one core (seconds on the 2-core machine), started first.
#: Modules listed under one name share a session fixture and run as one unit.
SLOW_UNITS = {
    "tests/validation/test_recorded.py": "validation-recorded",
    "tests/validation/test_l2_probe.py": "validation-recorded",
    "tests/engine/test_core_model_loops.py": "core-model-loops",
    "tests/robustness/test_api_fuzz.py": "api-fuzz",
    "tests/tuning/test_proof_recorded.py": "proof-recorded",
    "tests/tuning/test_caps_recorded.py": "caps-recorded",
    "tests/robustness/test_physics.py": "physics",
    "tests/robustness/test_cli_fuzz.py": "cli-fuzz",
    "tests/robustness/test_profile_fuzz.py": "profile-fuzz",
    "tests/reporting/test_runner.py": "report-runner",
    "tests/robustness/test_scale.py": "scale",
    "tests/test_readme_python.py": "readme-python",
    "tests/validation/test_no_writes.py": "no-writes",
}


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its slow unit's name, else its module."""
    module = _module(nodeid)
    return SLOW_UNITS.get(module, module)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the slow units first (a stable sort: the order inside a unit is kept)."""
    order = {name: i for i, name in enumerate(dict.fromkeys(SLOW_UNITS.values()))}
    items.sort(key=lambda item: order.get(unit_of(item.nodeid), len(order)))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``-n`` with the default distribution: one work unit per module (slow ones joined)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    # LoadScope would reorder the units by their number of tests; the slow ones go first.
    config.option.loadscopereorder = False

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ModuleScheduling(config, log)
