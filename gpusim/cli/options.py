"""The options shared by the workload commands, and turning them into model inputs.

A command takes them all by decorating itself with :func:`workload_options`::

    @app.command()
    @workload_options
    def count(opts: WorkloadOptions, json_out: JsonOption = False) -> None:
        inputs = opts.build()        # Workload, Schedule, HardwareProfile, defaults used

Each option is also a reusable ``Annotated`` alias (``BatchOption`` ...), and
:func:`build_inputs` works without Typer. Block sizes left out come from
``gpusim.tuning.default_choice.accepted_default_schedule``; ``Inputs.filled`` says which.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from dataclasses import asdict, dataclass, fields
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer
from pydantic import ValidationError

from gpusim.dtypes import USER_DTYPES
from gpusim.errors import GpusimError
from gpusim.occupancy import check_fits
from gpusim.profiles import DEFAULT_PROFILE, HardwareProfile, list_profiles, load_profile
from gpusim.profiles.loader import validation_summary
from gpusim.schedule import Schedule
from gpusim.workload import Workload

DType = Enum("DType", {d: d for d in USER_DTYPES}, type=str)  # type: ignore[misc]
WarpSplit = Enum("WarpSplit", {s: s for s in ("split-q", "split-k")}, type=str)  # type: ignore[misc]
Residency = Enum("Residency", {s: s for s in ("registers", "smem")}, type=str)  # type: ignore[misc]

WORKLOAD = "Workload"
SCHEDULE = "Schedule (left out: the default rule's choice among those gpusim tune accepts)"
#: ``gpusim tune``'s schedule panel: what is left out is searched, not defaulted.
SEARCHED = "Schedule (left out: searched; given: pinned)"


def algorithm_names() -> str:
    """The algorithm names, comma-separated, for help texts."""
    from algorithms import ALGORITHMS  # late: algorithms imports gpusim

    return ", ".join(ALGORITHMS)


def unknown_name(kind: str, name: str, known: list[str]) -> GpusimError:
    """The one-line error for a misspelt name, with the closest known ones first."""
    # A prefix ("a100") is the usual shorthand; difflib catches the misspellings.
    prefixed = [k for k in known if k.startswith(name)]
    close = list(dict.fromkeys(prefixed + difflib.get_close_matches(name, known, cutoff=0.5)))[:3]
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    return GpusimError(f"unknown {kind} {name!r}{hint} (known: {', '.join(known)})")


def check_algorithm(name: str | None) -> str | None:
    """``name`` if it is an algorithm, else :func:`unknown_name`'s error (an option callback)."""
    from algorithms import ALGORITHMS

    if name is not None and name not in ALGORITHMS:
        raise unknown_name("algorithm", name, list(ALGORITHMS))
    return name


def check_profile(name: str | None) -> str | None:
    """``name`` if it is a shipped profile or looks like a file, else a one-line error."""
    # A file path is the loader's to judge; only a bare name can be misspelt.
    looks_like_file = Path(name or "").suffix in (".yaml", ".yml", ".json") or "/" in (name or "")
    if name is not None and not looks_like_file and name not in list_profiles():
        raise unknown_name("profile", name, list_profiles())
    return name


JsonOption = Annotated[
    bool, typer.Option("--json", help="Print exactly one JSON object on standard output.")
]
VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose", "-v", help="Internal lines (timings, event counts) on standard error."
    ),
]
AlgorithmOption = Annotated[
    str,
    typer.Option(
        "--algorithm", "-a", help=f"One of: {algorithm_names()}.", callback=check_algorithm
    ),
]
ProfileOption = Annotated[
    str,
    typer.Option(
        "--profile",
        "-p",
        help=f"Hardware profile name ({', '.join(list_profiles())}) or a YAML/JSON file.",
        callback=check_profile,
    ),
]
BatchOption = Annotated[
    int, typer.Option("--batch", min=1, help="Batch size.", rich_help_panel=WORKLOAD)
]
HeadsOption = Annotated[
    int, typer.Option("--heads", min=1, help="Attention heads.", rich_help_panel=WORKLOAD)
]
SeqLenOption = Annotated[
    int, typer.Option("--seq-len", min=1, help="Query length Nq.", rich_help_panel=WORKLOAD)
]
SeqLenKOption = Annotated[
    int | None,
    typer.Option(
        "--seq-len-k",
        min=1,
        help="Key length Nk (default: the same as --seq-len).",
        rich_help_panel=WORKLOAD,
    ),
]
HeadDimOption = Annotated[
    int, typer.Option("--head-dim", min=1, help="Head dimension d.", rich_help_panel=WORKLOAD)
]
DtypeOption = Annotated[
    DType, typer.Option("--dtype", help="Storage type of Q, K, V, O.", rich_help_panel=WORKLOAD)
]
CausalOption = Annotated[
    bool, typer.Option("--causal/--no-causal", help="Causal masking.", rich_help_panel=WORKLOAD)
]
BlockMOption = Annotated[
    int | None,
    typer.Option("--block-m", min=1, help="Br: query rows per tile.", rich_help_panel=SCHEDULE),
]
BlockNOption = Annotated[
    int | None,
    typer.Option("--block-n", min=1, help="Bc: key rows per tile.", rich_help_panel=SCHEDULE),
]
WarpsOption = Annotated[
    int | None, typer.Option("--warps", min=1, help="Warps per CTA.", rich_help_panel=SCHEDULE)
]
StagesOption = Annotated[
    int | None,
    typer.Option("--stages", min=1, help="Shared-memory K/V buffers.", rich_help_panel=SCHEDULE),
]
WarpSplitOption = Annotated[
    WarpSplit | None,
    typer.Option("--warp-split", help="How warps share a tile.", rich_help_panel=SCHEDULE),
]
ResidencyOption = Annotated[
    Residency | None,
    typer.Option("--residency", help="Where S/P, O, m, l live.", rich_help_panel=SCHEDULE),
]


@dataclass(frozen=True)
class WorkloadOptions:
    """The shared workload options as given on the command line (None: not given)."""

    algorithm: str = "flash2"
    profile: str = DEFAULT_PROFILE
    batch: int = 8
    heads: int = 32
    seq_len: int = 2048
    seq_len_k: int | None = None
    head_dim: int = 128
    dtype: str = "fp16"
    causal: bool = False
    block_m: int | None = None
    block_n: int | None = None
    warps: int | None = None
    stages: int | None = None
    warp_split: str | None = None
    residency: str | None = None

    def build(self, *, check: bool = True) -> Inputs:
        """:func:`build_inputs` of these options."""
        return build_inputs(**asdict(self), check=check)


#: Annotation of each shared option, in --help order.
_ANNOTATIONS: dict[str, Any] = {
    "algorithm": AlgorithmOption,
    "profile": ProfileOption,
    "batch": BatchOption,
    "heads": HeadsOption,
    "seq_len": SeqLenOption,
    "seq_len_k": SeqLenKOption,
    "head_dim": HeadDimOption,
    "dtype": DtypeOption,
    "causal": CausalOption,
    "block_m": BlockMOption,
    "block_n": BlockNOption,
    "warps": WarpsOption,
    "stages": StagesOption,
    "warp_split": WarpSplitOption,
    "residency": ResidencyOption,
}


def workload_options(func=None, *, overrides: dict[str, Any] | None = None):
    """Give a command the shared options; it receives them as its first parameter, a
    :class:`WorkloadOptions`, and keeps its own parameters after it.

    ``@workload_options(overrides={"algorithm": ...})`` replaces the annotation (help,
    default shown) of some options for one command.
    """
    if func is None:
        return functools.partial(workload_options, overrides=overrides)
    annotations = _ANNOTATIONS | (overrides or {})
    sig = inspect.signature(func, eval_str=True)
    own = list(sig.parameters.values())[1:]  # the first parameter receives WorkloadOptions
    shared = [
        inspect.Parameter(
            f.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=f.default,
            annotation=annotations[f.name],
        )
        for f in fields(WorkloadOptions)
    ]
    names = {f.name for f in fields(WorkloadOptions)}

    @functools.wraps(func)
    def command(**kwargs: Any) -> Any:
        shared_values = {k: kwargs.pop(k) for k in names}
        shared_values = {k: v.value if isinstance(v, Enum) else v for k, v in shared_values.items()}
        return func(WorkloadOptions(**shared_values), **kwargs)

    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own] + shared
    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    del command.__wrapped__  # Typer must see the new signature, not the wrapped one
    return command


def searched(option: str, help_text: str) -> Any:
    """A schedule option as ``gpusim tune`` takes it: left out, the tuner searches it."""
    return Annotated[
        int | None,
        typer.Option(option, min=1, help=f"{help_text} Pins it.", rich_help_panel=SEARCHED),
    ]


class Inputs(NamedTuple):
    """What a workload command runs on: the three inputs and the schedule fields defaulted."""

    workload: Workload
    schedule: Schedule
    profile: HardwareProfile
    filled: dict[str, Any]  # schedule fields not given, with the value the default rule chose


#: Model field -> command-line option, for error messages.
_OPTION_OF = {
    "seq_len_q": "--seq-len",
    "seq_len_k": "--seq-len-k",
    "head_dim": "--head-dim",
    "block_m": "--block-m",
    "block_n": "--block-n",
    "warp_split": "--warp-split",
}

SCHEDULE_FIELDS = ("block_m", "block_n", "warps", "stages", "warp_split", "residency")


def _model(cls, **kwargs):
    try:
        return cls(**kwargs)
    except ValidationError as e:
        text = validation_summary(e)
        field, sep, rest = text.partition(": ")
        if sep and field in cls.model_fields:
            text = f"{_OPTION_OF.get(field, '--' + field.replace('_', '-'))}: {rest}"
        raise GpusimError(text) from None


def build_inputs(
    algorithm: str = "flash2",
    profile: str = DEFAULT_PROFILE,
    batch: int = 8,
    heads: int = 32,
    seq_len: int = 2048,
    seq_len_k: int | None = None,
    head_dim: int = 128,
    dtype: str = "fp16",
    causal: bool = False,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
    warp_split: str | None = None,
    residency: str | None = None,
    *,
    check: bool = True,
) -> Inputs:
    """Validate the options into ``(Workload, Schedule, HardwareProfile, filled)``.

    Schedule fields left as None come from ``accepted_default_schedule(algorithm,
    workload, profile)`` (the default rule's choice, kept to what ``gpusim tune``
    accepts); ``filled`` maps each to the value used.
    With ``check``, a schedule that cannot run one CTA on the profile's SM is a
    one-line :class:`GpusimError` (what it needs, what the limit is).
    """
    from algorithms import get_algorithm  # late: algorithms imports gpusim
    from gpusim.tuning.default_choice import accepted_default_schedule

    alg = get_algorithm(algorithm)
    hw = load_profile(profile)
    workload = _model(
        Workload,
        batch=batch,
        heads=heads,
        seq_len_q=seq_len,
        seq_len_k=seq_len if seq_len_k is None else seq_len_k,
        head_dim=head_dim,
        dtype=dtype,
        causal=causal,
    )
    given = dict(
        block_m=block_m,
        block_n=block_n,
        warps=warps,
        stages=stages,
        warp_split=warp_split,
        residency=residency,
    )
    missing = [k for k, v in given.items() if v is None]
    filled: dict[str, Any] = {}
    if missing:
        try:
            base = accepted_default_schedule(algorithm, workload, hw)
        except GpusimError:
            if any(k in missing for k in ("block_m", "block_n", "warps", "stages")):
                raise
            base = Schedule(algorithm=algorithm)  # only the mapping is left: Schedule's defaults
        filled = {k: getattr(base, k) for k in missing}
    schedule = _model(Schedule, algorithm=algorithm, **(given | filled))
    alg.check(workload, schedule)
    if check:
        check_schedule_fits(workload, schedule, hw)
    return Inputs(workload, schedule, hw, filled)


def check_schedule_fits(workload: Workload, schedule: Schedule, profile: HardwareProfile) -> None:
    """Raise a one-line :class:`GpusimError` if a CTA of any of the kernels cannot run."""
    from algorithms import get_algorithm

    for kernel in get_algorithm(schedule.algorithm).kernels(workload, schedule):
        chip = kernel.on_chip()
        check_fits(profile, chip.smem_bytes, chip.threads, chip.regs_per_thread)
