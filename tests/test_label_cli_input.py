"""`textleak label` reads a records file with the one JSON-lines reader: a bad line is one clear line."""

from __future__ import annotations

import pytest

from textleak.cli import main

GOOD = '{"index": 0, "id": "a", "privacy": 1.0, "claims": [{"text": "x", "rating": 3, "score": 1.0, "status": "ok"}]}\n'


@pytest.mark.parametrize("bad,problem", [('{"index": 1, "claims": [}\n', "line 2 is not valid JSON"),
                                         ("[1, 2]\n", "line 2 is not a JSON object")])
@pytest.mark.parametrize("mode", [["--plan"], ["--n", "5", "--export", "x.csv"]])
def test_a_bad_records_line_is_one_line_naming_file_and_line(tmp_path, capsys, bad, problem, mode):
    records = tmp_path / "out" / "identity" / "records.jsonl"  # a textleak study folder
    records.parent.mkdir(parents=True)
    records.write_text(GOOD + bad, encoding="utf-8")
    mode = [str(tmp_path / m) if m.endswith(".csv") else m for m in mode]
    assert main(["label", str(tmp_path / "out"), *mode]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{records} {problem}" in err
    with pytest.raises(ValueError, match=problem):
        main(["label", str(tmp_path / "out"), *mode, "--debug"])


@pytest.mark.parametrize("report,problem", [('{"results": [', "not valid JSON"), ("[]", "expected a JSON object"),
                                            ('{"results": [{"sanitizer": "identity"}]}', "result 0 has no")])
def test_a_damaged_report_is_one_line_naming_the_file(tmp_path, capsys, report, problem):
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.json").write_text(report, encoding="utf-8")
    assert main(["label", str(out), "--plan"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(out / "report.json") in err and problem in err
