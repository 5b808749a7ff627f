"""Set fields of a written profile from a record of their own, after a field it has.

Some numbers come from runs outside the suite, made after a profile was written (the wgmma
burst clock, the queued launch): each is set on the written YAML right after the field it
belongs with, the way the profile writer dumps profiles, with a header line naming its
record (replacing an earlier one of the same kind, so that applying twice changes nothing).
"""

from __future__ import annotations

from typing import Any


def set_after(profile_text: str, after: str, entries: dict[str, Any], header: str) -> str:
    """``profile_text`` with ``entries`` placed right after its field ``after`` (where they
    were, they move) and ``header`` (``"# what: record"``) among the header lines."""
    import yaml

    kind = header.split(":", 1)[0]
    lines = [line for line in profile_text.splitlines() if line.startswith("#")]
    lines = [h for h in lines if not h.startswith(kind)] + [header]
    profile = yaml.safe_load(profile_text)
    if after not in profile:
        raise ValueError(f"the profile has no {after}")
    out: dict[str, Any] = {}
    for key, value in profile.items():
        if key in entries:
            continue
        out[key] = value
        if key == after:
            out.update(entries)
    body = yaml.safe_dump(out, sort_keys=False, width=100, allow_unicode=True)
    return "\n".join(lines) + "\n" + body


def add_core_cycles(
    profile_text: str, values: dict[str, float], mark: str, date: str | None, header: str
) -> str:
    """``profile_text`` with ``values`` added to its ``sass_core_cycles`` (which it must have:
    calibrate.sass_timing's), ``mark`` (``"; keys: python -m module"``) and ``date`` appended
    to that field's source once, and ``header`` among the header lines."""
    import yaml

    profile = yaml.safe_load(profile_text)
    if "sass_core_cycles" not in profile:
        raise ValueError("the profile has no sass_core_cycles (calibrate.sass_timing's)")
    keys = list(profile)
    before = keys[keys.index("sass_core_cycles") - 1]
    entry = dict(profile["sass_core_cycles"])
    entry["value"] = {**entry["value"], **values}
    entry["source"] = entry["source"].split(mark)[0] + f"{mark} ({date})"
    return set_after(profile_text, before, {"sass_core_cycles": entry}, header)
