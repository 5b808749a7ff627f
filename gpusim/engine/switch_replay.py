"""Which compiled loop the SM core model replays for a kernel, long-context switches included.

The core model replays the committed steady step of the compiled instance a kernel
description names (``Kernel.compiled_kernel``). The tensor-core kernel's long-context
switches (split-KV, the backward K/V walk, first-first launch, grouped and packed K/V heads)
are template parameters of the same kernel: a switch instance replays its own compiled step
where the committed sample of switch instances has it (``data/sm90/2026-12-04_switch_loops``,
:mod:`gpusim.kernels.switch_loops`), else its base instance's, and says so in the kernel's
``timing_source``. Judged on held-out set 10 (``reports/switch_replay_heldout10``) against
their kernels timed by the pipe model, as before.
"""

from __future__ import annotations

from algorithms.base import Kernel
from gpusim.data.layout import REPO_ROOT, SWITCH_LOOPS
from gpusim.engine.rates import Rates
from gpusim.kernel_catalog.loop_counts import switch_loop_paths
from gpusim.mechanism import Mechanism

#: whether the core model replays the long-context switch instances (held-out set 10 judged
#: it against their kernels timed by the pipe model: :func:`replaying_switches`)
REPLAY = Mechanism(True)


def replaying_switches(on: bool):
    """The engine with (``on``) or without the switch instances' replay, for the held-out set
    that judges it and the tests that recompute both."""
    return REPLAY.setting(on)


def instance_key(kernel: Kernel, rates: Rates) -> str | None:
    """The key of the compiled instance (gpusim/kernel_catalog) whose committed loop the core
    model replays for ``kernel``, where its products run on the tensor cores; None where it
    names no compiled kernel. A long-context switch instance (split-KV, backward walk,
    first-first, grouped or packed heads) replays its own loop where the sample of switch
    instances has it, else its base instance's (:func:`switch_source` says so)."""
    keys = _replayed(kernel) if rates.mma_pipe == "tensor" else None
    if keys is None:
        return None
    own, base = keys
    # Only the small sample is asked: the grid's loop table is read (0.3 s a process) only
    # when a core-model profile asks for its cycles.
    return own if own in switch_loop_paths() else base


def switch_source(kernel: Kernel) -> str | None:
    """What the core model replays for a long-context switch instance whose own loop is not
    in the sample (None otherwise): its base instance's committed loop, said in the
    kernel's ``timing_source``."""
    keys = _replayed(kernel)
    if keys is None or keys[0] == keys[1] or keys[0] in switch_loop_paths():
        return None
    own, base = keys
    return (
        f"committed loop of {base}, the base instance of {own} (no loop of its own is "
        f"committed; the sampled switch instances' steps replay within -28..+27 %, mean "
        f"absolute 2.5 %, of their bases': {SWITCH_LOOPS.relative_to(REPO_ROOT)})"
    )


def _replayed(kernel: Kernel) -> tuple[str, str] | None:
    """The instance key of the compiled kernel ``kernel`` is, and its base (grid) instance's
    (the same for a grid instance); None where it names none, or is a switch instance and
    the replay is off."""
    from gpusim.kernel_catalog.instances import KernelInstance

    ref = kernel.compiled_kernel()
    if ref is None or (ref.switches and not REPLAY.on):
        return None
    args = (ref.head_dim, ref.block_m, ref.block_n, ref.warps, ref.stages)
    inst = KernelInstance(ref.variant, ref.dtype, *args, **dict.fromkeys(ref.switches, True))
    return inst.key, inst.base().key


def pipe_note(profile, kernel) -> str | None:
    """One line where a core-model profile times ``kernel`` by the pipe model (no committed
    SASS loop for it); None for a profile without the core model."""
    if profile.sass_core_cycles is None:
        return None
    return (
        f"{kernel.name}: {profile.name} replays only the committed SASS loops "
        "(gpusim/kernel_catalog) and has none for this kernel and launch shape; "
        "its steps are timed by the pipe model"
    )
