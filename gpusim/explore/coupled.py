"""Profile numbers the model derives from a varied field, so that varying it does what it says.

Two fields of a calibrated profile are not read by the engine as they stand once a sweep
changes them, and each would be a silent no-op without this module:

- ``l2_bytes``: with a measured ``l2_loss_by_depth`` the engine's L2 follows the curve (the
  share of a set the L2 has lost at each depth, depth = bytes brought in since the set was
  last touched) and never reads ``l2_bytes``. The curve was measured at the base profile's
  size. A replacement policy of the same design on an L2 of C bytes loses a set as a function
  of depth / C (a set-associative, hashed cache: the sets and ways scale with the capacity),
  so the varied curve is the measured one with its depths scaled by C / C_measured, the rule
  ``gpusim.profiles.derive`` uses to put the H200's curve on the H100's L2. Without a curve
  the L2 is an LRU of ``l2_bytes`` already.
- ``sm_clock_hz``: a profile with ``sm_clock_tensor_load_hz`` runs tensor-core kernels at that
  clock (the H200 drops to 1.81 GHz under mma.sync load against 1.98 GHz), so varying
  ``sm_clock_hz`` alone would leave flash2 fp16/bf16 unchanged. The drop is taken as a ratio
  of the clock: the tensor-load clock scales with ``sm_clock_hz`` unless the spec varies it
  too. A profile with ``sm_clock_stream_load_hz`` (the clock under an attention step's whole
  load, which the engine prefers) has it scaled the same way, by the ratio of the varied
  tensor-load clock where the spec varies that one, else of ``sm_clock_hz``, unless the spec
  varies it too.

:func:`follow` changes the profile's JSON in place and returns one line per derivation, which
the sweep keeps with the point (``notes``), so every result says what model it used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpusim.profiles.schema import HardwareProfile

L2_BYTES = "l2_bytes"
SM_CLOCK = "sm_clock_hz"
SM_CLOCK_TENSOR = "sm_clock_tensor_load_hz"
SM_CLOCK_STREAM = "sm_clock_stream_load_hz"


def _mib(nbytes: float) -> str:
    return f"{nbytes / 2**20:g} MiB"


def _follow_l2(base: HardwareProfile, data: dict[str, Any], l2_bytes: int) -> str | None:
    curve = base.l2_loss_by_depth
    measured = base.l2_bytes.value
    if curve is None:
        return (
            f"l2_bytes {_mib(l2_bytes)}: the L2 is an LRU of l2_bytes "
            f"({base.name} has no loss curve)"
        )
    if l2_bytes == measured:
        return None
    scale = l2_bytes / measured
    data["l2_loss_by_depth"] = {
        "value": [[depth * scale, share] for depth, share in curve.value],
        "source": f"gpusim explore: {base.name}'s curve with its depths scaled by {scale:.6g}",
        "note": "loss as a function of depth / L2 size (gpusim/explore/coupled.py)",
    }
    return (
        f"l2_bytes {_mib(l2_bytes)}: {base.name}'s L2 loss curve (measured at {_mib(measured)}) "
        f"with its depths scaled by {scale:.4g}, loss taken as a function of depth / L2 size"
    )


#: clocks a profile gives as a drop from another clock: (field, its name in the notes, the
#: load it is measured under, the varied fields it follows, first found first)
DERIVED_CLOCKS = (
    (SM_CLOCK_TENSOR, "tensor-load clock", "tensor load", (SM_CLOCK,)),
    (SM_CLOCK_STREAM, "stream-load clock", "an attention step's load", (SM_CLOCK_TENSOR, SM_CLOCK)),
)


def _follow_clock(
    base: HardwareProfile,
    data: dict[str, Any],
    params: Mapping[str, Any],
    clock: tuple[str, str, str, tuple[str, ...]],
) -> str | None:
    """Scale ``clock`` (a :data:`DERIVED_CLOCKS` entry) by the ratio of the first clock it
    follows that the spec varies, unless the spec varies it too."""
    field, name, load, parents = clock
    own = getattr(base, field)
    if own is None or field in params:
        return None
    by = next((p for p in parents if p in params and getattr(base, p) is not None), None)
    if by is None:
        return None
    old, new = getattr(base, by).value, float(params[by])
    if new == old:
        return None
    scale = new / old
    data[field] = {
        "value": own.value * scale,
        "source": f"gpusim explore: {base.name}'s value times the varied {by}'s ratio",
        "note": f"the clock drop under {load} taken as a ratio (gpusim/explore/coupled.py)",
    }
    return (
        f"{by} {new:.4g} Hz: the {name} ({base.name}: {own.value:.4g} Hz) scaled by the "
        f"same {scale:.4g}"
    )


def follow(base: HardwareProfile, data: dict[str, Any], params: Mapping[str, Any]) -> list[str]:
    """Set in ``data`` (``base`` dumped, ``params`` set) the numbers derived from ``params``;
    one line per derivation."""
    notes = []
    if L2_BYTES in params:
        notes.append(_follow_l2(base, data, int(params[L2_BYTES])))
    notes += [_follow_clock(base, data, params, clock) for clock in DERIVED_CLOCKS]
    return [n for n in notes if n]
