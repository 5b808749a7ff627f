"""The manifest of PyTorch FlashAttention-2 backward runs that
:mod:`gpusim.validation.torch_bwd_measure` times: its runs checked, their FLOP counts, and
the tiles and grids the sources say each run gets.

A manifest is a JSON object whose ``runs`` is a list of objects with exactly the keys
``id``, ``batch``, ``heads``, ``heads_kv``, ``seq_len_q``, ``seq_len_k``, ``head_dim``,
``dtype`` (bf16 or fp16) and ``causal``. Anything else is a one-line
:class:`~gpusim.errors.GpusimError` naming the run by its index and id. Pure: no torch, and
none of the project's own dependencies (pydantic, simpy), as the device script needs.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.validation.torch_flash_bwd_schedule import bwd_grids, bwd_head_dim_bucket, bwd_tiles

RUN_KEYS = ("id", "batch", "heads", "heads_kv", "seq_len_q", "seq_len_k", "head_dim", "dtype")


@dataclass(frozen=True)
class BwdRun:
    """One measurement of the manifest."""

    id: str
    batch: int
    heads: int
    heads_kv: int
    seq_len_q: int
    seq_len_k: int
    head_dim: int
    dtype: str
    causal: bool

    @property
    def group(self) -> int:
        """Query heads per K/V head."""
        return self.heads // self.heads_kv

    def flops_bwd(self) -> int:
        """FlashAttention's count for the backward: 2.5 times the forward's."""
        return bwd_flops(
            self.batch, self.heads, self.seq_len_q, self.seq_len_k, self.head_dim, self.causal
        )

    def flops_fwd(self) -> int:
        """FlashAttention's count for the forward."""
        return fwd_flops(
            self.batch, self.heads, self.seq_len_q, self.seq_len_k, self.head_dim, self.causal
        )

    def seed(self) -> int:
        """The inputs' seed: the same inputs for the same id, on every rerun."""
        return zlib.crc32(self.id.encode())


def fwd_flops(batch: int, heads: int, seq_q: int, seq_k: int, head_dim: int, causal: bool) -> int:
    """``4 B H Nq Nk d`` (Q K^T and P V), halved when causal (FlashAttention's papers)."""
    f = 4 * batch * heads * seq_q * seq_k * head_dim
    return f // 2 if causal else f


def bwd_flops(batch: int, heads: int, seq_q: int, seq_k: int, head_dim: int, causal: bool) -> int:
    """``10 B H Nq Nk d`` (S and dP recomputed, dV, dQ, dK), halved when causal."""
    f = 10 * batch * heads * seq_q * seq_k * head_dim
    return f // 2 if causal else f


def _positive_int(run: dict[str, Any], key: str, where: str) -> int:
    v = run[key]
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise GpusimError(f"{where}: {key} must be a positive integer, not {v!r}")
    return v


def parse_run(run: Any, where: str) -> BwdRun:
    """One run object of a manifest, checked (a one-line GpusimError otherwise)."""
    if not isinstance(run, dict):
        raise GpusimError(f"{where}: a run must be an object, not {type(run).__name__}")
    keys = (*RUN_KEYS, "causal")
    missing = [k for k in keys if k not in run]
    extra = sorted(set(run) - set(keys))
    if missing or extra:
        what = "; ".join(
            s
            for s in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown {', '.join(extra)}" if extra else "",
            )
            if s
        )
        raise GpusimError(f"{where}: {what} (a run has exactly {', '.join(keys)})")
    if not isinstance(run["id"], str) or not run["id"].strip():
        raise GpusimError(f"{where}: id must be a non-empty string, not {run['id']!r}")
    where = f"{where} ({run['id']})"
    ints = {
        k: _positive_int(run, k, where)
        for k in ("batch", "heads", "heads_kv", "seq_len_q", "seq_len_k", "head_dim")
    }
    if run["dtype"] not in ("bf16", "fp16"):
        raise GpusimError(f"{where}: dtype must be bf16 or fp16, not {run['dtype']!r}")
    if not isinstance(run["causal"], bool):
        raise GpusimError(f"{where}: causal must be true or false, not {run['causal']!r}")
    if ints["heads"] % ints["heads_kv"]:
        raise GpusimError(f"{where}: heads_kv {ints['heads_kv']} must divide heads {ints['heads']}")
    if run["causal"] and ints["seq_len_q"] != ints["seq_len_k"]:
        raise GpusimError(
            f"{where}: PyTorch's flash backend refuses is_causal with seq_len_q != seq_len_k "
            "(check_flash_causal_non_square_seqlens)"
        )
    try:
        bwd_head_dim_bucket(ints["head_dim"])
    except GpusimError as exc:
        raise GpusimError(f"{where}: {exc}") from None
    return BwdRun(id=run["id"], dtype=run["dtype"], causal=run["causal"], **ints)


def parse_manifest(doc: Any, where: str = "manifest") -> list[BwdRun]:
    """The runs of a manifest document, checked: ids unique, at least one run."""
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise GpusimError(f"{where}: a manifest is an object with a list 'runs'")
    if not doc["runs"]:
        raise GpusimError(f"{where}: 'runs' is empty")
    runs = [parse_run(r, f"{where}: run {i}") for i, r in enumerate(doc["runs"])]
    seen: set[str] = set()
    for r in runs:
        if r.id in seen:
            raise GpusimError(f"{where}: id {r.id!r} appears twice")
        seen.add(r.id)
    return runs


def load_manifest(path: Path) -> list[BwdRun]:
    """The runs of the manifest file at ``path``."""
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as exc:
        raise GpusimError(f"{path}: cannot read the manifest: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise GpusimError(f"{path}: not JSON: {exc.msg} (line {exc.lineno})") from None
    return parse_manifest(doc, str(path))


def expected(run: BwdRun, max_smem_per_block: int | None = None) -> dict[str, Any]:
    """The tiles and grids the sources say this run gets (an H200 unless told otherwise)."""
    kw = {} if max_smem_per_block is None else {"max_smem_per_block": max_smem_per_block}
    tiles = bwd_tiles(run.head_dim, run.dtype, run.causal, **kw)
    grids = bwd_grids(tiles, run.batch, run.heads, run.seq_len_q, run.seq_len_k)
    return tiles | {"grids": {k: list(v) for k, v in grids.items()}, "gqa_sums": run.group > 1}
