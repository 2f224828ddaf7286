"""Issue 27, items 3 and 13, through the explicit alignment flags: ``--alignment index`` or ``ids`` on the
command line gave the engine's errors, which name its arguments ("pass alignment='none' for synthetic data,
or sanitized_ids"), and ``--alignment index`` on rows that carry the originals' ids in another order paired
them by position without a word (linkage rate 1.000 -> 0.000 on an identity release)."""

from __future__ import annotations

import pytest

from textleak.cli import main
from textleak.leakage import evaluate_leakage

from _profiles import LEXICAL, RECORDS, error_line as _error_line, write_jsonl as _jsonl





@pytest.fixture
def originals(tmp_path):
    return _jsonl(tmp_path / "a.jsonl", [{"id": f"r{i}", "text": t} for i, t in enumerate(RECORDS)])


def _evaluate(tmp_path, originals, sanitized, alignment):
    return main(["evaluate", "--originals", originals, "--sanitized", sanitized, "--alignment", alignment, *LEXICAL,
                 "--output", str(tmp_path / "out")])


@pytest.mark.parametrize("with_ids", [True, False])
def test_alignment_index_on_a_shorter_file_names_the_flags(tmp_path, capsys, originals, with_ids):
    rows = [({"id": f"r{i}"} if with_ids else {}) | {"text": RECORDS[i]} for i in range(0, 8, 2)]
    code = _evaluate(tmp_path, originals, _jsonl(tmp_path / "s.jsonl", rows), "index")
    line = _error_line(capsys)
    assert code == 2 and "s.jsonl" in line and "--source-id-column" in line
    assert "sanitized_ids" not in line and "alignment='none'" not in line


def test_alignment_ids_without_ids_names_the_flags(tmp_path, capsys, originals):
    code = _evaluate(tmp_path, originals, _jsonl(tmp_path / "s.jsonl", [{"text": t} for t in RECORDS]), "ids")
    line = _error_line(capsys)
    assert code == 2 and "s.jsonl" in line and "--source-id-column" in line and "sanitized_ids" not in line


def test_alignment_index_on_rows_whose_ids_say_otherwise_is_refused(tmp_path, capsys, originals):
    shuffled = _jsonl(tmp_path / "s.jsonl", [{"id": f"r{i}", "text": RECORDS[i]} for i in reversed(range(8))])
    code = _evaluate(tmp_path, originals, shuffled, "index")
    line = _error_line(capsys)
    assert code == 2 and "'r7'" in line and "--alignment at auto" in line
    in_order = _jsonl(tmp_path / "t.jsonl", [{"id": f"r{i}", "text": RECORDS[i]} for i in range(8)])
    assert _evaluate(tmp_path, originals, in_order, "index") == 0  # ids that agree with the positions are fine


def test_the_api_refuses_index_alignment_against_the_ids():
    ids = [f"r{i}" for i in range(8)]
    with pytest.raises(ValueError, match="pass alignment='ids'"):
        evaluate_leakage(RECORDS, RECORDS[::-1], alignment="index", original_ids=ids, sanitized_ids=ids[::-1],
                         judge="lexical", use_cache=False)
    r = evaluate_leakage(RECORDS, RECORDS[::-1], original_ids=ids, sanitized_ids=ids[::-1], judge="lexical", bootstrap=0,
                         use_cache=False)
    assert r.linkage_rate == 1.0
