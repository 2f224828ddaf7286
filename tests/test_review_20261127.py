"""Regressions found in the review of the 2026-11-27 commits (4bce9a1..e819f6a)."""

from __future__ import annotations

import argparse

import pytest

from textleak.commands.evaluate import sanitized_source_ids


def test_alignment_index_with_source_ids_and_originals_without_ids():
    """Originals without an id column are named by row number; --alignment index with --source-id-column
    used to crash (zip over None) instead of checking the ids against the positions."""
    args = argparse.Namespace(sanitized="b.jsonl", source_id_column="src", alignment="index")
    in_order = [{"id": None, "text": "x", "src": "0"}, {"id": None, "text": "y", "src": "1"}]
    assert sanitized_source_ids(args, in_order, None, ["x0", "y0"]) in (None, ["0", "1"])
    swapped = [{"id": None, "text": "x", "src": "1"}, {"id": None, "text": "y", "src": "0"}]
    with pytest.raises(ValueError, match="row 0 of b.jsonl carries the id '1'"):
        sanitized_source_ids(args, swapped, None, ["x0", "y0"])


def test_record_size_error_does_not_call_a_synthetic_record_an_originals_release():
    """Under alignment 'none' (synthetic data) a sanitized record is no original's release, even when the
    set happens to have as many records as the originals; the error named it 'the release of original id'."""
    from textleak.leakage.limits import RecordTooLongError, check_record_sizes

    with pytest.raises(RecordTooLongError) as err:
        check_record_sizes(["a", "b"], ["x", "y" * 20], ["o1", "o2"], None, 10, alignment="none")
    assert "original id" not in str(err.value) and "sanitized record 1 has 20 characters" in str(err.value)
    with pytest.raises(RecordTooLongError, match=r"the release of original id 'o2'"):
        check_record_sizes(["a", "b"], ["x", "y" * 20], ["o1", "o2"], None, 10)


def test_record_size_error_under_alignment_none_through_the_engine():
    from textleak.leakage import LeakageConfig, evaluate_leakage
    from textleak.leakage.limits import RecordTooLongError

    with pytest.raises(RecordTooLongError) as err:
        evaluate_leakage(["a b", "c d"], ["x", "y " * 20], LeakageConfig(alignment="none", max_record_chars=10),
                         original_ids=["o1", "o2"])
    assert "original id" not in str(err.value)
