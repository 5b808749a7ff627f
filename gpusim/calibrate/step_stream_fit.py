"""The tile stream's law (:mod:`gpusim.engine.stream_latency`) fitted to a step_stream record,
and the three profile fields it gives.

    python -m gpusim.calibrate.step_stream_fit --record R            # the fit and each row
    python -m gpusim.calibrate.step_stream_fit --record R --profile P  # write the fields

The rows without a gap (a bare stream: the tile's arrival is the whole step) are fitted; the
law's ``R`` is the profile's ``dram_read_bandwidth_bytes_per_s`` (``--read-bps`` overrides it
where the profile has none). The fit minimises the mean absolute log error over a grid of
latencies, ingress rates and knee powers, refined twice around the best.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

FIELDS = ("tile_stream_latency_s", "tile_stream_ingress_bytes_per_s", "tile_stream_knee_power")
MODULE = "python -m gpusim.calibrate.step_stream_fit"


def _arrays(rows: list[dict[str, Any]]) -> tuple[np.ndarray, ...]:
    """Per bare-stream row: bytes in flight per SM, streaming SMs, tiles in flight, step."""
    bare = [r for r in rows if r["gap_cycles"] == 0]
    per_sm = np.array([(r["stages"] - 1) * r["tile_bytes"] * r["ctas_per_sm"] for r in bare])
    sms = np.array([r["sms"] for r in bare], dtype=float)
    tiles = np.array([r["stages"] - 1 for r in bare], dtype=float)
    step = np.array([r["step_s"] for r in bare])
    return per_sm.astype(float), sms, tiles, step


def predicted_step_s(params: tuple[float, float, float], per_sm, sms, tiles, read_bps: float):
    """The law's step (a tile's arrival over the tiles a CTA keeps in flight), the engine's
    own formula over arrays."""
    from gpusim.engine.stream_latency import law_s

    lat, ingress, power = params
    return law_s(lat, ingress, power, per_sm, sms * per_sm / read_bps) / tiles


def fit(record: dict[str, Any], read_bps: float) -> dict[str, Any]:
    """The law's (latency s, ingress B/s, power) and its errors on the record's bare rows."""
    per_sm, sms, tiles, step = _arrays(record["rows"])
    if len(step) < 4:
        raise ValueError("the record has fewer than 4 rows without a gap")
    lat_s = np.linspace(0.1e-6, 1.5e-6, 29)
    ing = np.geomspace(30e9, 1000e9, 36)
    pw = np.linspace(1.0, 8.0, 29)
    best = None
    for _ in range(3):
        grid = np.array(np.meshgrid(lat_s, ing, pw, indexing="ij")).reshape(3, -1).T
        for p in grid:
            err = np.mean(np.abs(np.log(predicted_step_s(tuple(p), per_sm, sms, tiles, read_bps)
                                        / step)))  # fmt: skip
            if best is None or err < best[0]:
                best = (float(err), tuple(float(x) for x in p))
        lat, i, w = best[1]
        lat_s = np.linspace(max(1e-9, lat * 0.85), lat * 1.15, 13)
        ing = np.geomspace(i / 1.2, i * 1.2, 13)
        pw = np.linspace(max(1.0, w - 0.5), w + 0.5, 11)
    params = best[1]
    rel = predicted_step_s(params, per_sm, sms, tiles, read_bps) / step - 1
    return {"latency_s": params[0], "ingress_bytes_per_s": params[1], "knee_power": params[2],
            "read_bytes_per_s": read_bps, "rows": len(step),
            "mape": float(np.mean(np.abs(rel))), "max_abs": float(np.max(np.abs(rel))),
            "errors": [float(x) for x in rel]}  # fmt: skip


def profile_entries(record: dict[str, Any], got: dict[str, Any], path: str) -> dict[str, Any]:
    """The three fields, each with its source and the fit's errors."""
    src = (f"measured on {record['gpu']}, {record['date']}, python -m gpusim.calibrate."
           f"step_stream ({path}), fitted by {MODULE}")  # fmt: skip
    note = (f"the tile stream's law T = ((L + F/r)^p + (N F / R)^p)^(1/p) over {got['rows']} "
            f"bare-stream rows at R = {got['read_bytes_per_s']:.4g} B/s: MAPE "
            f"{got['mape'] * 100:.2f} %, worst {got['max_abs'] * 100:.1f} %")  # fmt: skip
    values = (got["latency_s"], got["ingress_bytes_per_s"], got["knee_power"])
    return {f: {"value": float(f"{v:.6g}"), "source": src, "note": note}
            for f, v in zip(FIELDS, values, strict=True)}  # fmt: skip


def _read_stream(profile_text: str) -> float | None:
    """The profile's ``dram_read_bandwidth_bytes_per_s``, the law's R (None: it has none)."""
    import yaml

    return (yaml.safe_load(profile_text).get("dram_read_bandwidth_bytes_per_s") or {}).get("value")


def _with_fields(profile_text: str, record: dict[str, Any], got: dict[str, Any], path: str) -> str:
    """``profile_text`` with the fit's three fields after its read stream."""
    from gpusim.calibrate.profile_patch import set_after

    entries = profile_entries(record, got, path)
    return set_after(profile_text, "dram_read_bandwidth_bytes_per_s", entries,
                     f"# tile stream: {path}")  # fmt: skip


def apply(profile_text: str, doc: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with the three fields of a recorded run, fitted at the profile's own
    ``dram_read_bandwidth_bytes_per_s`` (a ValueError where it has none)."""
    read = _read_stream(profile_text)
    if read is None:
        raise ValueError("the profile has no dram_read_bandwidth_bytes_per_s to fit the law at")
    return _with_fields(profile_text, doc, fit(doc, float(read)), record_path)


def main(argv: list[str] | None = None) -> int:
    """Print the fit of a record, or write its fields into a profile."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", type=Path, required=True)
    ap.add_argument("--profile", type=Path)
    ap.add_argument("--read-bps", type=float)
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        record = json.loads(a.record.read_text())
        text = a.profile.read_text() if a.profile else None
        read = a.read_bps
        if read is None and text is not None:
            read = _read_stream(text)
        if read is None:
            raise ValueError("give --read-bps or a --profile with dram_read_bandwidth_bytes_per_s")
        got = fit(record, float(read))
        if text is not None:
            text = _with_fields(text, record, got, str(a.record))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"step_stream_fit: error: {exc}", file=sys.stderr)
        return 2
    print(f"latency {got['latency_s'] * 1e6:.3f} us, ingress {got['ingress_bytes_per_s'] / 1e9:.1f}"
          f" GB/s, knee power {got['knee_power']:.2f}: MAPE {got['mape'] * 100:.2f} % over "
          f"{got['rows']} rows, worst {got['max_abs'] * 100:.1f} %")  # fmt: skip
    if a.profile and text is not None:
        a.profile.write_text(text)
        print(f"-> {a.profile}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
