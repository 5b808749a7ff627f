"""A resumable record file: one JSON object per line, keyed by config id, appended as measured.

An interrupted sweep leaves every finished record on disk; the next run reads them back and
skips those ids. A failed config is a record too (``status: failed`` with its error), so it
is not retried unless asked (``retry_failed``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError


class RecordStore:
    """Records of a sweep in a JSON-lines file, the last record of an id winning."""

    def __init__(self, path: Path | str, retry_failed: bool = False):
        self.path = Path(path)
        self.retry_failed = retry_failed
        self.records: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            for n, line in enumerate(self.path.read_text().splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    # A line cut short by an interruption: the config is simply measured again.
                    continue
                if not isinstance(rec, dict) or "id" not in rec:
                    raise GpusimError(f"{self.path}:{n}: a record must be an object with an 'id'")
                self.records[rec["id"]] = rec

    def done(self, config_id: str) -> bool:
        """Whether ``config_id`` needs no new measurement."""
        rec = self.records.get(config_id)
        if rec is None:
            return False
        return not (self.retry_failed and rec.get("status") != "ok")

    def add(self, record: dict[str, Any]) -> None:
        """Append ``record`` (it must have an ``id``) and flush it to disk at once.

        NaN and infinities (a broken run's error, say) are stored as null: JSON has neither.
        """
        record = _finite(record)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as f:
            f.write(json.dumps(record, allow_nan=False, default=str) + "\n")
        self.records[record["id"]] = record

    def ordered(self, ids: list[str]) -> list[dict[str, Any]]:
        """The records of ``ids`` that exist, in that order."""
        return [self.records[i] for i in ids if i in self.records]


def _finite(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj
