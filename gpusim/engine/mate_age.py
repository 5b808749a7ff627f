"""The older SM-mate's head start in a grid's first wave.

CTAs that start together on one SM do not share it evenly: the warp schedulers favour the warps
of the CTA that arrived first, so the older mate finishes first and the younger later. On an
H100 the cta_scatter loops with mma.sync products (``python -m gpusim.calibrate.mate_gap``, no
attention code) measure it as the younger mate's duration over the older's in the first wave,
by the products' warp tile (rows per warp: products per ldmatrix). Its consequence is where the
next wave's CTAs land: with every SM's older mate ending first, the next CTAs go one to an SM,
not two to the SMs whose slots happen to free together (held-out set 31's masked grids).

The engine keeps its even processor sharing and gives the first wave's CTAs of a fully occupied
SM work in the measured proportion instead: mate ``i`` (in launch order) of ``k`` gets
``k r^i / sum_j r^j`` of its work, where ``r`` is the measured ratio, so that the SM's total work
is unchanged, the older mate ends ``r`` times sooner than the younger while both share it, and
the younger's excess is worked off once a new CTA takes the older's slot. Later waves keep the
stagger this leaves. Only what was measured applies: the profile's ``sm_mate_first_wave_ratio``
by CTAs per SM, for the forward step of mma.sync kernels (``mma``), at the measured rows per
warp (between two of them, interpolated). Anything else runs with even shares and the output
says why (:func:`first_wave_ratio`'s note).
"""

from __future__ import annotations

from gpusim.curves import share_at
from gpusim.profiles.schema import HardwareProfile

FIELD = "sm_mate_first_wave_ratio"


def first_wave_ratio(
    profile: HardwareProfile, product: str, rows_per_warp: float, ctas_per_sm: int, forward: bool
) -> tuple[float, str | None]:
    """The younger/older duration ratio this kernel's first wave gets (1: even shares), and a
    note when the profile measured the ratio but not for this kernel (None otherwise)."""
    table = getattr(profile, FIELD)
    if table is None or ctas_per_sm < 2:
        return 1.0, None
    rows = table.value.get(str(ctas_per_sm))
    why = None
    if product != "mma" or not forward:
        why = "measured for the forward step of mma.sync kernels only"
    elif rows is None:
        why = f"not measured at {ctas_per_sm} CTAs per SM"
    elif not rows[0][0] <= rows_per_warp <= rows[-1][0]:
        why = f"measured at {rows[0][0]}-{rows[-1][0]} rows per warp, not {rows_per_warp:g}"
    if why is not None:
        return 1.0, f"{FIELD}: {why}; the first wave's SM-mates share evenly"
    return share_at([(float(n), r) for n, r in rows], rows_per_warp), None


def rank_scales(ratio: float, mates: int) -> list[float]:
    """Work scales of ``mates`` CTAs that start together on an SM, oldest first."""
    weights = [ratio**i for i in range(mates)]
    total = sum(weights)
    return [mates * w / total for w in weights]


def kernel_ratio(profile: HardwareProfile, kernel, ctas_per_sm: int) -> tuple[float, str | None]:
    """:func:`first_wave_ratio` for an engine kernel (its schedule's class and warp tile)."""
    from algorithms.q_outer import QOuterKernel
    from gpusim.kernel_class import resolve_class

    s = kernel.schedule
    product = resolve_class(s, kernel.workload.dtype).product
    # FlashAttention-2's forward loop (whole or one key slice): a warp's rows against each tile
    forward = isinstance(kernel, QOuterKernel) and not kernel.backward_step()
    return first_wave_ratio(profile, product, s.block_m / s.warps, ctas_per_sm, forward)
