"""What ``gpusim tune --pass fwd+bwd`` searches: the forward's best schedule with every
backward tile, as FlashAttention-2 runs a training step (each pass on tiles of its own).

The two passes share nothing but the L2's contents between them, so the best step is the
forward's best followed by the backward's best. The forward is tuned on its own first
(its space: the kernel's instances, and the inference schedules); the step's candidates are
that forward with each tile of the backward's space in the schedule's ``bwd_*`` fields, each
simulated as the whole step. A backward tile equal to the forward's leaves them unset.
"""

from __future__ import annotations

from gpusim.schedule import Schedule
from gpusim.tuning.space import SearchSpace, search_space
from gpusim.workload import Workload


def training_space(
    algorithm: str, workload: Workload, forward: Schedule, forward_key: str | None
) -> SearchSpace:
    """The step's candidates: ``forward`` (the forward's best; ``forward_key`` its compiled
    instance, whose registers the forward kernel keeps) with each backward tile."""
    back = search_space(algorithm, workload.model_copy(update={"pass_": "bwd"}))
    pairs = tuple(dict.fromkeys(forward.with_backward(b) for b in back.schedules))
    keys = dict.fromkeys(pairs, forward_key) if forward_key else {}
    source = f"the forward's best ({forward.label()}) x {back.source}"
    return SearchSpace(pairs, source, False, instance_keys=keys)
