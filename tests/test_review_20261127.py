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
