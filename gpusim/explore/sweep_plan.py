"""A checked sweep: the base profile, the varied values, the workloads and algorithms, and
the points they make (every combination), each point a plain JSON object.

Everything a spec can get wrong is found here, before any point runs: an unknown profile
field or algorithm, a value the profile schema refuses on the base GPU, an empty list, a
workload the model refuses. A *combination* of values the schema refuses (each fine alone)
is not found here: it is that point's recorded failure, and the sweep goes on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gpusim.api.names import algorithm_named, closest, profile_named
from gpusim.errors import GpusimError
from gpusim.explore.fields import (
    SMEM_COUPLED,
    Number,
    check_field_name,
    coerce_value,
    varied_profile,
)
from gpusim.explore.spec import WORKLOAD_KEYS, ExploreSpec, load_spec
from gpusim.profiles.loader import validation_summary
from gpusim.profiles.schema import HardwareProfile
from gpusim.workload import Workload


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


#: The Workload field -> the spec's key, for error messages.
_SPEC_KEY = {field: key for key, (field, _) in WORKLOAD_KEYS.items()}


def _values(where: str, value: Any) -> list[Any]:
    """A spec value as a list of choices: a list (not empty, no repeats) or one scalar."""
    if not isinstance(value, list):
        return [value]
    if not value:
        raise GpusimError(f"{where}: an empty list leaves the grid with no point")
    for i, v in enumerate(value):
        if v in value[:i]:
            raise GpusimError(f"{where}: {v!r} is listed twice")
    return value


def _workload(where: str, values: dict[str, Any]) -> Workload:
    fields = {WORKLOAD_KEYS[k][0]: v for k, v in values.items()}
    if fields.get("seq_len_k") is None:
        fields["seq_len_k"] = fields["seq_len_q"]
    try:
        return Workload(**fields)
    except ValidationError as e:
        text = validation_summary(e)
        field, sep, rest = text.partition(": ")
        if sep and field in _SPEC_KEY:
            text = f"{_SPEC_KEY[field]}: {rest}"
        raise GpusimError(f"{where}: {text}") from None


def expand_workloads(entries: list[dict[str, Any]]) -> list[Workload]:
    """Every workload of the spec's entries, a list value expanding into a grid; repeats once."""
    if not entries:
        raise GpusimError("workloads: an empty list leaves the grid with no point")
    out: list[Workload] = []
    for i, entry in enumerate(entries):
        where = f"workloads[{i}]"
        if not isinstance(entry, dict):
            raise GpusimError(f"{where}: expected a mapping such as {{batch: 1, seq_len: 4096}}")
        for key in entry:
            if key not in WORKLOAD_KEYS:
                near = closest(str(key), WORKLOAD_KEYS)
                hint = f"did you mean {' or '.join(repr(n) for n in near)}? " if near else ""
                raise GpusimError(
                    f"{where}: unknown key {key!r}; {hint}known: {', '.join(WORKLOAD_KEYS)}"
                )
        choices = {
            k: _values(f"{where}.{k}", entry[k]) if k in entry else [default]
            for k, (_, default) in WORKLOAD_KEYS.items()
        }
        for combo in itertools.product(*choices.values()):
            w = _workload(where, dict(zip(choices, combo, strict=True)))
            if w not in out:
                out.append(w)
    return out


def _check_vary(base: HardwareProfile, vary: dict[str, list[Any]]) -> dict[str, list[Number]]:
    """The varied values, typed; each checked alone on ``base`` by the profile schema."""
    if all(k in vary for k in SMEM_COUPLED):
        raise GpusimError(
            f"vary: give one of {' or '.join(SMEM_COUPLED)}, not both (each sets the other)"
        )
    out: dict[str, list[Number]] = {}
    for name, raw in vary.items():
        check_field_name(name)
        values = [coerce_value(name, v) for v in _values(f"vary.{name}", raw)]
        for v in values:
            varied_profile(base, {name: v})
        out[name] = values
    return out


def _resolve_profile(text: str, spec_dir: Path | None) -> HardwareProfile:
    """The base profile: a shipped name, or a file path taken relative to the spec's folder."""
    from gpusim.api.names import is_profile_file

    if spec_dir is not None and is_profile_file(text) and not Path(text).is_absolute():
        candidate = spec_dir / text
        if candidate.exists():
            return profile_named(candidate)
    try:
        return profile_named(text)
    except GpusimError as e:
        raise GpusimError(f"base_profile: {e}") from None


@dataclass(frozen=True)
class Plan:
    """A checked spec: what the sweep runs, point by point."""

    spec: ExploreSpec
    base: HardwareProfile
    vary: dict[str, list[Number]]
    workloads: list[Workload]
    algorithms: list[str]

    @property
    def n_points(self) -> int:
        """How many points the grid has."""
        n = len(self.workloads) * len(self.algorithms)
        for values in self.vary.values():
            n *= len(values)
        return n

    def params(self) -> Iterator[dict[str, Number]]:
        """Every combination of the varied values, in the spec's order (one, empty, if none)."""
        for combo in itertools.product(*self.vary.values()):
            yield dict(zip(self.vary, combo, strict=True))

    def points(self) -> Iterator[dict[str, Any]]:
        """Every point: ``{"algorithm", "params", "workload"}``, in a fixed order."""
        dumped = [w.model_dump(mode="json") for w in self.workloads]
        for params in self.params():
            for w in dumped:
                for algorithm in self.algorithms:
                    yield {"algorithm": algorithm, "params": params, "workload": w}

    @cached_property
    def _indices(self) -> tuple[list[dict[Any, int]], dict[str, int], dict[str, int]]:
        values = [{v: i for i, v in enumerate(vs)} for vs in self.vary.values()]
        workloads = {_canonical(w.model_dump(mode="json")): i for i, w in enumerate(self.workloads)}
        return values, workloads, {a: i for i, a in enumerate(self.algorithms)}

    def ordinal(self, point: dict[str, Any]) -> int | None:
        """The index of ``point`` in :meth:`points` (None: not a point of this plan), found
        from its values, so that no map of every point is needed."""
        values, workloads, algorithms = self._indices
        params = point.get("params", {})
        if list(params) != list(self.vary):
            return None
        index = 0
        for name, lookup in zip(self.vary, values, strict=True):
            i = lookup.get(params[name])
            if i is None or type(params[name]) is not type(self.vary[name][i]):
                return None
            index = index * len(lookup) + i
        w = workloads.get(_canonical(point.get("workload")))
        a = algorithms.get(point.get("algorithm"))
        if w is None or a is None:
            return None
        return (index * len(workloads) + w) * len(algorithms) + a

    @property
    def base_fingerprint(self) -> str:
        """A hash of the base profile's numbers and the tuner's settings: a sweep resumes
        only onto results computed with the same ones."""
        blob = json.dumps(
            [self.base.model_dump(mode="json"), self.spec.footprints], sort_keys=True
        ).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def make_plan(spec: ExploreSpec, spec_dir: Path | None = None) -> Plan:
    """Check ``spec`` against the model; every error is a one-line :class:`GpusimError`."""
    base = _resolve_profile(spec.base_profile, spec_dir)
    vary = _check_vary(base, spec.vary)
    workloads = expand_workloads(spec.workload_entries)
    algorithms = _values("algorithms", spec.algorithms)
    for name in algorithms:
        try:
            algorithm_named(name)
        except GpusimError as e:
            raise GpusimError(f"algorithms: {e}") from None
    return Plan(spec, base, vary, workloads, list(algorithms))


def load_plan(path: str | Path) -> Plan:
    """The checked plan of the spec file at ``path``."""
    path = Path(path)
    return make_plan(load_spec(path), path.resolve().parent)
