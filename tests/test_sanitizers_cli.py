"""`textleak sanitize`: registry names, options, formats, columns, errors."""

from __future__ import annotations

import json

import pytest

from textleak.cli import main
from textleak.commands.sanitize import parse_options


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_parse_options_types():
    assert parse_options(["rounds=2", "operator=replace", "entities=[\"PERSON\"]", "max-chars=null", "x=1.5"]) == {
        "rounds": 2, "operator": "replace", "entities": ["PERSON"], "max_chars": None, "x": 1.5}
    with pytest.raises(ValueError, match="key=value"):
        parse_options(["novalue"])


def test_sanitize_remove_all_jsonl(tmp_path):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write_jsonl(src, [{"id": "1", "body": "Ann, 33, Leeds", "question": "q"}, {"id": "2", "body": "Bo", "question": "r"}])
    assert main(["sanitize", "--sanitizer", "remove_all", "--input", str(src), "--output", str(dst),
                 "--text-column", "body", "--output-column", "clean"]) == 0
    rows = _read_jsonl(dst)
    assert [r["clean"] for r in rows] == ["", ""]
    assert [r["body"] for r in rows] == ["Ann, 33, Leeds", "Bo"]
    assert rows[0]["question"] == "q" and rows[0]["sanitize_status"] == "ok"


@pytest.mark.slow
def test_sanitize_presidio_csv_with_option(tmp_path):
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("id,text\n1,John Smith lives in Boston.\n2,No names.\n", encoding="utf-8")
    assert main(["sanitize", "--sanitizer", "presidio", "--input", str(src), "--output", str(dst),
                 "--option", "operator=replace"]) == 0
    import csv

    rows = list(csv.DictReader(dst.open(encoding="utf-8")))
    assert [r["sanitized"] for r in rows] == ["<PERSON> lives in <LOCATION>.", "No names."]


def test_errors_are_clear(tmp_path, capsys):
    """Every user error is one line naming the problem and exit status 2; --debug raises it instead."""
    src = tmp_path / "in.jsonl"
    _write_jsonl(src, [{"text": "a"}, {"text": None}])
    assert main(["sanitize", "--sanitizer", "identity", "--input", str(src), "--output", str(tmp_path / "o.jsonl")]) == 2
    for extra, match in ((["--sanitizer", "nope"], "unknown sanitizer 'nope'"),
                         (["--sanitizer", "presidio", "--llm", "embedded"], "does not use an LLM"),
                         (["--sanitizer", "presidio", "--option", "operator=blur"], "unknown operator")):
        capsys.readouterr()
        assert main(["sanitize", *extra, "--input", str(src), "--output", str(tmp_path / "o.jsonl")]) == 2
        err = capsys.readouterr().err
        assert match in err and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(KeyError, match="unknown sanitizer 'nope'"):
        main(["sanitize", "--sanitizer", "nope", "--input", str(src), "--output", str(tmp_path / "o.jsonl"), "--debug"])
