"""The record file resumes: finished ids are skipped, a cut line is measured again."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.validation.store import RecordStore


def test_resume_skips_finished_and_failed(tmp_path):
    p = tmp_path / "sweep.jsonl"
    s = RecordStore(p)
    s.add({"id": "a", "status": "ok", "median_s": 1.0})
    s.add({"id": "b", "status": "failed", "error": "oom"})
    again = RecordStore(p)
    assert again.done("a") and again.done("b") and not again.done("c")
    retry = RecordStore(p, retry_failed=True)
    assert retry.done("a") and not retry.done("b")
    assert [r["id"] for r in again.ordered(["b", "c", "a"])] == ["b", "a"]


def test_cut_line_is_ignored_and_last_record_wins(tmp_path):
    p = tmp_path / "sweep.jsonl"
    p.write_text('{"id": "a", "status": "failed"}\n{"id": "a", "status": "ok"}\n{"id": "b", "sta')
    s = RecordStore(p)
    assert s.records["a"]["status"] == "ok"
    assert not s.done("b")


def test_record_without_id_is_an_error(tmp_path):
    p = tmp_path / "sweep.jsonl"
    p.write_text('{"status": "ok"}\n')
    with pytest.raises(GpusimError, match="id"):
        RecordStore(p)


def test_non_finite_numbers_are_stored_as_null(tmp_path):
    s = RecordStore(tmp_path / "s.jsonl")
    s.add({"id": "a", "status": "failed", "rel_err": float("nan"), "t": [1.0, float("inf")]})
    again = RecordStore(tmp_path / "s.jsonl")
    assert again.records["a"]["rel_err"] is None and again.records["a"]["t"] == [1.0, None]
