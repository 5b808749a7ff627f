"""The workload_options decorator, without going through a command."""

from __future__ import annotations

import inspect

from gpusim.cli.options import WorkloadOptions, workload_options


def test_workload_options_decorator_builds_the_signature_typer_sees():
    seen = {}

    @workload_options
    def command(opts: WorkloadOptions, json_out: bool = False, extra: int = 3) -> None:
        seen["opts"], seen["json_out"], seen["extra"] = opts, json_out, extra

    params = inspect.signature(command).parameters
    assert list(params)[:2] == ["json_out", "extra"]
    assert {"algorithm", "profile", "seq_len", "block_m", "warp_split"} <= set(params)
    assert not hasattr(command, "__wrapped__")
    defaults = {name: p.default for name, p in params.items()}
    command(**defaults | {"extra": 5, "batch": 2})
    assert seen["opts"] == WorkloadOptions(batch=2)
    assert seen["extra"] == 5
