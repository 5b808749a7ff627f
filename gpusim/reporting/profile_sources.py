"""A profile's numbers with their sources, as a Markdown table (what a reader checks first
about a GPU the project has not measured)."""

from __future__ import annotations

from typing import Any

from gpusim.profiles import HardwareProfile
from gpusim.profiles.gaps import ENGINE_OPTIONAL, borrowed_fields, missing_fields


def _value(v: Any) -> str:
    if isinstance(v, list) and v and isinstance(v[0], list | tuple):
        return f"curve of {len(v)} points, {v[0]} .. {v[-1]}"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _rows(prefix: str, entry: Any) -> list[tuple[str, str, str]]:
    if isinstance(entry, dict) and "source" in entry:
        src = entry["source"] + (f" ({entry['note']})" if entry.get("note") else "")
        return [(prefix, _value(entry.get("value")), src)]
    if isinstance(entry, dict):
        return [r for k, v in entry.items() if v is not None for r in _rows(f"{prefix}.{k}", v)]
    return []


def sources_markdown(profile: HardwareProfile) -> str:
    """One row per sourced number of ``profile``: field, value, source (and note)."""
    data = profile.model_dump(mode="json")
    rows = [r for key, entry in data.items() if entry is not None for r in _rows(key, entry)]
    lines = [
        f"# {profile.display_name} (`{profile.name}`): every number and its source",
        "",
        profile.note or "",
        "",
        "| field | value | source |",
        "|---|---|---|",
    ]
    lines += [f"| `{f}` | {v} | {s.replace('|', '/')} |" for f, v, s in rows]
    missing = missing_fields(profile)
    if missing:
        lines += ["", "Fields the engine reads that no source gives for this GPU, and what the "
                  "engine does without each:", ""]  # fmt: skip
        lines += [f"- `{f}`: {ENGINE_OPTIONAL[f]}" for f in missing]
    borrowed = borrowed_fields(profile)
    if borrowed:
        lines += ["", f"{len(borrowed)} values are another GPU's (their sources say so)."]
    return "\n".join(lines) + "\n"
