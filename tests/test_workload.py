"""The workload takes the command line's names (the CLI contract: the Python API takes the
same names as keyword arguments or fields)."""

import pytest
from pydantic import ValidationError

from gpusim.workload import Workload


def test_seq_len_is_the_query_length_and_the_key_length_follows_it():
    assert Workload(seq_len=256) == Workload(seq_len_q=256, seq_len_k=256)
    # it used to keep the default 2048 keys behind a 4096-query workload
    assert Workload(seq_len_q=4096).seq_len_k == 4096


def test_a_key_length_given_stands():
    w = Workload(seq_len=1, seq_len_k=4096)
    assert (w.seq_len_q, w.seq_len_k) == (1, 4096)
    assert Workload().seq_len_k == Workload().seq_len_q == 2048


def test_two_names_for_one_length_must_agree():
    assert Workload(seq_len=64, seq_len_q=64).seq_len_q == 64
    with pytest.raises(ValidationError, match="name the same length"):
        Workload(seq_len=64, seq_len_q=128)


def test_records_still_read_with_their_own_names():
    w = Workload(batch=2, heads=4, seq_len_q=100, seq_len_k=300, head_dim=64)
    assert Workload.model_validate(w.model_dump()) == w
    assert "seq_len" not in w.model_dump()
