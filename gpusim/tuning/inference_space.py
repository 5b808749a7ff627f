"""flash2's inference schedules in the tuner's space: split-KV decoding and packed GQA heads.

- **Splits** (``kv_splits``, FlashDecoding) where they can matter: a tile whose grid
  leaves the SMs short of CTAs (:func:`split_counts`: decode shapes, a few query tiles x
  batch x heads against the SM count).
- **Packed heads** (``pack_gqa``) with grouped K/V heads, for tiles whose rows the group
  divides: one CTA per (batch, K/V head) tile, reading the group's K/V once.

The tensor-core kernel runs both (its SPLIT and PACK switches, with the combine kernel);
the fp32 kernel runs neither, nor grouped heads: ``SearchSpace.modelled`` says so for
every schedule that uses a field no CUDA kernel implements (:func:`modelled_note`).
"""

from __future__ import annotations

from gpusim.kernel_catalog import instances as ki
from gpusim.schedule import Schedule
from gpusim.tuning.space import SearchSpace, search_space
from gpusim.workload import Workload

#: Key splits the tuner tries (FlashAttention's own heuristic looks at up to 128).
SPLIT_CHOICES = (2, 4, 8, 16, 32, 64, 128)
#: Splits are tried for a tile whose grid has fewer CTAs than this many per SM ...
SPLIT_BELOW_CTAS_PER_SM = 2
#: ... up to this many CTAs per SM with the splits (more only adds combine work).
SPLIT_UP_TO_CTAS_PER_SM = 2


#: How the tuner's notes name what the kernel catalogue says is not implemented.
_WHAT = {
    "kv_splits": "split-KV (the split kernel is the tile instance's loop over a key slice, "
    "plus a combine kernel)",
    "heads_kv": "grouped K/V heads",
    "pack_gqa": "packed heads",
    "kv_order": "a backward K/V walk",
    "q_order": "first-first launch order",
}


def modelled_note(workload: Workload, schedule: Schedule) -> str | None:
    """What no CUDA kernel runs yet in ``schedule`` on ``workload`` (None: nothing), as the
    kernel catalogue says (:func:`gpusim.kernel_catalog.instances.unimplemented`)."""
    missing = [_WHAT[k] for k in ki.unimplemented(workload, schedule)]
    return f"modelled: no CUDA kernel for {', '.join(missing)} yet" if missing else None


def split_counts(workload: Workload, schedule: Schedule, sm_count: int) -> list[int]:
    """The ``kv_splits`` worth trying for ``schedule``'s tile on a GPU of ``sm_count`` SMs:
    none where its grid already has :data:`SPLIT_BELOW_CTAS_PER_SM` CTAs per SM; else each
    of :data:`SPLIT_CHOICES` up to the key blocks and to :data:`SPLIT_UP_TO_CTAS_PER_SM`."""
    group = workload.group_size if schedule.pack_gqa else 1
    queries = schedule.block_m // group
    grid_bh = workload.batch_heads // group
    ctas = -(-workload.seq_len_q // queries) * grid_bh
    if ctas >= SPLIT_BELOW_CTAS_PER_SM * sm_count:
        return []
    key_blocks = -(-workload.seq_len_k // schedule.block_n)
    return [
        n
        for n in SPLIT_CHOICES
        if n <= key_blocks and ctas * n <= SPLIT_UP_TO_CTAS_PER_SM * sm_count
    ]


def _variants(workload: Workload, tile: Schedule, sm_count: int) -> list[Schedule]:
    """``tile`` packed (where the group divides its rows), then each form's splits."""
    forms = [tile]
    g = workload.group_size
    if g > 1 and tile.block_m % g == 0:
        forms.append(tile.model_copy(update={"pack_gqa": True}))
    out = []
    for f in forms:
        out += [f] + [
            f.model_copy(update={"kv_splits": n}) for n in split_counts(workload, f, sm_count)
        ]
    return out


def with_inference_schedules(space: SearchSpace, workload: Workload, sm_count: int) -> SearchSpace:
    """``space`` with, after each tile the kernel has, its inference variants (a tile with
    no instance has none: they would be rejected alike), and every modelled schedule noted."""
    schedules: list[Schedule] = []
    keys, modelled = dict(space.instance_keys), {}
    for tile in space.schedules:
        forms = [tile] if tile in space.unsupported else _variants(workload, tile, sm_count)
        for s in forms:
            schedules.append(s)
            note = modelled_note(workload, s)
            if note is not None and s not in space.unsupported:
                modelled[s] = note
            if s is not tile and tile in space.instance_keys:
                keys[s] = space.instance_keys[tile]  # the split kernel's registers
    source = space.source
    splits = sorted({s.kv_splits for s in schedules if s.kv_splits != 1})
    if splits:
        source += f"; kv_splits {'/'.join(map(str, splits))}"
    if any(s.pack_gqa for s in schedules):
        source += "; packed GQA heads"
    return SearchSpace(
        tuple(schedules), source, space.kernel_instances, dict(space.unsupported), keys, modelled
    )


def tuning_space(algorithm: str, workload: Workload, sm_count: int) -> SearchSpace:
    """What ``gpusim tune`` searches: :func:`~gpusim.tuning.space.search_space`, and for
    flash2 its inference schedules on a GPU of ``sm_count`` SMs."""
    space = search_space(algorithm, workload)
    if algorithm != "flash2" or workload.backward:  # splits and packing are the forward's
        return space
    return with_inference_schedules(space, workload, sm_count)
