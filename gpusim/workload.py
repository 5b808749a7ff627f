"""The workload: what attention problem is solved, independent of how and where."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from gpusim.dtypes import DType, dtype_bytes

#: Largest batch, head count and sequence length a workload may have.
MAX_SIZE = 2**31 - 1

#: Which passes of training or inference are computed: the forward (``fwd``, inference), the
#: backward alone (``bwd``: dQ, dK, dV from Q, K, V, O, the forward's log-sum-exp and dO), or
#: both (``fwd+bwd``: a training step's attention, the forward also storing its log-sum-exp).
Pass = Literal["fwd", "bwd", "fwd+bwd"]
PASSES: tuple[str, ...] = ("fwd", "bwd", "fwd+bwd")
#: Matrix products per pass, by the FlashAttention papers' convention: the forward's two
#: (S = Q K^T, O = P V), the backward's five (S again, dP = dO V^T, dV = P^T dO,
#: dK = dS^T Q, dQ = dS K): the backward counts 2.5 forwards.
PRODUCTS_PER_PASS = {"fwd": 2, "bwd": 5, "fwd+bwd": 7}


class Workload(BaseModel):
    """One attention problem: ``softmax(Q K^T / sqrt(d)) V`` over batch x heads.

    ``seq_len_q`` and ``seq_len_k`` may differ (``seq_len`` is accepted for ``seq_len_q``, and
    ``seq_len_k`` left out is ``seq_len_q``, as on the command line). With ``causal``, query
    ``i`` sees keys ``j <= i + (seq_len_k - seq_len_q)`` (bottom-right alignment, as
    FlashAttention >= 2.1); when ``seq_len_q == seq_len_k`` this is the usual
    lower triangle. Rows that see no key at all produce zeros.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    # At most 2**31 - 1 (a CUDA grid dimension, an int32 index): far past any real run, and
    # it keeps FLOPs and runtimes inside float range (10**200 heads overflowed the engine).
    batch: int = Field(8, gt=0, le=MAX_SIZE)
    heads: int = Field(32, gt=0, le=MAX_SIZE)
    seq_len_q: int = Field(2048, gt=0, le=MAX_SIZE)
    seq_len_k: int = Field(2048, gt=0, le=MAX_SIZE)
    head_dim: int = Field(128, gt=0)
    dtype: DType = "fp16"
    causal: bool = False
    #: K/V heads (GQA: fewer than ``heads``, MQA: 1); the query heads ``g*G .. g*G + G - 1``
    #: (``G = heads // heads_kv``) all read K/V head ``g``. None (the default, and what a
    #: value equal to ``heads`` becomes) means ``heads``.
    heads_kv: int | None = Field(None, gt=0, le=MAX_SIZE)
    #: which pass (:data:`Pass`); ``pass`` is a Python keyword, so the field is ``pass_``
    #: and its name in every record, dump and keyword is ``pass`` (``Workload(**{"pass":
    #: "bwd"})`` or ``Workload(pass_="bwd")``)
    pass_: Pass = Field("fwd", alias="pass")

    @model_serializer(mode="wrap")
    def _dump(self, handler):
        # "pass" under its own name, and only when not the forward: the records, digests and
        # cache keys of every forward workload read as they did before the field existed.
        out = handler(self)
        value = out.pop("pass_", out.pop("pass", "fwd"))
        if value != "fwd":
            out["pass"] = value
        return out

    @model_validator(mode="before")
    @classmethod
    def _command_line_names(cls, data):
        # The command line's names work here too (the CLI contract: the API takes the same
        # names): ``seq_len`` is ``seq_len_q``, and ``seq_len_k`` left out is the query
        # length, as ``--seq-len-k`` defaults to ``--seq-len``.
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if "seq_len" in data:
            given = data.pop("seq_len")
            if "seq_len_q" in data and data["seq_len_q"] != given:
                raise ValueError(
                    f"seq_len {given} and seq_len_q {data['seq_len_q']} name the same length"
                )
            data["seq_len_q"] = given
        if "seq_len_q" in data and "seq_len_k" not in data:
            data["seq_len_k"] = data["seq_len_q"]
        return data

    @model_validator(mode="before")
    @classmethod
    def _canonical_heads_kv(cls, data):
        # One spelling for "as many K/V heads as query heads": None, so that two equal
        # workloads compare, hash and cache equal however they were written, and a copy with
        # other ``heads`` (``model_copy(update=...)``, which skips validation) keeps its meaning.
        heads = (
            data.get("heads", cls.model_fields["heads"].default) if isinstance(data, dict) else None
        )
        if heads is not None and data.get("heads_kv") == heads:
            data = {**data, "heads_kv": None}
        return data

    @model_validator(mode="after")
    def _sane(self) -> Workload:
        if self.head_dim > 1024:
            raise ValueError(f"head_dim {self.head_dim} is larger than 1024")
        if self.heads % self.kv_heads:
            raise ValueError(
                f"heads {self.heads} is not a multiple of heads_kv {self.kv_heads} (each K/V "
                f"head serves the same number of query heads)"
            )
        return self

    @property
    def elem_bytes(self) -> int:
        """Bytes per stored element."""
        return dtype_bytes(self.dtype)

    @property
    def batch_heads(self) -> int:
        """Number of independent (batch, head) problems."""
        return self.batch * self.heads

    @property
    def kv_heads(self) -> int:
        """K/V heads: ``heads_kv``, or ``heads`` when it is None."""
        return self.heads if self.heads_kv is None else self.heads_kv

    @property
    def group_size(self) -> int:
        """Query heads per K/V head (1 without GQA)."""
        return self.heads // self.kv_heads

    @property
    def batch_heads_kv(self) -> int:
        """Number of (batch, K/V head) pairs: how many distinct K and V matrices there are."""
        return self.batch * self.kv_heads

    def kv_bh(self, bh: int) -> int:
        """The (batch, K/V head) index whose K and V the query (batch, head) ``bh`` reads."""
        b, h = divmod(bh, self.heads)
        return b * self.kv_heads + h // self.group_size

    @property
    def causal_offset(self) -> int:
        """Query ``i`` sees keys ``j <= i + causal_offset`` when causal."""
        return self.seq_len_k - self.seq_len_q

    def visible_pairs(self) -> int:
        """Number of (query, key) pairs that are not masked, per (batch, head)."""
        nq, nk = self.seq_len_q, self.seq_len_k
        if not self.causal:
            return nq * nk
        off = self.causal_offset
        total = 0
        # Row i sees min(nk, max(0, i + off + 1)) keys; sum in closed form over three ranges.
        first_full = max(0, nk - 1 - off)  # rows from here on see all nk keys
        first_any = max(0, -off)  # rows before this see nothing
        lo, hi = first_any, min(nq, first_full)
        if hi > lo:
            # sum_{i=lo}^{hi-1} (i + off + 1)
            total += (hi - lo) * (off + 1) + (hi - 1 + lo) * (hi - lo) // 2
        if nq > first_full:
            total += (nq - max(first_full, lo)) * nk if nq > max(first_full, lo) else 0
        return total

    @property
    def backward(self) -> bool:
        """Whether the pass includes the backward (``bwd`` or ``fwd+bwd``)."""
        return self.pass_ != "fwd"

    def model_flops(self) -> int:
        """FLOPs by the papers' convention: 4·B·H·Nq·Nk·d for the forward (2 per multiply-add
        of its two products), 10·B·H·Nq·Nk·d for the backward (five products), their sum for
        ``fwd+bwd``; halved if causal.

        The halving is the convention, not the exact count of visible pairs
        (``visible_pairs`` gives that), so numbers line up with published tables.
        """
        products = PRODUCTS_PER_PASS[self.pass_]
        full = 2 * products * self.batch_heads * self.seq_len_q * self.seq_len_k * self.head_dim
        return full // 2 if self.causal else full

    def compulsory_bytes(self) -> int:
        """Bytes the pass must move at least once: the forward Q, K, V and O
        (:meth:`qkvo_bytes`); the backward also dO and the gradients dQ, dK, dV (each as
        large as its tensor: twice the forward's); a training step both."""
        return {"fwd": 1, "bwd": 2, "fwd+bwd": 3}[self.pass_] * self.qkvo_bytes()

    def qkvo_bytes(self) -> int:
        """Bytes of Q, K, V and O once each: the compulsory traffic (K and V per K/V head)."""
        e, d = self.elem_bytes, self.head_dim
        q_o = 2 * self.batch_heads * self.seq_len_q
        k_v = 2 * self.batch_heads_kv * self.seq_len_k
        return e * d * (q_o + k_v)
