"""A binary's code fetched once per CTA, at the instruction cache's cost for code that long.

A warp runs a step's loop body many times, from the instruction cache after the first; the
code it runs once per CTA (set-up, the masking steps a compiler peels ahead of the loop, the
epilogue) it fetches every time a CTA starts, and code longer than the cache keeps evicting
itself, all the more when the CTAs sharing an SM run different parts of it. PyTorch's uneven
causal FlashAttention-2 forward is such a kernel (7408-8024 instructions, 116-125 KiB of
SASS; `reports/torch_short_causal_look`: on short grids half its cycles between instructions
wait on instruction fetch).

The cost comes from ``python -m gpusim.calibrate.icache`` (straight-line code of a given
length run once per CTA, with the SM's CTAs entering it at different places, against the
same instructions as a cached loop; no attention code): the share ``s`` of issue slots lost
to fetch at each code length, the profile's ``icache_fetch_share_by_code_bytes``. A kernel
whose schedule gives its ``code_bytes`` (``L`` instructions of 16 bytes) charges each warp
``L s / (1 - s)`` warp-instructions more once per CTA (the ``L`` instructions take
``L / (1 - s)`` issue slots), on the issue lane with its other per-CTA work
(``cta_issue_per_warp``). Where the profile has no such curve the kernel says so in its
``timing_note`` and nothing is charged.
"""

from __future__ import annotations

from gpusim.curves import share_at

#: bytes of one SASS instruction (Volta and later)
INSTRUCTION_BYTES = 16
#: a share this close to 1 would make the cost unbounded: the curve stays below it
MAX_SHARE = 0.95


def fetch_issue_per_warp(code_bytes: int, curve) -> float:
    """Warp-instructions a warp issues more, once per CTA, to fetch ``code_bytes`` of code
    (``curve``: ``[[code bytes, share of issue slots lost], ...]``)."""
    share = min(share_at(curve, float(code_bytes)), MAX_SHARE)
    return code_bytes / INSTRUCTION_BYTES * share / (1.0 - share)


def no_curve_note(profile_name: str, code_bytes: int) -> str:
    return (
        f"code_bytes {code_bytes} given, but {profile_name} has no instruction-cache curve "
        "(icache_fetch_share_by_code_bytes): its fetch is not charged"
    )
