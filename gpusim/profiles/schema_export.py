"""Write the profile JSON schema to ``hardware_profiles/schema.json`` (for editors and other tools).

Run ``python -m gpusim.profiles.schema_export`` after changing the schema; a test
fails while the file is stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gpusim import atomic
from gpusim.profiles.loader import _package_dir
from gpusim.profiles.schema import HardwareProfile


def schema_text() -> str:
    """The JSON schema of :class:`HardwareProfile`, formatted as committed."""
    return json.dumps(HardwareProfile.model_json_schema(), indent=2, sort_keys=True) + "\n"


def schema_path() -> Path:
    """Where the schema file lives (next to the shipped profiles)."""
    return _package_dir() / "schema.json"


def write_schema(path: Path | None = None) -> Path:
    """Write the schema to ``path`` (default: :func:`schema_path`) and return the path."""
    path = path or schema_path()
    atomic.write_text(path, schema_text(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write_schema(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
