"""Run the CLI in-process under a hang guard and check the outcome contract.

Every invocation ends in one of two ways: exit 0 with exactly one JSON object on
stdout (strict JSON: no NaN or Infinity), or a non-zero exit with nothing on
stdout and exactly one line ``gpusim: error: ...`` on stderr. An internal error
(exit 3) is a bug even though it is one line; so is anything taking longer than
the guard.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from gpusim.cli.main import EXIT_INTERNAL, run

#: Seconds one in-process invocation may take before the fuzz calls it a hang.
HANG_S = 60.0


class Hang(BaseException):
    """An invocation ran past the hang guard."""


@contextlib.contextmanager
def hang_guard(seconds: float = HANG_S, what: object = "") -> Iterator[None]:
    """Raise :class:`Hang` if the block runs longer than ``seconds`` (main thread, POSIX).

    ``what`` names the case in the message: a hang is a BaseException, so hypothesis
    stops at once instead of shrinking (minutes per try) and prints no example itself.
    """

    def fire(signum, frame):
        raise Hang(f"still running after {seconds:g} s: {what}")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def strict_json(text: str) -> Any:
    """Parse JSON as the contract defines it: NaN, Infinity and -Infinity are errors."""
    return json.loads(text, parse_constant=_reject_constant)


@dataclass
class Outcome:
    """Exit status and what the CLI wrote."""

    argv: list[str]
    code: int
    out: str
    err: str

    @property
    def ok(self) -> bool:
        """Exit 0."""
        return self.code == 0

    def json(self) -> dict[str, Any]:
        """The one JSON object on stdout."""
        lines = self.out.splitlines()
        assert len(lines) == 1, f"{self.argv}: expected one line of JSON, got {len(lines)}"
        data = strict_json(lines[0])
        assert isinstance(data, dict), self.argv
        return data

    @property
    def error_line(self) -> str:
        """The single error line (asserts there is exactly one)."""
        lines = self.err.strip("\n").splitlines()
        assert len(lines) == 1, f"{self.argv}: stderr is not one line:\n{self.err}"
        return lines[0]


def invoke(argv: list[str], *, seconds: float = HANG_S) -> Outcome:
    """Run ``gpusim argv`` in this process with stdout/stderr captured, under the hang guard."""
    out, err = io.StringIO(), io.StringIO()
    guard = hang_guard(seconds, ["gpusim", *argv])
    with guard, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run([str(a) for a in argv])
    return Outcome([str(a) for a in argv], code, out.getvalue(), err.getvalue())


def check_contract(o: Outcome, *, logs_before: bool = False) -> Outcome:
    """Assert the outcome contract (see the module docstring); return ``o`` for chaining.

    ``logs_before``: the command logs progress to stderr before it can fail (``verify``),
    so the error must be the last line rather than the only one. ``verify`` also
    exits 1 with its JSON when an algorithm fails the tolerance: a result, not an error.
    """
    assert "Traceback" not in o.err, f"{o.argv}: traceback on stderr:\n{o.err}"
    if o.code == 0 or (o.code == 1 and logs_before and o.out):
        o.json()
        return o
    assert o.out == "", f"{o.argv}: exit {o.code} but stdout has {o.out[:200]!r}"
    if logs_before:
        lines = o.err.strip("\n").splitlines()
        assert lines, f"{o.argv}: exit {o.code} and nothing on stderr"
        assert sum(ln.startswith("gpusim: error: ") for ln in lines) == 1, o.err
        line = lines[-1]
    else:
        line = o.error_line
    assert line.startswith("gpusim: error: "), f"{o.argv}: {line}"
    assert o.code != EXIT_INTERNAL, f"{o.argv}: internal error (a bug): {line}"
    return o


def check_rejected(o: Outcome, *, logs_before: bool = False) -> Outcome:
    """Assert bad input was refused with a one-line usage error (exit 2)."""
    check_contract(o, logs_before=logs_before)
    assert o.code == 2, f"{o.argv}: bad input accepted (exit {o.code}): {o.out[:300]}"
    return o
