"""``textleak evaluate``: the demo run, file inputs (JSONL, CSV, parquet, save_to_disk), outputs."""

from __future__ import annotations

import json

import pytest

from textleak.cli import main
from textleak.io import read_records

ORIGINALS = [
    {"id": "a", "text": "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle."},
    {"id": "b", "text": "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps."},
    {"id": "c", "text": "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin."},
]


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_demo_run_identity_and_remove_all(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["evaluate", "--judge", "lexical", "--limit", "12", "--sanitizer", "identity,remove_all",
                 "--output", str(out), "--bootstrap", "100", "--no-progress"]) == 0
    table = capsys.readouterr().out
    assert "identity" in table and "remove_all" in table and "semantic privacy" in table
    report = json.loads((out / "report.json").read_text())
    rows = {r["sanitizer"]: r for r in report["results"]}
    assert report["n_originals"] == 12 and report["originals"].endswith("demo_medqa.jsonl")
    assert rows["identity"]["linkage_rate"] == 1.0 and rows["identity"]["semantic_privacy"] <= 0.2
    assert rows["remove_all"]["semantic_privacy"] == 1.0 and rows["remove_all"]["n_unlinked"] == 12
    assert rows["identity"]["n_claims"] == rows["remove_all"]["n_claims"] > 12 * 10  # same claims for both
    lines = [json.loads(l) for l in (out / "records-identity.jsonl").read_text().splitlines()]
    assert len(lines) == 12
    rec = lines[0]
    assert rec["linked_id"] == rec["id"] and rec["correct_link"] is True and rec["link_score"] > 0
    assert len(rec["known_claims"]) == 3 and sum(c["known"] for c in rec["claims"]) == 3
    assert all("rating" in c for c in rec["claims"] if not c["known"])


def test_separate_sanitized_file_with_missing_record(tmp_path, capsys):
    originals = _write_jsonl(tmp_path / "orig.jsonl", ORIGINALS)
    sanitized = _write_jsonl(tmp_path / "san.jsonl", [ORIGINALS[2], {"id": "a", "text": ""}])
    out = tmp_path / "out"
    assert main(["evaluate", "--originals", str(originals), "--sanitized", str(sanitized), "--judge", "lexical",
                 "--output", str(out), "--no-progress"]) == 0
    (row,) = json.loads((out / "report.json").read_text())["results"]
    assert row["settings"]["alignment"] == "ids" and row["n_sanitized"] == 3 and row["n_missing"] == 1
    recs = {json.loads(l)["id"]: json.loads(l) for l in (out / "records-san.jsonl").read_text().splitlines()}
    assert recs["c"]["correct_link"] is True and recs["a"]["correct_link"] is False
    assert recs["b"]["sanitized_missing"] is True and recs["b"]["correct_link"] is True  # released as it was


def test_combined_csv_and_parquet_and_disk_inputs(tmp_path, capsys):
    import datasets
    import pandas as pd

    df = pd.DataFrame([{"rid": r["id"], "body": r["text"], "clean": r["text"]} for r in ORIGINALS])
    df.to_csv(tmp_path / "both.csv", index=False)
    df.to_parquet(tmp_path / "both.parquet")
    datasets.Dataset.from_pandas(df).save_to_disk(str(tmp_path / "both_ds"))
    for source in ("both.csv", "both.parquet", "both_ds"):
        out = tmp_path / f"out_{source}"
        assert main(["evaluate", "--originals", str(tmp_path / source), "--text-column", "body", "--sanitized-column", "clean",
                     "--id-column", "rid", "--judge", "lexical", "--output", str(out), "--no-progress", "--bootstrap", "0"]) == 0
        (row,) = json.loads((out / "report.json").read_text())["results"]
        # the row names the file and its column (issue 28, item 6), not the bare column
        assert row["sanitizer"] == source.split(".")[0] + ":clean" and row["linkage_rate"] == 1.0 and row["semantic_privacy"] == 0.0


def test_read_records_errors_name_the_problem(tmp_path):
    path = _write_jsonl(tmp_path / "x.jsonl", [{"body": "a"}])
    with pytest.raises(ValueError, match="no column 'text'; columns: body"):
        read_records(str(path))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "a"}\n{oops\n')
    with pytest.raises(ValueError, match="line 2 is not valid JSON"):
        read_records(str(bad))
    with pytest.raises(TypeError, match="row 0: column 'text' is int"):
        read_records(str(_write_jsonl(tmp_path / "n.jsonl", [{"text": 5}])))
    with pytest.raises(FileNotFoundError):
        read_records(str(tmp_path / "missing.jsonl"))


def test_raw_medqa_lines_give_the_profile(shared_data):
    recs = read_records(str(shared_data / "medqa" / "sampled_50.jsonl"), limit=2)
    assert recs[0]["text"].startswith("A 62-year-old patient") and not recs[0]["text"].rstrip().endswith("?")
    assert recs[0]["id"] == "23"


def test_failed_sanitization_counts_as_released_or_stops_with_a_clear_error(tmp_path, capsys):
    originals = _write_jsonl(tmp_path / "orig.jsonl", [{**r, "sanitized": None if r["id"] == "b" else r["text"]} for r in ORIGINALS])
    assert main(["evaluate", "--originals", str(originals), "--judge", "lexical", "--output", str(tmp_path / "o"), "--no-progress"]) == 0
    (row,) = json.loads((tmp_path / "o" / "report.json").read_text())["results"]
    assert row["n_missing"] == 1 and row["semantic_privacy"] == pytest.approx(0.0)  # released as it was: it leaks
    assert "1 records had no sanitized version" in capsys.readouterr().out
    assert main(["evaluate", "--originals", str(originals), "--judge", "lexical", "--output", str(tmp_path / "o"), "--no-progress",
                 "--missing", "error"]) == 2
    assert "1 of 3 originals have no sanitized record (ids 'b')" in capsys.readouterr().err


def test_evaluate_with_utility_adds_a_column_and_report_entry(tmp_path, capsys, monkeypatch):
    """--utility measures the other axis: MedQA accuracy from each sanitized profile."""
    import json as _json

    from textleak.cli import main as cli_main
    from textleak.llm import ScriptedLM

    scripted = ScriptedLM(lambda p, i, s: "A", scorer=lambda p, c: 0.0 if c.strip() == "A" else -5.0, name="always-A")
    monkeypatch.setattr("textleak.utility._lm", lambda llm: scripted)
    out = tmp_path / "u"
    assert cli_main(["evaluate", "--limit", "10", "--sanitizer", "identity,remove_all", "--utility", "auto",
                     "--output", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "utility" in text.splitlines()[0]
    results = _json.loads((out / "report.json").read_text())["results"]
    from textleak.io import read_records
    from textleak.data.vignettes import DEMO_PATH

    recs = read_records(str(DEMO_PATH), limit=10)
    expected = sum(r["answer_idx"] == "A" for r in recs) / 10
    assert [r["utility"]["value"] for r in results] == [expected, expected]
    assert all(r["utility"]["task"] == "medqa" for r in results)
