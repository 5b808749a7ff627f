"""Profile fields by name: which numbers of a hardware profile a sweep may vary, and the
profile with some of them changed, validated by the profile schema.

A variable field is a top-level :class:`~gpusim.profiles.schema.Sourced` number or
fraction (``sm_count``, ``l2_bytes``, ``dram_bandwidth_bytes_per_s`` ...) or one input type
of a tensor-core rate (``mma_sync_flops_per_clk_per_sm.bf16``). Shared memory is coupled:
``smem_per_block_bytes`` (what one CTA may use) and ``smem_per_sm_bytes`` each set the other
as ``gpusim tune --sram-kib`` does (:func:`gpusim.tuning.sram.with_sram_bytes`: the SM holds
exactly one CTA of the per-block size plus the driver's reservation), since the schema
refuses a per-block size larger than the SM's and varying one alone would leave the other
at the base GPU's value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import cache
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from gpusim.api.names import closest
from gpusim.errors import GpusimError
from gpusim.explore.coupled import follow
from gpusim.profiles.loader import validation_summary
from gpusim.profiles.schema import DtypeRates, HardwareProfile, Sourced, SourcedFraction
from gpusim.tuning.sram import with_sram_bytes

#: The shared-memory fields that set each other (see the module docstring).
SMEM_PER_SM = "smem_per_sm_bytes"
SMEM_PER_BLOCK = "smem_per_block_bytes"
SMEM_COUPLED = (SMEM_PER_SM, SMEM_PER_BLOCK)

Number = int | float


def _sourced_type(annotation: Any) -> type | None:
    """``int`` or ``float`` for a Sourced / SourcedFraction annotation (optional or not)."""
    for arg in (annotation, *get_args(annotation)):
        if isinstance(arg, type) and issubclass(arg, SourcedFraction):
            return float
        if isinstance(arg, type) and issubclass(arg, Sourced):
            args = arg.__pydantic_generic_metadata__["args"]
            return args[0] if args else float
    return None


def _is_rates(annotation: Any) -> bool:
    return any(
        isinstance(a, type) and issubclass(a, DtypeRates)
        for a in (annotation, *get_args(annotation))
    )


@cache
def variable_fields() -> dict[str, type]:
    """Every profile field a sweep may vary, by name, with its number type (int or float)."""
    out: dict[str, type] = {}
    for name, info in HardwareProfile.model_fields.items():
        kind = _sourced_type(info.annotation)
        if kind is not None:
            out[name] = kind
        elif _is_rates(info.annotation):
            for sub in DtypeRates.model_fields:
                out[f"{name}.{sub}"] = float
    return out


def check_field_name(name: str) -> type:
    """The number type of variable field ``name``; a one-line error with the closest names."""
    known = variable_fields()
    if name not in known:
        near = closest(name, known)
        hint = f"did you mean {' or '.join(repr(n) for n in near)}? " if near else ""
        raise GpusimError(
            f"vary: {name!r} is not a numeric profile field; {hint}`gpusim explore --fields` "
            "lists them"
        )
    return known[name]


def coerce_value(name: str, value: Any) -> Number:
    """``value`` as field ``name``'s number type; a one-line error for anything else."""
    kind = check_field_name(name)
    if isinstance(value, str):  # YAML 1.1 reads 1e9 (no dot) as a string
        try:
            value = float(value)
        except ValueError:
            raise GpusimError(f"vary.{name}: {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise GpusimError(f"vary.{name}: {value!r} is not a number")
    if not math.isfinite(value):
        raise GpusimError(f"vary.{name}: {value} is not a finite number")
    if kind is int:
        if value != int(value):
            raise GpusimError(f"vary.{name}: {value:g} is not a whole number (the field is int)")
        return int(value)
    return float(value)


def _show(value: Number) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _with_smem(base: HardwareProfile, name: str, value: int) -> HardwareProfile:
    """``base`` with one of the coupled shared-memory sizes set, the other following it."""
    if name == SMEM_PER_BLOCK:
        if value <= 0:
            raise GpusimError(f"vary.{name}: {value} must be positive")
        return with_sram_bytes(base, value)
    reserved = base.smem_reserved_per_block_bytes.value
    if value <= reserved:
        raise GpusimError(
            f"vary.{name}: {value} B does not hold one CTA beside the {reserved} B per-CTA "
            "reservation"
        )
    varied = with_sram_bytes(base, value - reserved)
    if varied.smem_per_sm_bytes.value != value:
        unit = base.smem_alloc_unit_bytes.value
        raise GpusimError(
            f"vary.{name}: {value} B is not the {reserved} B per-CTA reservation plus whole "
            f"{unit} B allocation units ({value} - {reserved} is not a multiple of {unit})"
        )
    return varied


def varied_profile(base: HardwareProfile, params: Mapping[str, Number]) -> HardwareProfile:
    """``base`` with each field of ``params`` set, validated by the profile schema.

    Each varied number's source says so. A value (or a combination) the schema refuses is a
    one-line :class:`GpusimError` naming the field and what the schema allows.
    """
    return varied_profile_with_notes(base, params)[0]


def varied_profile_with_notes(
    base: HardwareProfile, params: Mapping[str, Number]
) -> tuple[HardwareProfile, list[str]]:
    """:func:`varied_profile` and one line per number derived from the varied ones
    (:mod:`gpusim.explore.coupled`: the L2 loss curve follows ``l2_bytes``, the tensor-load
    clock follows ``sm_clock_hz``)."""
    if all(k in params for k in SMEM_COUPLED):
        raise GpusimError(
            f"vary: give one of {SMEM_PER_SM} or {SMEM_PER_BLOCK}, not both (each sets the other)"
        )
    profile = base
    for name in SMEM_COUPLED:
        if name in params:
            profile = _with_smem(base, name, int(params[name]))
    data = profile.model_dump(mode="json")
    for name, value in params.items():
        if name in SMEM_COUPLED:
            continue
        top, _, sub = name.partition(".")
        source = f"gpusim explore: varied ({base.name}'s value replaced)"
        entry = {"value": value, "source": source}
        if sub:
            if data.get(top) is None:
                raise GpusimError(
                    f"vary.{name}: {base.name} has no {top}, so one input type cannot be set"
                )
            data[top][sub] = entry
        else:
            data[top] = entry
    notes = follow(base, data, params)
    try:
        return HardwareProfile.model_validate(data), notes
    except ValidationError as e:
        shown = ", ".join(f"{k} = {_show(v)}" for k, v in params.items())
        raise GpusimError(
            f"vary ({shown}) refused by the profile schema: {validation_summary(e)}"
        ) from None


def describe_fields(base: HardwareProfile) -> list[dict[str, Any]]:
    """Each variable field with its type, ``base``'s value and the schema's plausible range."""
    from gpusim.profiles.schema import PLAUSIBLE

    rows = []
    for name, kind in variable_fields().items():
        top, _, sub = name.partition(".")
        field: Any = getattr(base, top)
        if sub and isinstance(field, BaseModel):
            field = getattr(field, sub)
        lo, hi = PLAUSIBLE.get(top, (None, None))
        rows.append(
            {
                "field": name,
                "type": kind.__name__,
                "value": None if field is None else field.value,
                "plausible_min": lo,
                "plausible_max": hi,
            }
        )
    return rows
