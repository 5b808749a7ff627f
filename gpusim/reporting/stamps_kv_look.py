"""A look, not a judgement: the K/V trace driven by the GPU's own CTA timing.

    python -m gpusim.reporting.stamps_kv_look --card h100|h200 STAMPS.json [...] > table.txt

The K/V trace under-counts the DRAM bytes of unmasked d128 prefills at 64k-128k tokens by
13-37 % (long-context sets 5-7) and over-counts d64 ones. Two things could be wrong: when
the CTAs run (the SM-mates' drift the trace takes from kv_walk_mma), or what the L2 keeps
(its loss by reuse distance, the shared aging). The kernel's CTA stamps
(:mod:`gpusim.validation.cta_stamps`: each CTA's SM, start and end) separate them: the same
trace replayed with the measured starts and ends (progress linear within a CTA) leaves only
the L2's side. Also printed: how far apart an SM's two CTAs start, as a share of a CTA's
life (0: in step; 0.5: half a life apart, the even spacing an older-first priority ends in),
and the younger over the older mate's life. Attention-kernel timings: they feed no profile.
"""

from __future__ import annotations

import argparse
import json
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np

from gpusim.api import simulate
from gpusim.data.layout import REPO_ROOT
from gpusim.engine.kv_trace_l2 import kv_trace_for, kv_trace_of_record, tile_steps
from gpusim.engine.rates import rates_for
from gpusim.profiles.loader import load_profile
from gpusim.reporting.long_context_dram import read_measured
from gpusim.validation.long_context_configs import read_manifest

#: manifest folder (under data/h200) -> {card: folder of its Nsight Compute counts}
NCU = {
    "2026-12-05_long_context_heldout6": {
        "h200": "data/h200/2026-12-05_long_context_heldout6",
        "h100": "data/h100/2026-12-05_long_context_heldout6_on_h100",
    },
    "2026-12-05_long_context_heldout7": {"h100": "data/h100/2026-12-05_long_context_heldout7"},
}
PROFILE = {"h200": "h200-sxm", "h100": "h100-sxm5"}


def _mate_pairs(smid: np.ndarray, start: np.ndarray, end: np.ndarray):
    """Each SM's consecutive CTAs in start order that overlap (the later started while the
    earlier ran: SM-mates), as ``(k, start a, start offset / a's life, b's life / a's)``,
    ``k`` the pair's place on its SM (0: the first wave's two CTAs)."""
    for sm in np.unique(smid):
        idx = np.flatnonzero(smid == sm)
        idx = idx[np.argsort(start[idx])]
        for k, (a, b) in enumerate(pairwise(idx)):
            if start[b] < end[a]:
                life = end[a] - start[a]
                yield k, start[a], (start[b] - start[a]) / life, (end[b] - start[b]) / life


def mates(smid: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[float, float, float]:
    """(median start offset of overlapping CTAs on one SM over the earlier one's life, the
    same over the grid's second half, median younger-over-older life of such pairs)."""
    half = float(np.median(end))
    pairs = list(_mate_pairs(smid, start, end))
    return (_median([off for _, _, off, _ in pairs]),
            _median([off for _, t, off, _ in pairs if t > half]),
            _median([ratio for *_, ratio in pairs]))  # fmt: skip


def pairs_by_generation(smid: np.ndarray, start: np.ndarray, end: np.ndarray, n: int = 8):
    """``[(k, SMs, median start offset, median later-over-earlier life)]`` of each SM's k-th
    pair of overlapping CTAs in start order (k 0: the first wave's two CTAs): how fast two
    SM-mates that start in step drift apart, generation by generation."""
    by: dict[int, list[tuple[float, float]]] = {}
    for k, _, off, ratio in _mate_pairs(smid, start, end):
        if k < n:
            by.setdefault(k, []).append((off, ratio))
    return [(k, len(v), _median([o for o, _ in v]), _median([r for _, r in v]))
            for k, v in sorted(by.items())]  # fmt: skip


def _median(v: list[float]) -> float:
    return float(np.median(v)) if v else float("nan")


def rows(stamp_files: list[Path], card: str) -> list[dict]:
    """One row per stamped run that has Nsight Compute counts on ``card`` (the stamping
    card: ``h100`` or ``h200``)."""
    out = []
    for path in stamp_files:
        doc = json.loads(Path(path).read_text())
        folder = Path(doc["manifest"]).parent.name
        configs = {c.config_id: c for c in read_manifest(REPO_ROOT / doc["manifest"])}
        ncu_dir = NCU.get(folder, {}).get(card)
        if ncu_dir is None:
            continue
        ncu, _ = read_measured(REPO_ROOT / ncu_dir)
        profile = load_profile(PROFILE[card])
        for st in doc["configs"]:
            c = configs[st["id"]]
            w, s = c.workload, c.schedule
            start, end = np.array(st["start_ns"], float), np.array(st["end_ns"], float)
            smid = np.array(st["smid"])
            r = simulate("flash2", w, s, profile)
            rates = rates_for(profile, w.dtype, s.warps)
            # tile steps per ns: every CTA's steps (and one for its Q and epilogue) over its life
            steps = tile_steps(w, s) + start.size
            unit = float((end - start).sum()) / steps
            got = ncu[c.config_id]["dram_read_bytes"] + ncu[c.config_id]["dram_write_bytes"]
            stamped = kv_trace_for(w, s, rates, r.ctas_per_sm, rates.l2_shared_aging, 1.0, 0.0,
                                   measured=(start / unit, end / unit))  # fmt: skip
            rec = kv_trace_of_record(w, s, rates, r.ctas_per_sm, r.runtime_s)
            off, off_late, ratio = mates(smid, start, end)
            out.append({"id": c.config_id, "card": card, "measured_bytes": got,
                        "record_err": _b(rec.result) / got - 1, "record_priority": rec.priority,
                        "stamped_err": _b(stamped) / got - 1, "mate_offset": off,
                        "mate_offset_late": off_late, "younger_over_older": ratio,
                        "kernel_ms": float(end.max()) / 1e6})  # fmt: skip
    return out


def _b(t) -> int:
    return t.dram_read_bytes + t.dram_write_bytes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--card", choices=tuple(PROFILE), required=True, help="the stamping GPU")
    ap.add_argument("stamps", nargs="+", type=Path)
    ap.add_argument("--generations", action="store_true",
                    help="each run's SM-mates pair by pair instead (no trace)")
    a = ap.parse_args(argv)
    if a.generations:
        print("| run | pair k | SMs | start offset / earlier life | later / earlier life |")
        print("|---|---|---|---|---|")
        for path in a.stamps:
            for st in json.loads(Path(path).read_text())["configs"]:
                arrays = (np.array(st[k], float) for k in ("smid", "start_ns", "end_ns"))
                for k, n, off, ratio in pairs_by_generation(*arrays):
                    print(f"| {st['id']} | {k} | {n} | {off:.2f} | {ratio:.2f} |")
        return 0
    print("| run | card | DRAM measured | trace of record | trace on the stamps | mates' offset "
          "(all / late) | younger / older |")
    print("|---|---|---|---|---|---|---|")
    for r in rows(a.stamps, a.card):
        print(f"| {r['id']} | {r['card']} | {r['measured_bytes'] / 1e9:.2f} GB | "
              f"{r['record_err']:+.1%} (q {r['record_priority']:.3f}) | {r['stamped_err']:+.1%} | "
              f"{r['mate_offset']:.2f} / {r['mate_offset_late']:.2f} | "
              f"{r['younger_over_older']:.3f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
