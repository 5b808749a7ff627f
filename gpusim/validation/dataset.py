"""The validation dataset: measured records with provenance, as written on the GPU machine.

A dataset is one JSON object (``kind``, ``schema``, ``provenance``, ``method``, ``ncu``,
``records``); each record is a config (:meth:`ValidationConfig.as_dict`) plus what was
measured (``status``, ``median_s``, ``times_s``, kernel ``attributes`` ...; ``counts``
where Nsight Compute counted it). It is stored as produced and never edited by hand. Loading checks
that the provenance names a GPU, that the records carry what the comparison needs, and
:func:`check_profile` refuses to judge a profile against another GPU's measurements.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.profiles.schema import HardwareProfile

DATASET_KIND = "gpusim validation dataset"
SCHEMA = 1
#: Provenance a dataset must carry to be compared at all.
REQUIRED_PROVENANCE = ("gpu_name", "date_utc", "git_commit", "cuda_runtime_version", "cupy_version")
REQUIRED_RECORD = ("id", "kind", "workload", "schedule", "status")


def load_dataset(path: Path | str) -> dict[str, Any]:
    """Read and check a dataset file; GpusimError saying what is missing or malformed."""
    p = Path(path)
    if not p.exists():
        raise GpusimError(f"dataset {p} does not exist; pass a file written by gpusim validate")
    try:
        data = json.loads(p.read_text())
    except json.JSONDecodeError as exc:
        raise GpusimError(f"dataset {p} is not JSON: {exc.msg} at line {exc.lineno}") from None
    check_dataset(data, str(p))
    return data


def check_dataset(data: Any, where: str = "dataset") -> None:
    """Raise GpusimError unless ``data`` is a validation dataset with provenance and records."""
    if not isinstance(data, dict) or data.get("kind") != DATASET_KIND:
        raise GpusimError(f"{where} is not a validation dataset (kind must be {DATASET_KIND!r})")
    if data.get("schema") != SCHEMA:
        raise GpusimError(f"{where} has schema {data.get('schema')!r}; this gpusim reads {SCHEMA}")
    prov = data.get("provenance")
    if not isinstance(prov, dict):
        raise GpusimError(f"{where} has no provenance object")
    missing = [k for k in REQUIRED_PROVENANCE if not prov.get(k)]
    if missing:
        raise GpusimError(f"{where}: provenance lacks {', '.join(missing)}")
    recs = data.get("records")
    if not isinstance(recs, list) or not recs:
        raise GpusimError(f"{where} has no records")
    for i, r in enumerate(recs):
        lack = [k for k in REQUIRED_RECORD if k not in r]
        if lack:
            raise GpusimError(f"{where}: record {i} lacks {', '.join(lack)}")
        if r["status"] == "ok" and not isinstance(r.get("median_s"), int | float):
            raise GpusimError(f"{where}: record {r['id']} is ok but has no median_s")


def gpu_model(gpu_name: str) -> str:
    """The model token of a device name: ``NVIDIA H200`` -> ``H200``, ``NVIDIA A100-SXM4-80GB``
    -> ``A100``."""
    words = re.sub(r"^(NVIDIA|Tesla|GeForce)\s+", "", gpu_name.strip(), flags=re.I)
    words = re.sub(r"^(GeForce|Tesla)\s+", "", words, flags=re.I)
    return re.split(r"[\s\-_]", words)[0].upper() if words else ""


def check_profile(data: dict[str, Any], profile: HardwareProfile) -> None:
    """Refuse to compare a dataset measured on one GPU with a profile of another.

    The device model in the provenance must appear in the profile's display name, and the
    SM count and L2 size the device reported (when recorded) must equal the profile's.
    """
    prov = data["provenance"]
    model = gpu_model(prov["gpu_name"])
    shown = f"{profile.display_name} {profile.name}".upper()
    if not model or model not in shown:
        raise GpusimError(
            f"the dataset was measured on {prov['gpu_name']!r} but profile {profile.name!r} "
            f"describes {profile.display_name!r}; use a profile of that GPU"
        )
    for key, field in (("sm_count", "sm_count"), ("l2_bytes", "l2_bytes")):
        got = prov.get(key)
        want = getattr(profile, field).value
        if got is not None and int(got) != int(want):
            raise GpusimError(
                f"the dataset's GPU reports {key} = {got} but profile {profile.name!r} has "
                f"{want}; use a profile of that GPU"
            )


def merge_records(datasets: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict], list[dict]]:
    """Records of several datasets in order, each tagged with its dataset's name; a later
    dataset's record of the same config id supersedes the earlier one (a re-measurement).

    Returns ``(records, superseded)``; superseded entries say which dataset replaced them.
    """
    by_id: dict[str, dict[str, Any]] = {}
    superseded = []
    for name, data in datasets:
        for rec in data["records"]:
            tagged = rec | {"dataset": name}
            old = by_id.get(rec["id"])
            if old is not None:
                superseded.append(
                    {"id": rec["id"], "dataset": old["dataset"], "superseded_by": name}
                )
            by_id[rec["id"]] = tagged
    return list(by_id.values()), superseded
