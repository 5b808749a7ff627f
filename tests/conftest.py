"""Suite-wide scheduling under pytest-xdist: the costliest tests go first.

Several modules share one costly module-scoped fixture (the 63 validation runs simulated
again, the core model's 45 microbenchmark replays, the tuner's recomputed proof
predictions). pyproject.toml's ``--dist worksteal`` hands each worker half of the collected
items in their order (the first half to one, the rest to the other) and lets an idle worker
take half of another's queue from its tail. With the slow units sorted to the front they
start early, a module's tests stay next to each other (so its fixture is computed once, on
the worker that holds them), and the cheap tests behind them are what gets stolen, so the
workers finish together. Under ``--dist load`` given explicitly,
:func:`pytest_xdist_make_scheduler` sends each unit as one piece instead.
"""

from __future__ import annotations

import pytest

#: Units that take longest on one core (seconds on the 2-core machine, cold prediction cache),
#: started first, longest first, so the many cheap modules fill in behind them and neither
#: worker is left with a long unit at the end. Modules listed under one name share a session
#: fixture and run as one unit.
SLOW_UNITS = {
    "tests/validation/test_recorded.py": "validation-recorded",  # ~40 s (63 runs simulated)
    "tests/validation/test_l2_probe.py": "validation-recorded",
    "tests/robustness/test_physics.py": "physics",  # ~34 s
    # The wgmma held-out sets' recomputations (~15-22 s each) are units of their own
    # (SPLIT_TESTS); the module's cheap tests follow here.
    "tests/reporting/test_wgmma_heldout.py": "wgmma-heldout",
    "tests/test_readme_python.py": "readme-python",  # ~19 s
    "tests/calibrate/test_kernel_sources.py": "kernel-sources",  # ~15 s
    "tests/explore/test_dask_executor.py": "dask-executor",  # ~13 s
    "tests/tuning/test_tuner_engine.py": "tuner-engine",  # ~12 s
    "tests/validation/test_no_writes.py": "no-writes",  # ~12 s
    "tests/robustness/test_scale.py": "scale",  # ~11 s
    "tests/cli/test_bwd_tiles.py": "bwd-tiles",  # ~11 s
    "tests/robustness/test_cli_fuzz.py": "cli-fuzz",  # ~11 s
    "tests/reporting/test_forward_replay_heldout18.py": "forward-replay18",  # ~9 s
    "tests/tuning/test_proof_recorded.py": "proof-recorded",  # ~9 s
    "tests/engine/test_core_model_loops.py": "core-model-loops",  # ~9 s
    "tests/validation/test_backward_heldout17.py": "backward17",  # ~8 s
    "tests/validation/test_new_shapes_heldout14.py": "new-shapes14",  # ~8 s
    "tests/validation/test_launch_set.py": "launch-set",  # ~8 s
    "tests/robustness/test_api_fuzz.py": "api-fuzz",
    "tests/tuning/test_caps_recorded.py": "caps-recorded",
    "tests/robustness/test_profile_fuzz.py": "profile-fuzz",
    "tests/reporting/test_runner.py": "report-runner",
}

#: Single tests that are a unit of their own (they share no fixture with their module's other
#: tests), started before the unit of the module's first entry in :data:`SLOW_UNITS`.
_WGMMA = "tests/reporting/test_wgmma_heldout.py::test_the_model_recomputed_on_held_out_set_"
SPLIT_TESTS = {
    f"{_WGMMA}4_and_its_rule": "wgmma-heldout4",  # ~22 s
    f"{_WGMMA}3_and_its_rule": "wgmma-heldout3",  # ~20 s
    f"{_WGMMA}2_and_its_rule": "wgmma-heldout2",  # ~16 s
    f"{_WGMMA}1": "wgmma-heldout1",  # ~15 s
}


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def unit_of(nodeid: str) -> str:
    """The scheduling unit of a test: its own unit, else its slow unit's name, else its module."""
    if nodeid in SPLIT_TESTS:
        return SPLIT_TESTS[nodeid]
    module = _module(nodeid)
    return SLOW_UNITS.get(module, module)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the slow units first (a stable sort: the order inside a unit is kept)."""
    names = list(dict.fromkeys(SLOW_UNITS.values()))
    first = names.index("wgmma-heldout")
    names[first:first] = SPLIT_TESTS.values()
    order = {name: i for i, name in enumerate(names)}
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
