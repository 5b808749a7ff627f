"""The Python API with values of any type: inputs or a :class:`GpusimError`, nothing else.

``build_inputs`` is the one door from user values to the models; whatever it is
given (wrong types, NaN, huge or negative numbers, strings, containers, None),
it returns validated inputs or raises a one-line ``GpusimError``. Inputs it
accepts then count and simulate without any other exception.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from gpusim.api.inputs import SCHEDULE_FIELDS, build_inputs
from gpusim.counting import count
from gpusim.engine import simulate
from gpusim.errors import GpusimError
from gpusim.profiles import list_profiles
from tests.robustness.harness import hang_guard
from tests.robustness.strategies import GOOD_SIZES, fuzz
from tests.robustness.tally import tally

#: Class of a Python value -> values of that class.
ANY_VALUE: dict[str, st.SearchStrategy[Any]] = {
    "api: zero or negative int": st.integers(-(10**6), 0),
    "api: huge int": st.integers(2**31, 10**300),
    "api: float": st.floats(allow_nan=False, allow_infinity=False),
    "api: nan/inf": st.sampled_from([math.nan, math.inf, -math.inf]),
    "api: string": st.text(max_size=8),
    "api: None": st.none(),
    "api: bool": st.booleans(),
    "api: container": st.sampled_from([[], [1], {}, {"a": 1}, (8,), {1, 2}]),
    "api: object": st.sampled_from([object(), b"8", 8j]),
}

GOOD_NAMES = {
    "algorithm": st.sampled_from(list(ALGORITHMS)),
    "profile": st.sampled_from(list_profiles()),
    "dtype": st.sampled_from(["fp32", "fp16", "bf16"]),
    "warp_split": st.sampled_from(["split-q", "split-k"]),
    "residency": st.sampled_from(["registers", "smem"]),
}
GOOD = GOOD_SIZES | GOOD_NAMES
KEYS = [*GOOD, "causal"]


@st.composite
def api_kwargs(draw):
    """Keyword arguments for build_inputs: good values, one or two replaced by anything."""
    kwargs: dict[str, Any] = {"batch": 1, "heads": 2, "seq_len": 64}
    for key in KEYS:
        if draw(st.booleans()):
            kwargs[key] = draw(GOOD.get(key, st.booleans()))
    classes = []
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=2, unique=True)):
        cls = draw(st.sampled_from(sorted(ANY_VALUE)))
        kwargs[key] = draw(ANY_VALUE[cls])
        classes.append(cls)
    return kwargs, classes


@fuzz(500)
@given(case=api_kwargs())
def test_build_inputs_takes_anything(case):
    kwargs, classes = case
    tally(*(classes or ["api: valid"]))
    with hang_guard(what=kwargs):
        try:
            inputs = build_inputs(**kwargs)
        except GpusimError as e:
            assert "\n" not in str(e) and str(e), repr(e)
            tally("api: ended in a one-line GpusimError")
            return
        tally("api: ended in inputs")
        for name in ("batch", "heads", "head_dim"):
            v = getattr(inputs.workload, name)
            assert type(v) is int and 1 <= v < 2**31, (name, v)
        for name in SCHEDULE_FIELDS[:4]:
            assert type(getattr(inputs.schedule, name)) is int
        # Whatever was accepted must count and simulate, or fail with a GpusimError.
        try:
            w, s, p = inputs.workload, inputs.schedule, inputs.profile
            algorithm = kwargs.get("algorithm", "flash2")
            counts = count(algorithm, w, s)
            r = simulate(algorithm, w, s, p)
        except GpusimError:
            tally("api: accepted inputs, then a GpusimError")
            return
    assert r.count["global_read_bytes"] == counts.global_read_bytes
    assert 0 < r.runtime_s < math.inf
