"""Model objects as plain JSON types, for every writer of JSON (the CLI, sweeps, reports)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def jsonable(obj: Any) -> Any:
    """``obj`` as plain JSON types: models and dataclasses become dicts, NaN/inf become None."""
    if isinstance(obj, BaseModel):
        return jsonable(obj.model_dump(mode="json"))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return jsonable(dataclasses.asdict(obj))
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [jsonable(v) for v in obj]
    if isinstance(obj, Enum):
        return jsonable(obj.value)
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, bool | str) or obj is None:
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if hasattr(obj, "item"):  # NumPy scalars
        return jsonable(obj.item())
    if hasattr(obj, "tolist"):  # NumPy arrays
        return jsonable(obj.tolist())
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")
