"""A held-out set for packed GQA decoding: the project's kernel with ``pack_gqa`` and without.

    python -m gpusim.validation.pack_gqa_set --write PATH   # the manifest (JSON)
    python -m gpusim.validation.pack_gqa_set --list

``pack_gqa`` puts the queries of a GQA group's heads into the rows of one tile
(:mod:`algorithms.q_outer`), so that a decode step fills ``group`` rows of one CTA and
reads the group's K and V once, instead of one row in each of ``group`` CTAs that read
the same K/V. The model had it before any CUDA kernel did; ``flash2_tc.cu``'s ``PACK``
switch now runs it. The shapes are none of the long-context sweep's or its held-out sets'
(their grouped decode runs were B8 with 32k keys): decode (Nq = 1) at other batches, key
lengths, groups of 4, 8 and 16 (MQA), with and without split keys, and a short causal
query block (Nq = 16, speculative decoding); each on the project's kernel packed and
unpacked (the decode tile, 64 x 64, 4 warps, 2 stages), and PyTorch's flash backend on
the decode ones (it packs a decode step's group itself). Every run is timed; none is
counted by Nsight Compute.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

from gpusim.validation.long_context_configs import (
    DECODE_TILE,
    H200_SMS,
    LongContextConfig,
    _sched,
    set_command,
    set_workload,
)
from gpusim.validation.torch_flash_schedule import schedule_before_set43

#: (batch, heads, K/V heads, queries, keys, causal, kv_splits)
SHAPES = (
    (1, 32, 8, 1, 65536, False, 8),
    (4, 32, 4, 1, 16384, False, 2),
    (32, 32, 8, 1, 4096, False, 1),
    (16, 40, 10, 1, 12288, False, 1),
    (4, 16, 1, 1, 32768, False, 4),
    (2, 32, 8, 16, 24576, True, 4),
)
RULE = (
    "no mechanism is chosen on this set: it judges the model's pack_gqa as it was before "
    "the CUDA kernel ran it; reported: runtime MAPE, mean signed error and the worst run of "
    "the packed runs, of the unpacked runs and of PyTorch's, beside the roofline and the "
    "constant-efficiency baselines; and per workload the measured speed-up of packing "
    "(unpacked over packed time) against the predicted one; the issue's project-kernel "
    "target is 10 % MAPE"
)


def pack_gqa_configs() -> list[LongContextConfig]:
    """The set in run order: per shape the project's kernel unpacked, then packed, then
    PyTorch's (decode shapes)."""
    out: list[LongContextConfig] = []
    for b, h, hkv, nq, nk, causal, splits in SHAPES:
        w = set_workload(b, h, hkv, nq, nk, causal)
        for pack in (False, True):
            s = _sched(DECODE_TILE, kv_splits=splits, pack_gqa=pack)
            out.append(LongContextConfig("project", "gqa_decode", w, s))
        if nq == 1:
            out.append(
                LongContextConfig("torch", "gqa_decode", w, schedule_before_set43(w, H200_SMS))
            )
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), or list the configurations."""
    what = (
        "issue 18 packed GQA decoding held-out set (the CUDA kernel's PACK switch against the "
        "model's pack_gqa): configurations fixed before they are measured "
        "(python -m gpusim.validation.pack_gqa_set --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_command("pack_gqa_set", doc, pack_gqa_configs(), what, RULE, argv)


if __name__ == "__main__":
    raise SystemExit(main())
