"""Run the CLI in-process and split what it wrote."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from gpusim.cli.main import run


@dataclass
class Result:
    """Exit status, standard output and standard error of one invocation."""

    code: int
    out: str
    err: str

    def json(self) -> dict:
        """Standard output as exactly one JSON object."""
        lines = self.out.splitlines()
        assert len(lines) == 1, self.out
        data = json.loads(lines[0])
        assert isinstance(data, dict)
        return data


@pytest.fixture
def gpusim(capsys):
    """``gpusim(*argv)`` -> :class:`Result`."""

    def invoke(*argv: str) -> Result:
        code = run([str(a) for a in argv])
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke
