"""The committed manifest of a judged set: its configurations and a digest of them, written
before the set is measured and refused when edited afterwards (one format for every set)."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from gpusim import atomic
from gpusim.errors import GpusimError

C = TypeVar("C")


def configs_digest(entries: list[dict]) -> str:
    """SHA-256 of the configurations' JSON (sorted keys): what predictions and data name."""
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def manifest_doc(entries: list[dict], kind: str, schema: int, what: str) -> dict[str, Any]:
    """The manifest: what it is, a digest of its configurations, and the configurations."""
    return {
        "kind": kind,
        "schema": schema,
        "what": what,
        "configs_sha256": configs_digest(entries),
        "configs": entries,
    }


def read_manifest(
    path: Path,
    kind: str,
    label: str,
    from_dict: Callable[[dict], C],
    as_dict: Callable[[C], dict],
) -> list[C]:
    """The configurations of a manifest file; GpusimError if it is not one or was edited."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise GpusimError(f"cannot read the manifest {path}: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("kind") != kind:
        raise GpusimError(f"{path} is not a {label} manifest (kind {kind})")
    configs = [from_dict(d) for d in doc["configs"]]
    if configs_digest([as_dict(c) for c in configs]) != doc.get("configs_sha256"):
        raise GpusimError(f"{path}: the configurations do not match their recorded digest")
    return configs


def write_or_list(
    prog: str, write: Path | None, show: bool, doc: dict, lines: Sequence[str]
) -> int:
    """A manifest command's body: write ``doc`` to a new file (never over one: a fixed set
    stays fixed), and/or print one line per configuration."""
    if write:
        if write.exists():
            print(f"{prog}: error: {write} exists", file=sys.stderr)
            return 2
        write.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(write, json.dumps(doc, indent=1) + "\n")
        print(f"{len(lines)} configs -> {write}")
    if show or not write:
        for line in lines:
            print(line)
        print(f"{len(lines)} configs")
    return 0
