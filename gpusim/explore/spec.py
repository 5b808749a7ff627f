"""The sweep's spec: a YAML (or JSON) file read strictly, every error one line.

::

    base_profile: h200-sxm          # a shipped name, or a file (relative to the spec's folder)
    vary:                           # numeric profile fields by name, each a list of values
      smem_per_sm_bytes: [98304, 131072, 233472]
      sm_count: [66, 132]
    workloads:                      # a list of workloads, or one mapping; a list value in
      - {batch: 1, heads: 16, seq_len: 16384, head_dim: 128, dtype: bf16, causal: true}
      - {batch: 64, heads: 32, seq_len: 1, seq_len_k: [8192, 32768], head_dim: 128}
    algorithms: [flash2, standard]
    footprints: compiled            # registers from ptxas (default) or the estimate
    knee_tolerance: 0.05            # the knee: where runtime comes within 5 % of the best

A workload's keys are the command line's (``batch``, ``heads``, ``heads_kv``, ``seq_len``,
``seq_len_k``, ``head_dim``, ``dtype``, ``causal``); those left out take the CLI defaults.
Any of them given as a list makes a grid (every combination). This module reads the
file's shape; :mod:`gpusim.explore.sweep_plan` checks the values against the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gpusim.errors import GpusimError
from gpusim.profiles import DEFAULT_PROFILE
from gpusim.profiles.loader import validation_summary

#: A workload key as the spec writes it -> the Workload field, and the default when left out
#: (the CLI's defaults, so that a spec and a command line mean the same workload).
WORKLOAD_KEYS: dict[str, tuple[str, Any]] = {
    "batch": ("batch", 8),
    "heads": ("heads", 32),
    "heads_kv": ("heads_kv", None),
    "seq_len": ("seq_len_q", 2048),
    "seq_len_k": ("seq_len_k", None),  # None: seq_len
    "head_dim": ("head_dim", 128),
    "dtype": ("dtype", "fp16"),
    "causal": ("causal", False),
    "pass": ("pass_", "fwd"),  # fwd, bwd or fwd+bwd (--pass)
}
FOOTPRINTS = ("compiled", "estimate")


class ExploreSpec(BaseModel):
    """The spec file's content, before its values are checked against the model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_profile: str = DEFAULT_PROFILE
    vary: dict[str, list[Any]] = Field(default_factory=dict)
    workloads: list[dict[str, Any]] | dict[str, Any]
    algorithms: list[str] = Field(default_factory=lambda: ["flash2"])
    footprints: Literal["compiled", "estimate"] = "compiled"
    knee_tolerance: float = Field(0.05, ge=0, lt=1, allow_inf_nan=False)

    @property
    def workload_entries(self) -> list[dict[str, Any]]:
        """The workloads as a list of entries (a single mapping is a list of one)."""
        return [self.workloads] if isinstance(self.workloads, dict) else list(self.workloads)


def _parse(text: str, name: str, as_json: bool) -> Any:
    try:
        return json.loads(text) if as_json else yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError) as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else getattr(e, "lineno", None)
        where = f" at line {line}" if line else ""
        problem = getattr(e, "problem", None) or getattr(e, "msg", "")
        kind = "JSON" if as_json else "YAML"
        raise GpusimError(f"{name}: not valid {kind}{where}: {problem}") from None


def parse_spec(text: str, name: str = "spec", *, as_json: bool = False) -> ExploreSpec:
    """The spec in ``text`` (YAML, or JSON with ``as_json``); ``name`` prefixes its errors."""
    data = _parse(text, name, as_json)
    if not isinstance(data, dict):
        raise GpusimError(
            f"{name}: expected a mapping with base_profile, vary, workloads and algorithms"
        )
    try:
        return ExploreSpec.model_validate(data)
    except ValidationError as e:
        raise GpusimError(f"{name}: {validation_summary(e)}") from None


def load_spec(path: str | Path) -> ExploreSpec:
    """The spec file at ``path``; a missing, unreadable or malformed file is one line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GpusimError(f"spec file {str(path)!r} not found") from None
    except IsADirectoryError:
        raise GpusimError(f"spec {str(path)!r} is a folder, not a YAML file") from None
    except UnicodeDecodeError as e:
        raise GpusimError(f"{path.name}: not UTF-8 text (byte {e.start})") from None
    return parse_spec(text, path.name, as_json=path.suffix == ".json")
