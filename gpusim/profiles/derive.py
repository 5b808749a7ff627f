"""Profiles of GPUs the project has not measured, derived from one it has.

The H100 SXM5 has the H200's GH100 SM (the same clocks, pipes, shared memory, L2 design and
launch path); only its memory system differs: 80 GB of HBM3 at 3.35 TB/s and 50 MB of L2,
against 141 GB of HBM3e at 4.8 TB/s and 60 MiB. So its profile is the measured H200 profile
with every memory-system number replaced: the datasheet's where the datasheet has it, and
where the model needs an *achieved* figure (the copy bandwidth, the L2's loss curve, the
bandwidth by bytes in flight) the H200 measurement moved to the H100 by a stated rule
(the same achieved fraction of the datasheet peak; depths and the L2's bandwidth scaled with
the L2's size; Little's law at the same latency). Each derived number says so in its source.

``python -m gpusim.profiles.derive h100-sxm5 --out hardware_profiles/h100-sxm5.yaml``
writes the file (``h100-sxm5-core`` likewise: the same derivation from ``h200-sxm-core``);
tests/profiles/test_derive.py holds the committed files to it.
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from gpusim.errors import GpusimError
from gpusim.profiles.loader import profile_path
from gpusim.profiles.schema import HardwareProfile

H200_DATASHEET_DRAM_BYTES_PER_S = 4.8e12  # NVIDIA H200 datasheet: 4.8 TB/s HBM3e
H100_DATASHEET_DRAM_BYTES_PER_S = 3.35e12  # NVIDIA H100 datasheet: H100 SXM 3.35 TB/s HBM3
H100_L2_BYTES = 52428800  # NVIDIA H100 architecture whitepaper: 50 MB of L2 in H100 SXM5

Field = dict[str, Any]


@dataclass(frozen=True)
class Derivation:
    """How one GPU's profile follows from a measured one: fields replaced by facts, fields
    moved by a rule (a function of the base profile's entries), and what stays, noted."""

    base: str
    header: str
    top: dict[str, Any]
    facts: dict[str, Field]
    rules: dict[str, Callable[[dict[str, Any]], Field]] = field(default_factory=dict)
    kept_note: str = ""


def _achieved(field: str, what: str, replaced_by: str) -> Callable[[dict[str, Any]], Field]:
    """The rule for a DRAM bandwidth ``field``: the H100 datasheet's peak times the share of
    the H200's datasheet peak that ``what`` reached on the H200."""

    def rule(base: dict[str, Any]) -> Field:
        fraction = base[field]["value"] / H200_DATASHEET_DRAM_BYTES_PER_S
        return {
            "value": H100_DATASHEET_DRAM_BYTES_PER_S * fraction,
            "source": (
                "derived: NVIDIA H100 datasheet, H100 SXM memory bandwidth 3.35 TB/s, times "
                f"{fraction:.4f}, the fraction of its datasheet 4.8 TB/s {what} reached on the "
                f"H200 ({base[field]['source']})"
            ),
            "note": "assumes HBM3 reaches the same share of its peak as the H200's HBM3e; "
            f"{replaced_by} on an H100 replaces it",
        }

    return rule


_achieved_dram = _achieved("dram_bandwidth_bytes_per_s", "a device copy", "gpusim calibrate")
_achieved_dram_read = _achieved(
    "dram_read_bandwidth_bytes_per_s",
    "a read stream of tile copies",
    "python -m gpusim.calibrate.dram_read",
)


TILE_STREAM_FIELDS = ("tile_stream_latency_s", "tile_stream_ingress_bytes_per_s",
                      "tile_stream_knee_power")  # fmt: skip


def _h100_fact(field: str) -> Callable[[dict[str, Any]], Field]:
    """The rule for a field the H200 lacks and an H100 measured: ``h100-sxm5-measured``'s
    entry (that card's own calibration), as is."""

    def rule(_base: dict[str, Any]) -> Field:
        measured = yaml.safe_load(profile_path("h100-sxm5-measured").read_text())
        entry = copy.deepcopy(measured.get(field))
        if entry is None or "measured on NVIDIA H100" not in entry.get("source", ""):
            raise GpusimError(f"h100-sxm5-measured has no H100 measurement of {field}")
        return entry

    return rule


def _l2_loss_scaled(base: dict[str, Any]) -> Field:
    scale = H100_L2_BYTES / base["l2_bytes"]["value"]
    curve = [[round(depth * scale), share] for depth, share in base["l2_loss_by_depth"]["value"]]
    return {
        "value": curve,
        "source": (
            f"derived: the H200's measured curve ({base['l2_loss_by_depth']['source']}) with its "
            f"depths scaled by the L2 sizes, 50 MB / 60 MiB = {scale:.4f}"
        ),
        "note": "assumes the same replacement policy on a smaller L2 of the same design",
    }


def _inflight_littles_law(base: dict[str, Any]) -> Field:
    h200 = base["dram_bandwidth_bytes_per_s"]["value"]
    h100 = _achieved_dram(base)["value"]
    curve = [
        [inflight, round(min(1.0, share * h200 / h100), 4)]
        for inflight, share in base["dram_share_by_inflight"]["value"]
    ]
    return {
        "value": curve,
        "source": (
            f"derived: the H200's measured curve ({base['dram_share_by_inflight']['source']}) by "
            "Little's law: the same bytes in flight at the same latency reach the same bandwidth, "
            "a larger share of the H100's lower peak (capped at 1)"
        ),
        "note": "assumes the H200's DRAM latency (HBM3 here, HBM3e there)",
    }


def _l2_bandwidth_by_size(base: dict[str, Any]) -> Field:
    """The L2's bandwidth scaled with its size: the H100 SXM5 enables 50 MiB of the GH100's L2
    slices where the H200 has 60 MiB, at the same clock, so each byte of L2 serves the same
    bandwidth. Adopted by wgmma decode set 2's rule on an H100 (reports/kernels/wgmma/
    decode_set2: MAPE 19.2 -> 11.3 % with it); the H100's own L2 microbenchmark measured
    7.91 TB/s (data/h100/2026-12-05_calibration), the rule gives 7.76."""
    ratio = H100_L2_BYTES / base["l2_bytes"]["value"]
    return {
        "value": base["l2_bandwidth_bytes_per_s"]["value"] * ratio,
        "source": (
            "derived: the H200's measured L2 bandwidth "
            f"({base['l2_bandwidth_bytes_per_s']['source']}) x the L2 sizes' ratio "
            f"{H100_L2_BYTES} / {base['l2_bytes']['value']} B (the slices enabled, at the same "
            "clock)"
        ),
        "note": "the H100's own microbenchmark (h100-sxm5-measured) read 7.91 TB/s",
    }


H100_SXM5 = Derivation(
    base="h200-sxm",
    header=(
        "# Written by `python -m gpusim.profiles.derive h100-sxm5`; do not edit by hand.\n"
        "# NVIDIA H100 SXM5 80GB: the measured H200 profile (the same GH100 SM) with the H100's\n"
        "# memory system from its datasheet; every number's source says which it is.\n"
    ),
    top={
        "name": "h100-sxm5",
        "display_name": "NVIDIA H100 SXM5 80GB",
        "note": (
            "The H200's measured SM (gpusim calibrate on the project's H200: the same GH100 SM, "
            "clocks, L2 design and launch path) with the H100 SXM5's memory system: DRAM size and "
            "bandwidth and L2 size from NVIDIA's datasheet and whitepaper, the achieved figures "
            "derived by stated rules. Not measured on an H100: gpusim calibrate there replaces it."
        ),
    },
    facts={
        "dram_bytes": {
            "value": 85899345920,
            "source": "NVIDIA H100 Tensor Core GPU datasheet: 80 GB HBM3 (taken as 80 GiB)",
        },
        "l2_bytes": {
            "value": H100_L2_BYTES,
            "source": "NVIDIA H100 Tensor Core GPU Architecture whitepaper: 50 MB L2 cache in H100",
            "note": "the full GH100 die has 60 MB; the H200 reports 60 MiB",
        },
        "sm_count": {
            "value": 132,
            "source": "NVIDIA H100 Tensor Core GPU Architecture whitepaper: H100 SXM5 has 132 SMs",
        },
        "sm_clock_hz": {
            "value": 1.98e9,
            "source": "NVIDIA H100 datasheet: FP32 67 TFLOPS = 132 SMs x 256 FLOP/clk x 1.98 GHz "
            "(max boost)",
        },
    },
    rules={
        **{f: _h100_fact(f) for f in TILE_STREAM_FIELDS},
        "dram_bandwidth_bytes_per_s": _achieved_dram,
        "dram_read_bandwidth_bytes_per_s": _achieved_dram_read,
        "l2_loss_by_depth": _l2_loss_scaled,
        "l2_bandwidth_bytes_per_s": _l2_bandwidth_by_size,
        "dram_share_by_inflight": _inflight_littles_law,
    },
    kept_note="not measured on an H100: the H200's value (the same GH100 SM, clocks and L2 design)",
)

#: The same H100 with the H200's measured SM core cycles (``sass_core_cycles``, the same GH100
#: SM): the explicit SASS-replay refinement for the project's compiled kernels, as
#: ``h200-sxm-core`` is the H200's.
H100_SXM5_CORE = replace(
    H100_SXM5,
    base="h200-sxm-core",
    header=(
        "# Written by `python -m gpusim.profiles.derive h100-sxm5-core`; do not edit by hand.\n"
        "# NVIDIA H100 SXM5 80GB with the SM core model: h100-sxm5's derivation from\n"
        "# h200-sxm-core (h200-sxm and the H200's measured SM core cycles); every number's\n"
        "# source says which.\n"
    ),
    top={
        "name": "h100-sxm5-core",
        "display_name": "NVIDIA H100 SXM5 80GB (SM core model)",
        "note": (
            f"{H100_SXM5.top['note']} With the H200's measured SM core cycles, so that the "
            "project's compiled kernels are timed by replaying their committed SASS loops "
            "(the SM core model); other kernels by the pipe model, which the output says."
        ),
    },
)

DERIVATIONS = {"h100-sxm5": H100_SXM5, "h100-sxm5-core": H100_SXM5_CORE}


def derive(name: str) -> dict[str, Any]:
    """The profile ``name`` as a mapping of fields (validated), from its measured base."""
    try:
        d = DERIVATIONS[name]
    except KeyError:
        known = ", ".join(sorted(DERIVATIONS))
        raise GpusimError(f"no derivation for profile {name!r}; derived: {known}") from None
    base = yaml.safe_load(profile_path(d.base).read_text())
    out: dict[str, Any] = {}
    for key, entry in base.items():
        if key in d.top:
            out[key] = d.top[key]
        elif key in d.facts:
            out[key] = d.facts[key]
        elif key in d.rules:
            out[key] = d.rules[key](base)
        else:
            out[key] = _kept(entry, d.kept_note)
    for key, rule in d.rules.items():  # fields the base lacks, from elsewhere, in order
        if key not in out:
            out[key] = rule(base)
    missing = set(d.facts) - set(out)
    if missing:
        raise GpusimError(f"{d.base} lacks {', '.join(sorted(missing))}, which {name} replaces")
    HardwareProfile.model_validate(out)
    return out


def _kept(entry: Any, note: str) -> Any:
    """A base field as the derived profile keeps it: its source prefixed with why it holds."""
    if not isinstance(entry, dict):
        return entry
    if "source" in entry:
        kept = copy.deepcopy(entry)
        if "measured on NVIDIA H100" not in entry["source"]:  # else an H100 fact already
            kept["source"] = f"{note}; {entry['source']}"
        return kept
    return {k: _kept(v, note) for k, v in entry.items()}  # per-dtype rates


def render(name: str) -> str:
    """The YAML text of the derived profile ``name``, with its header."""
    text = yaml.safe_dump(derive(name), sort_keys=False, width=100, allow_unicode=True)
    return DERIVATIONS[name].header + text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.profiles.derive", description=__doc__)
    ap.add_argument("name", help=f"one of: {', '.join(sorted(DERIVATIONS))}")
    ap.add_argument("--out", type=Path, help="file to write (default: print)")
    args = ap.parse_args(argv)
    try:
        text = render(args.name)
    except GpusimError as e:
        print(f"gpusim: error: {e}", file=sys.stderr)
        return 2
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
