"""The options shared by the workload commands, and turning them into model inputs.

A command takes them all by decorating itself with :func:`workload_options`::

    @app.command()
    @workload_options
    def count(opts: WorkloadOptions, json_out: JsonOption = False) -> None:
        inputs = opts.build()        # Workload, Schedule, HardwareProfile, defaults used

Each option is also a reusable ``Annotated`` alias (``BatchOption`` ...). Turning the values
into model inputs is the API layer's :func:`gpusim.api.inputs.build_inputs` (block sizes
left out come from ``gpusim.tuning.default_choice.accepted_default_schedule``;
``Inputs.filled`` says which).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import asdict, dataclass, fields
from enum import Enum
from typing import Annotated, Any

import typer

from gpusim.api.inputs import SCHEDULE_FIELDS, Inputs, build_inputs, check_schedule_fits
from gpusim.cli.bwd_options import BWD_ANNOTATIONS
from gpusim.dtypes import USER_DTYPES
from gpusim.profiles import DEFAULT_PROFILE, list_profiles

DType = Enum("DType", {d: d for d in USER_DTYPES}, type=str)  # type: ignore[misc]
WarpSplit = Enum("WarpSplit", {s: s for s in ("split-q", "split-k")}, type=str)  # type: ignore[misc]
Residency = Enum("Residency", {s: s for s in ("registers", "smem")}, type=str)  # type: ignore[misc]
KvOrder = Enum("KvOrder", {s: s for s in ("forward", "backward")}, type=str)  # type: ignore[misc]
QOrder = Enum("QOrder", {s: s for s in ("last-first", "first-first")}, type=str)  # type: ignore[misc]

WORKLOAD = "Workload"
SCHEDULE = "Schedule (left out: the default rule's choice among those gpusim tune accepts)"
#: ``gpusim tune``'s schedule panel: what is left out is searched, not defaulted.
SEARCHED = "Schedule (left out: searched; given: pinned)"


def algorithm_names() -> str:
    """The algorithm names, comma-separated, for help texts."""
    from algorithms import ALGORITHMS  # late: algorithms imports gpusim

    return ", ".join(ALGORITHMS)


def check_algorithm(name: str | None) -> str | None:
    """``name`` if it is an algorithm, else a one-line error suggesting the closest (an option
    callback, so the message comes before anything else runs)."""
    from gpusim.api.names import algorithm_named

    if name is not None:
        algorithm_named(name)
    return name


def check_profile(name: str | None) -> str | None:
    """``name`` if it is a shipped profile or names a file, else a one-line error."""
    from gpusim.api.names import check_profile_name

    if name is not None:
        check_profile_name(name)
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
Pass = Enum("Pass", {p: p for p in ("fwd", "bwd", "fwd+bwd")}, type=str)  # type: ignore[misc]
PassOption = Annotated[
    Pass,
    typer.Option(
        "--pass",
        help="fwd (inference), bwd (dQ, dK, dV from the forward's O and log-sum-exp) or "
        "fwd+bwd (a training step's attention); flash2.",
        rich_help_panel=WORKLOAD,
    ),
]
HeadsKvOption = Annotated[
    int | None,
    typer.Option(
        "--heads-kv",
        min=1,
        help="K/V heads (GQA/MQA; default: --heads); --heads must be a multiple of it.",
        rich_help_panel=WORKLOAD,
    ),
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

KvSplitsOption = Annotated[
    int | None,
    typer.Option(
        "--kv-splits",
        min=1,
        help="Split each query block's keys over N CTAs and combine (flash2; default 1).",
        rich_help_panel=SCHEDULE,
    ),
]
KvOrderOption = Annotated[
    KvOrder | None,
    typer.Option(
        "--kv-order",
        help="Direction a CTA walks its K/V blocks (flash2; default forward).",
        rich_help_panel=SCHEDULE,
    ),
]
QOrderOption = Annotated[
    QOrder | None,
    typer.Option(
        "--q-order",
        help="Which query blocks launch first (flash2; default last-first).",
        rich_help_panel=SCHEDULE,
    ),
]
PackGqaOption = Annotated[
    bool | None,
    typer.Option(
        "--pack-gqa/--no-pack-gqa",
        help="One CTA per K/V head group, its heads' queries in the tile's rows (flash2). "
        "Left out: on for an fp16/bf16 forward decode step (--seq-len 1) with --heads-kv "
        "below --heads, as FlashAttention-2 does; off otherwise.",
        rich_help_panel=SCHEDULE,
        show_default=False,
    ),
]
MmaOption = Annotated[
    str | None,
    typer.Option(
        "--mma",
        help="Product instruction: mma (also spelled mma.sync: m16n8k16), wgmma or ffma "
        "(default: the project's kernel, mma for fp16/bf16, ffma for fp32).",
        rich_help_panel=SCHEDULE,
    ),
]
TileCopyOption = Annotated[
    str | None,
    typer.Option(
        "--tile-copy",
        help="How tiles arrive in shared memory: cp.async (default), tma or plain.",
        rich_help_panel=SCHEDULE,
    ),
]
OStoreOption = Annotated[
    str | None,
    typer.Option(
        "--o-store",
        help="How the output block is written: staged (16-byte or TMA stores through shared "
        "memory) or fragments (4-byte stores from the accumulators); default: the project's "
        "kernel of the class (fragments for wgmma, staged otherwise).",
        rich_help_panel=SCHEDULE,
    ),
]
ProducerWarpsOption = Annotated[
    int | None,
    typer.Option(
        "--producer-warps",
        min=0,
        help="Warp specialization: warps that only copy tiles (default 0).",
        rich_help_panel=SCHEDULE,
    ),
]
InstructionCountsOption = Annotated[
    str | None,
    typer.Option(
        "--instruction-counts",
        help="Per-step instruction counts: formulas (of the tiles and class) or sass-fit (the "
        "fit to the project's compiled loops; the default for those kernels); with --pass bwd, "
        "compiled (the default: the formulas as nvcc compiles FlashAttention-2's backward) or "
        "formulas (the source's arithmetic).",
        rich_help_panel=SCHEDULE,
    ),
]

SmCountOption = Annotated[
    int | None,
    typer.Option(
        "--sm-count",
        help="Run on N of the profile's SMs (a green-context partition, or a smaller GPU of "
        "the family): memory system, L2 and clocks unchanged; 1 to the profile's count.",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class WorkloadOptions:
    """The shared workload options as given on the command line (None: not given)."""

    algorithm: str = "flash2"
    profile: str = DEFAULT_PROFILE
    batch: int = 8
    heads: int = 32
    heads_kv: int | None = None
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
    kv_splits: int | None = None
    kv_order: str | None = None
    q_order: str | None = None
    pack_gqa: bool | None = None
    mma: str | None = None
    tile_copy: str | None = None
    producer_warps: int | None = None
    instruction_counts: str | None = None
    o_store: str | None = None
    pass_: str = "fwd"
    bwd_block_m: int | None = None
    bwd_block_n: int | None = None
    bwd_warps: int | None = None
    bwd_stages: int | None = None

    def build(self, *, check: bool = True, sm_count: int | None = None) -> Inputs:
        """:func:`build_inputs` of these options (on ``sm_count`` SMs when given)."""
        return build_inputs(**asdict(self), check=check, sm_count=sm_count)


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
    "heads_kv": HeadsKvOption,
    "kv_splits": KvSplitsOption,
    "kv_order": KvOrderOption,
    "q_order": QOrderOption,
    "pack_gqa": PackGqaOption,
    "mma": MmaOption,
    "tile_copy": TileCopyOption,
    "producer_warps": ProducerWarpsOption,
    "instruction_counts": InstructionCountsOption,
    "o_store": OStoreOption,
    "pass_": PassOption,
    **BWD_ANNOTATIONS,
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


__all__ = [
    "SCHEDULE_FIELDS",
    "Inputs",
    "WorkloadOptions",
    "build_inputs",
    "check_schedule_fits",
    "workload_options",
]


FootprintsOption = Annotated[
    str,
    typer.Option(
        "--footprints",
        help="Registers per thread from the compiled kernel instances (ptxas, where the offline "
        "build recorded them; spilling instances are rejected) or the model's estimate: "
        "compiled or estimate.",
    ),
]
