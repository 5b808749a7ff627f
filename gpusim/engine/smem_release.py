"""One CTA's shared-memory-bound products beside another CTA's softmax.

The pipe model's step is two serial phases (:mod:`gpusim.engine.rates`): the products, as
long as the busier of the tensor pipe and the shared memory, then the softmax; each holds the
SM's schedulers for its length, so that co-resident CTAs do not overlap their phases (the
HMMA-then-softmax loops of data/h200/2026-11-30_calibration_issue run at 0.90-1.0 x the sum
even in CTAs that never synchronise). Where the shared memory is the busier, the loads are
what the products wait for, and the smem_overlap microbenchmark
(data/h200/2026-11-30_calibration_smem_overlap, no attention code) finds another CTA's
softmax running under them: ldmatrix and an independent softmax in two (four) CTAs of 4 warps
take 625 (620) cycles a warp-iteration against 559 + 280 (539 + 273) for the two alone. In the
engine's terms (the schedulers a lane of capacity 1, the shared memory a pipe) that is the
loads' time holding the schedulers for 1 - k of it, k = 0.38 (two CTAs) and 0.36 (four):
:func:`gpusim.calibrate.smem_overlap.release_entry` writes their mean as the profile's
``smem_sched_release_share``.

Here, where :data:`RELEASE` is on and the profile has that share, a products phase whose
shared-memory time s exceeds its tensor time t holds the schedulers for t + (s - t)(1 - k)
(:func:`phase_span`); the shared memory itself still takes s, so a CTA alone on its SM is
not faster. The SM core model's replay (which times the compiled loop's own overlap) and the
wgmma path do not take it.
"""

from __future__ import annotations

from gpusim.mechanism import Mechanism
from gpusim.profiles.schema import HardwareProfile

#: on since held-out sets 21 and 22 (an H100, fixed before measuring) adopted it by their
#: rule: new shapes 5.07 -> 4.34 % MAPE, the project's kernel on 8-72 SMs 8.14 -> 5.63 %
#: (reports/new_shapes_heldout21); ``following(False)`` times the model as it was before
RELEASE = Mechanism(True)


def following(on: bool):
    """The engine with (``on``) or without this mechanism, for a block."""
    return RELEASE.setting(on)


def release_share(profile: HardwareProfile) -> float:
    """The share k of a products phase's shared-memory excess that leaves the schedulers to
    other CTAs; 0 where the mechanism is off or the profile has no such measurement."""
    field = profile.smem_sched_release_share
    return field.value if RELEASE.on and field is not None else 0.0


def phase_span(times: dict[str, float], share: float) -> float:
    """How long a serial phase holds the schedulers, from its pipes' ``times``: the longest,
    less ``share`` of the shared memory's time beyond the tensor pipe's (products phases)."""
    span = max(times.values())
    smem, tensor = times.get("smem", 0.0), times.get("tensor", 0.0)
    if share > 0 and smem > tensor and span == smem:
        return smem - share * (smem - tensor)
    return span
