"""The workload commands driven with generated options: a result or a one-line error, always.

Options get good values, zero, negative, huge and non-integer numbers, strings,
NaN/inf and misspelt names. A case with any value of a refused kind
(:data:`~tests.robustness.strategies.REJECTED`) must exit 2; any other case
must print one JSON object or fail with one ``gpusim: error:`` line; exit 3
(internal error), a traceback or a hang fails the test.
"""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from gpusim.profiles import list_profiles
from tests.robustness.harness import check_contract, check_rejected, invoke
from tests.robustness.strategies import (
    DTYPES,
    GOOD_SIZES,
    HUGE,
    REJECTED,
    VALID,
    ZERO,
    Option,
    fuzz,
    int_option,
    name_option,
    options_argv,
    positive_float_option,
)
from tests.robustness.tally import tally

#: Tile steps the tracer may record during the fuzz: the refusal path is the same as at
#: the shipped 200k, reached in a fraction of a second instead of ~10 s per huge case.
FUZZ_TRACE_STEPS = 20_000


@pytest.fixture(autouse=True, scope="module")
def _small_trace_budget():
    with pytest.MonkeyPatch.context() as mp:
        # gpusim.engine.simulate is also the name of the function: patch the module object.
        for module in ("gpusim.counting", "gpusim.engine.simulate"):
            mp.setattr(importlib.import_module(module), "MAX_TRACED_STEPS", FUZZ_TRACE_STEPS)
        yield


#: The options every workload command shares.
WORKLOAD_OPTIONS = {name: int_option(good) for name, good in GOOD_SIZES.items()} | {
    "algorithm": name_option(list(ALGORITHMS)),
    "profile": name_option(list_profiles()),
    "dtype": name_option(DTYPES),
    "warp_split": name_option(["split-q", "split-k"]),
    "residency": name_option(["registers", "smem"]),
    "pass": name_option(["fwd", "bwd", "fwd+bwd"]),
}
#: Always given (with a good or bad value), so no case falls back to the large defaults.
ALWAYS = ("batch", "heads", "seq_len")


@st.composite
def workload_argv(draw, extra: dict[str, Option] | None = None):
    """``(argv, kinds)`` for a workload command, ``--causal`` or not."""
    argv, kinds = draw(options_argv(WORKLOAD_OPTIONS | (extra or {}), ALWAYS))
    if draw(st.booleans()):
        argv.append("--causal")
    return argv, kinds


def _run_case(command: str, argv: list[str], kinds: list[str]) -> None:
    bad = [k for k in kinds if k != VALID]
    tally(*(f"cli {command}: {k}" for k in bad or [VALID]))
    outcome = invoke([command, *argv, "--json"])
    if set(kinds) & REJECTED:
        check_rejected(outcome)
    else:
        check_contract(outcome)
    tally(f"cli {command}: ended {'in a result' if outcome.ok else 'in a one-line error'}")


@fuzz(300)
@given(case=workload_argv())
def test_count(case):
    _run_case("count", *case)


@fuzz(150)
@given(
    case=workload_argv(
        {"detail": name_option(["auto", "aggregated", "full"])},
    )
)
def test_simulate(case):
    _run_case("simulate", *case)


@fuzz(20)
@given(case=workload_argv({"sram_kib": positive_float_option(st.floats(16, 512))}))
def test_tune(case):
    _run_case("tune", *case)


VERIFY_OPTIONS = {
    "seed": Option(
        st.integers(0, 2**70).map(lambda v: (VALID, str(v))),
        int_option(st.just(1)).bad.filter(lambda kv: kv[0] not in (ZERO, HUGE)),
    ),
    # 0 and inf are good tolerances (inf passes everything; 0 fails fp64 rounding: exit 1).
    "tolerance": Option(
        st.sampled_from(["0", "1e-10", "1.0", "inf"]).map(lambda t: (VALID, t)),
        positive_float_option(st.just(1.0)).bad.filter(
            lambda kv: kv[0] not in (ZERO, HUGE) and kv[1] not in ("inf", "Infinity", "+inf")
        ),
    ),
    "algorithm": name_option(list(ALGORITHMS)),
}


@fuzz(50)
@given(case=options_argv(VERIFY_OPTIONS, always=("algorithm",)))
def test_verify(case):
    argv, kinds = case
    bad = [k for k in kinds if k != VALID]
    tally(*(f"cli verify: {k}" for k in bad or [VALID]))
    outcome = invoke(["verify", *argv, "--json"])
    if set(kinds) & REJECTED:
        check_rejected(outcome, logs_before=True)
    else:
        check_contract(outcome, logs_before=True)
