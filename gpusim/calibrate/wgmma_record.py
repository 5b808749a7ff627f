"""Profile fields from a recorded wgmma microbenchmark run (``python -m gpusim.calibrate.wgmma``).

- ``wgmma_rate_by_n``: FLOP per clock per SM of m64nNk16 by N, for each input type and A
  source (``bf16/smem`` ...), at the shape of a two-consumer-warpgroup kernel: 2 warpgroups
  per CTA, 1 CTA per SM, one accumulator chained, 128-byte swizzled operands;
- ``wgmma_flops_per_clk_per_sm``: each input type's best rate over every rate row;
- ``sm_clock_wgmma_load_hz``: the clock of the last launch after seconds of back-to-back
  m64n256k16 launches (the products' clock once the GPU has settled under their power);
- the softmax overlap shares, (T_products + T_softmax - T_both) / min(T_products,
  T_softmax) from the loop cycles of the ``overlap`` rows, averaged over their N and A
  sources: one warpgroup doing both (``P``, ``S``, ``B``), products in one warpgroup and
  the softmax in another (``P.``, ``.S``, ``PS``), two warpgroups each doing both (``PP``,
  ``SS``, ``BB``).
"""

from __future__ import annotations

import statistics
from typing import Any

FOLDER = "data/h200/2026-12-03_calibration_wgmma"
#: (rate rows of) the table's launch shape
TABLE_SHAPE = {"warpgroups": 2, "ctas_per_sm": 1, "chains": 1, "swizzle": 1}
#: overlap share name -> (products-only mix, softmax-only mix, both)
OVERLAP_MIXES = {
    "same_warpgroup": ("P", "S", "B"),
    "other_warpgroup": ("P.", ".S", "PS"),
    "two_warpgroups": ("PP", "SS", "BB"),
}
#: A mix whose row failed may be read from one that runs the same loop in the other
#: warpgroup (warps of either warpgroup spread over the same four sub-partitions): the
#: 2026-12-03 H200 run measured ``P.`` within 0.7 % of ``P``, and ``.S`` could not be read.
SAME_LOOP = {".S": "S", "P.": "P"}


def _source(record: dict[str, Any]) -> str:
    return (
        f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate.wgmma "
        f"({FOLDER})"
    )


def rate_rows(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in record["rows"] if r.get("kind") == "rate" and "skipped" not in r]


def rate_table(record: dict[str, Any]) -> dict[str, list[tuple[int, float]]]:
    table: dict[str, list[tuple[int, float]]] = {}
    for r in rate_rows(record):
        if all(r[k] == v for k, v in TABLE_SHAPE.items()):
            table.setdefault(f"{r['dtype']}/{r['a_src']}", []).append(
                (r["n"], round(r["flops_per_clk_per_sm"], 1))
            )
    return {k: sorted(v) for k, v in sorted(table.items())}


def overlap_share(record: dict[str, Any], mixes: tuple[str, str, str]) -> tuple[float, list]:
    """The mean share over the overlap rows' (N, A source) and each one's share."""
    rows = [r for r in record["rows"] if r.get("kind") == "overlap"]
    cyc = {(r["n"], r["a_src"], r["mix"]): r["cycles_per_iter"] for r in rows}
    shares = []
    for n, a in sorted({(r["n"], r["a_src"]) for r in rows}):
        used = [m if (n, a, m) in cyc else SAME_LOOP.get(m, m) for m in mixes]
        try:
            tp, ts, tb = (cyc[(n, a, m)] for m in used)
        except KeyError:
            continue
        share = (tp + ts - tb) / min(tp, ts)
        row = (n, a, round(tp, 1), round(ts, 1), round(tb, 1), round(share, 3))
        swapped = [f"{m} for {w}" for m, w in zip(used, mixes, strict=True) if m != w]
        shares.append((*row, f"read {', '.join(swapped)}") if swapped else row)
    if not shares:
        raise ValueError(f"the wgmma record has no overlap rows for {mixes}")
    mean = statistics.fmean(s[5] for s in shares)
    return min(1.0, max(0.0, mean)), shares


def profile_entries(record: dict[str, Any]) -> dict[str, Any]:
    """The profile fields of one recorded run, each with its source and how it was reduced."""
    src = _source(record)
    table = rate_table(record)
    if not table:
        raise ValueError("the wgmma record has no rate rows at the table's launch shape")
    out: dict[str, Any] = {
        "wgmma_rate_by_n": {
            "value": {k: [list(p) for p in v] for k, v in table.items()},
            "source": src,
            "note": "m64nNk16 FLOP/clk/SM (2 per multiply-add), 8 products per loop "
            "iteration on one chained accumulator, 2 warpgroups x 1 CTA per SM on all SMs, "
            "128-byte swizzled K-major operands; key {dtype}/{A source}",
        }
    }
    peaks = {}
    for dtype in ("fp16", "bf16"):
        # One CTA per SM only: a rate per clock comes from each block's own cycles, which
        # is the SM's span only when the block has the SM to itself (with two CTAs that
        # do not start together the H200 run read 5454 FLOP/clk/SM, over the 4096 ceiling).
        rows = [r for r in rate_rows(record) if r["dtype"] == dtype and r["ctas_per_sm"] == 1]
        best = max(rows, key=lambda r: r["flops_per_clk_per_sm"])
        peaks[dtype] = {
            "value": round(best["flops_per_clk_per_sm"], 1),
            "source": src,
            "note": f"best of {len(rows)} rate rows: n{best['n']} A {best['a_src']}, "
            f"{best['warpgroups']} warpgroups x {best['ctas_per_sm']} CTAs/SM, "
            f"chains {best['chains']}, at {best['sm_clock_hz'] / 1e6:.0f} MHz",
        }
    out["wgmma_flops_per_clk_per_sm"] = peaks
    sus = record["sustained"]
    last = sus["last_launch_clock"]
    out["sm_clock_wgmma_load_hz"] = {
        "value": round(last["median_hz"], -6),
        "source": src,
        "note": f"median over blocks of the last of {sus['launches']} back-to-back launches "
        f"({sus['wall_s']:.1f} s) of m64n256k16 bf16 products, 2 warpgroups per SM; first "
        f"launch {sus['first_launch_clock']['median_hz'] / 1e6:.0f} MHz",
    }
    for name, mixes in OVERLAP_MIXES.items():
        share, each = overlap_share(record, mixes)
        out[f"wgmma_softmax_overlap_{name}"] = {
            "value": round(share, 3),
            "source": src,
            "note": f"(T({mixes[0]}) + T({mixes[1]}) - T({mixes[2]})) / min, mean over "
            f"(n, A, T_p, T_s, T_both, share) = {each}",
        }
    return out


#: Where the fields go in a profile: after the wgmma peak rate.
_AFTER = "wgmma_flops_per_clk_per_sm"


def apply(profile_text: str, record: dict[str, Any], record_path: str) -> str:
    """``profile_text`` (a written profile) with the record's wgmma fields set, the way the
    profile writer dumps profiles, and a header line naming the record."""
    import yaml

    header = [line for line in profile_text.splitlines() if line.startswith("#")]
    line = f"# wgmma rates, clock and softmax overlap: {record_path}"
    header = [h for h in header if not h.startswith("# wgmma rates")] + [line]
    profile = yaml.safe_load(profile_text)
    entries = profile_entries(record)
    peaks = entries.pop(_AFTER)
    rates = dict(profile.get(_AFTER) or {})
    rates.update(peaks)
    out: dict[str, Any] = {}
    for key, value in profile.items():
        if key in entries:
            continue
        out[key] = rates if key == _AFTER else value
        if key == _AFTER:
            out.update(entries)
    body = yaml.safe_dump(out, sort_keys=False, width=100, allow_unicode=True)
    return "\n".join(header) + "\n" + body


def main(argv: list[str] | None = None) -> int:
    """``python -m gpusim.calibrate.wgmma_record RECORD PROFILE.yaml``: set its wgmma fields."""
    import json
    import sys
    from pathlib import Path

    from gpusim import atomic

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m gpusim.calibrate.wgmma_record RECORD PROFILE.yaml", file=sys.stderr)
        return 2
    record_path, profile_path = args
    record = json.loads(Path(record_path).read_text())
    atomic.write_text(profile_path, apply(Path(profile_path).read_text(), record, record_path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
