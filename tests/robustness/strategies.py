"""Hypothesis strategies for bad (and good) input, each value labelled with its class.

A labelled value is ``(kind, text)``: ``text`` is what goes on the command line,
``kind`` the class of input it belongs to. Kinds in :data:`REJECTED` must make
the CLI refuse the invocation; the others may run or fail with a one-line error.
"""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from gpusim.dtypes import USER_DTYPES

#: Multiply every fuzz test's example count (e.g. 20 for a long local hunt).
SCALE = float(os.environ.get("GPUSIM_FUZZ_SCALE", "1"))
#: CI runs the same examples every time (its time and outcome do not depend on the draw);
#: a hunt sets ``GPUSIM_FUZZ_RANDOM=1`` (and a larger scale) to draw new ones.
RANDOM = os.environ.get("GPUSIM_FUZZ_RANDOM", "") == "1"


def fuzz(n: int, **kwargs) -> settings:
    """Settings of a fuzz test: ``n`` examples (scaled by ``GPUSIM_FUZZ_SCALE``), no deadline,
    derandomized unless ``GPUSIM_FUZZ_RANDOM=1``.

    The hang guard of :mod:`tests.robustness.harness` bounds each case instead of a
    deadline, so a slow CI machine does not turn a legitimate case into a failure.
    """
    return settings(
        max_examples=max(1, round(n * SCALE)),
        deadline=None,
        derandomize=not RANDOM,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        **kwargs,
    )


Labelled = tuple[str, str]

VALID = "valid"
ZERO = "zero"
NEGATIVE = "negative"
HUGE = "huge"
NON_INTEGER = "non-integer"
STRING = "string"
NAN_INF = "nan/inf"
BAD_NAME = "unknown or misspelt name"

#: Kinds of value that must always be refused.
REJECTED = frozenset({ZERO, NEGATIVE, NON_INTEGER, STRING, NAN_INF, BAD_NAME})


#: What the CLI (Typer's integer type) reads as an integer: ASCII digits, optional sign,
#: underscores between digits, an all-zero fraction ("64.0"), surrounding blanks.
CLI_INTEGER = re.compile(r"\s*[+-]?[0-9](_?[0-9])*(\.0+)?\s*")


def _not_an_int(s: str) -> bool:
    return CLI_INTEGER.fullmatch(s) is None


def _not_a_float(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return True
    return False


_words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=0, max_size=12
)
_strings = st.one_of(
    st.sampled_from(
        ["", " ", "abc", "12abc", "1 2", "0x10", "1_0_", "--", "two", "None", "🚀", "1\n2", "x\ty"]
    ),
    _words,
)
_non_integers = st.one_of(
    st.sampled_from(["1.5", "1e3", "1E2", "-0.5", "3,5", "1/2", "7.", "2.0000001", "１２"]),
    st.builds(lambda i, f: repr(i + f), st.integers(-(10**6), 10**6), st.sampled_from([0.5, 0.1])),
)
_nan_inf = st.sampled_from(["nan", "NaN", "inf", "-inf", "Infinity", "+inf", "-nan"])


class Option:
    """Good and bad values of one command-line option, each labelled with its kind."""

    def __init__(self, good: st.SearchStrategy[Labelled], bad: st.SearchStrategy[Labelled]):
        self.good = good
        self.bad = bad


def int_option(valid: st.SearchStrategy[int]) -> Option:
    """An integer option whose good values come from ``valid`` (all >= 1)."""
    spellings = st.sampled_from(["{}", " {} ", "+{}", "{}.0", "{}.000"])  # all read as v
    return Option(
        st.tuples(valid, spellings).map(lambda vs: (VALID, vs[1].format(vs[0]))),
        st.one_of(
            st.sampled_from(["0", "-0", "000", "0.0"]).map(lambda t: (ZERO, t)),
            st.integers(-(10**12), -1).map(lambda v: (NEGATIVE, str(v))),
            st.integers(2**31, 10**40).map(lambda v: (HUGE, str(v))),
            _non_integers.map(lambda t: (NON_INTEGER, t)),
            _strings.filter(_not_an_int).map(lambda t: (STRING, t)),
            _nan_inf.map(lambda t: (NAN_INF, t)),
        ),
    )


def positive_float_option(valid: st.SearchStrategy[float]) -> Option:
    """An option that takes a positive real number (``--sram-kib``)."""
    return Option(
        valid.map(lambda v: (VALID, repr(v))),
        st.one_of(
            st.sampled_from(["0", "0.0", "-0.0"]).map(lambda t: (ZERO, t)),
            st.floats(max_value=-1e-300, allow_infinity=False).map(lambda v: (NEGATIVE, repr(v))),
            st.sampled_from(["1e300", "1.7e308", "1e30", "1e9"]).map(lambda t: (HUGE, t)),
            _strings.filter(_not_a_float).map(lambda t: (STRING, t)),
            _nan_inf.map(lambda t: (NAN_INF, t)),
        ),
    )


def _misspell(name: str) -> st.SearchStrategy[str]:
    variants = {
        name.upper(),
        name + " ",
        name.replace("-", "_"),
        name[:-1],
        name + "x",
        name[1:] + name[0],
    }
    variants.discard(name)
    return st.sampled_from(sorted(variants))


def name_option(names: tuple[str, ...] | list[str]) -> Option:
    """An option that takes one of ``names``."""
    names = list(names)
    bad = st.sampled_from(names).flatmap(_misspell) | _strings
    return Option(
        st.sampled_from(names).map(lambda n: (VALID, n)),
        bad.filter(lambda t: t not in names).map(lambda t: (BAD_NAME, t)),
    )


@st.composite
def options_argv(draw, options: dict[str, Option], always: tuple[str, ...] = ()):
    """``(argv, kinds)``: some of ``options`` (those in ``always`` for sure), at most two bad.

    Most cases carry zero or one bad value, so that each bad value meets otherwise
    good input and the good paths get exercised too.
    """
    chosen = [k for k in options if k in always or draw(st.booleans())]
    n_bad = draw(st.sampled_from([0, 0, 1, 1, 1, 2]))
    bad = set(draw(st.permutations(chosen))[:n_bad]) if chosen else set()
    argv: list[str] = []
    kinds: list[str] = []
    for name in chosen:
        kind, text = draw(options[name].bad if name in bad else options[name].good)
        argv += [f"--{name.replace('_', '-')}", text]
        kinds.append(kind)
    return argv, kinds


# Good values: small enough that a count or a simulation takes well under a second,
# with the awkward corners in: lengths of 1, head dims off multiples of 8, blocks
# larger than the sequence.
GOOD_SIZES = {
    "batch": st.integers(1, 4),
    "heads": st.integers(1, 4),
    "seq_len": st.one_of(st.just(1), st.integers(1, 1024)),
    "seq_len_k": st.one_of(st.just(1), st.integers(1, 1024)),
    "head_dim": st.one_of(st.sampled_from([8, 64, 128, 256]), st.integers(1, 300)),
    "block_m": st.one_of(st.sampled_from([16, 32, 64, 128]), st.integers(1, 512)),
    "block_n": st.one_of(st.sampled_from([16, 32, 64, 128]), st.integers(1, 512)),
    "warps": st.integers(1, 16),
    "stages": st.integers(1, 4),
}

DTYPES = USER_DTYPES
