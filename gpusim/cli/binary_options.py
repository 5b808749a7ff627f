"""``--cubin FILE`` / ``--sass FILE`` / ``--res-usage FILE`` / ``--kernel NAME`` of
``gpusim simulate``: the SM core model replays that binary's kernel loop
(:mod:`gpusim.kernels.binary_dump`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpusim.errors import GpusimError

CubinOption = Annotated[
    Path | None,
    typer.Option(
        "--cubin",
        help="Replay --kernel's main loop from this binary (a cubin, or any file cuobjdump "
        "reads, e.g. libtorch_cuda.so) with the SM core model; needs cuobjdump and a profile "
        "with sass_core_cycles (h200-sxm-core).",
        show_default=False,
    ),
]
SassOption = Annotated[
    Path | None,
    typer.Option(
        "--sass",
        help="As --cubin, from a `cuobjdump -sass` text dump (plain or .gz): no cuobjdump needed.",
        show_default=False,
    ),
]
ResUsageOption = Annotated[
    Path | None,
    typer.Option(
        "--res-usage",
        help="With --sass: the `cuobjdump -res-usage` text, for the kernel's registers.",
        show_default=False,
    ),
]
KernelOption = Annotated[
    str | None,
    typer.Option(
        "--kernel",
        help="With --cubin/--sass: the kernel, by mangled name or part of its demangled name.",
        show_default=False,
    ),
]

BinaryTimingOption = Annotated[
    str,
    typer.Option(
        "--binary-timing",
        help="With --cubin/--sass: replay (the SM core model replays the loop) or counts (the "
        "pipe model, any profile, charges the loop's own instruction count per step).",
    ),
]


def binary_loop_of(cubin, sass, res_usage, kernel, algorithms: tuple[str, ...]):
    """The loop to replay, or None when no binary option was given."""
    if cubin is None and sass is None and kernel is None and res_usage is None:
        return None
    if res_usage is not None and sass is None:
        raise GpusimError("--res-usage goes with --sass")
    if len(algorithms) != 1:
        raise GpusimError("--cubin/--sass replay one algorithm's kernel: name it with -a")
    from gpusim.kernels.binary_dump import load_binary_loop

    return load_binary_loop(kernel or "", cubin=cubin, sass=sass, res_usage=res_usage)
