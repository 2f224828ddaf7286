"""`textleak study`: every stage for every sanitizer, resume after interruption, the report."""

from __future__ import annotations

import json

import pytest

from textleak.cli import main
from textleak.llm import ScriptedLM
from textleak.leakage import LeakageConfig
from textleak.registry import sanitizers
from textleak.study import StudyConfig, load_study_records, run_study


def _reader(limit: int):
    """A utility model that answers right when the record's own profile is in the prompt, else "A":
    it measures something (it beats chance on the originals), so the study reports its numbers."""
    _, records = load_study_records(StudyConfig(dataset="demo", limit=limit))
    answer_of = {r["text"][:60]: r["answer_idx"] for r in records}

    def scorer(prompt, choice):
        answer = next((a for key, a in answer_of.items() if key in prompt), "A")
        return 0.0 if choice.strip() == answer else -5.0

    return ScriptedLM(lambda p, i, s: "A", scorer=scorer, name="profile-reader")


def test_study_rows_utility_and_resume(tmp_path, monkeypatch):
    cfg = StudyConfig(dataset="demo", limit=16, sanitizers=["identity", "remove_all"], llm=_reader(16),
                      output=str(tmp_path / "study"), leakage=LeakageConfig(bootstrap=200))
    result = run_study(cfg, progress=False)
    _, records = load_study_records(cfg)
    expected = {"identity": 1.0, "remove_all": sum(r["answer_idx"] == "A" for r in records) / len(records)}
    rows = {r["sanitizer"]: r for r in result["rows"]}
    assert rows["remove_all"]["semantic_privacy"] == 1.0 and rows["remove_all"]["lexical_privacy"] == 1.0
    assert rows["identity"]["semantic_privacy"] < 0.3 < rows["remove_all"]["semantic_privacy"]
    assert rows["identity"]["linkage_rate"] >= 0.9
    # the first 3 claims of the rule atomizer v2 are the demographic atoms ("The patient is 51 years old.", "The
    # patient is a man.", "The patient works night shifts."), which the templated demo records share: 14 of 16
    # link with them (v1's whole opening sentence: 15 or 16); random and last claims still link all 16
    assert rows["identity"]["linkage"]["first"] >= 0.85 and rows["remove_all"]["linkage"]["first"] <= 1 / 16
    assert rows["identity"]["linkage"]["random"] >= 0.9
    for name, row in rows.items():
        assert row["utility"] == pytest.approx(expected[name])
        lo, hi = row["utility_ci95"]
        assert lo <= expected[name] <= hi
    # drill-down: identity links every record to itself and shows the original text beside it
    first = result["records"]["identity"][0]
    assert first["linked_text"] == first["original"] and first["known_claims"]
    assert all(not c.get("known") for c in first["claims"])
    page = (tmp_path / "study" / "report.html").read_text()
    assert page.count("<details class='record'>") == 32
    assert "id='judge-name'>nli</b>" in page and "hand-written labels" in page  # the judge and its measured agreement
    assert result["judge"]["name"] == "nli"

    # resume: no stage runs again (a sanitizer or judge call would fail now)
    def boom(*a, **k):
        raise AssertionError("stage recomputed on resume")

    monkeypatch.setattr("textleak.sanitize.create_sanitizer", boom)
    monkeypatch.setattr("textleak.leakage.evaluate_leakage", boom)
    again = run_study(cfg, progress=False)
    assert [r["semantic_privacy"] for r in again["rows"]] == [r["semantic_privacy"] for r in result["rows"]]


def test_interrupted_stage_file_is_not_taken_for_finished(tmp_path):
    cfg = StudyConfig(dataset="demo", limit=6, sanitizers=["identity"], utility=False, linkage_ablation=False,
                      output=str(tmp_path / "s"), leakage=LeakageConfig(bootstrap=100))
    (tmp_path / "s" / "identity").mkdir(parents=True)
    (tmp_path / "s" / "identity" / "sanitized.tmp").write_text('{"id": "0", "sanitized": "half')  # a crash mid-write
    result = run_study(cfg, progress=False)
    assert result["rows"][0]["semantic_privacy"] is not None
    rows = [json.loads(l) for l in open(tmp_path / "s" / "identity" / "sanitized.jsonl")]
    assert len(rows) == 6 and all(r["status"] == "ok" for r in rows)


def test_study_command_prints_table_and_writes_report(tmp_path, capsys):
    out = tmp_path / "cli"
    code = main(["study", "--dataset", "demo", "--limit", "8", "--sanitizers", "identity,remove_all",
                 "--no-utility", "--output", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    lines = [l for l in text.splitlines() if l.startswith(("identity", "remove_all"))]
    assert lines[0].split()[0] == "identity" and lines[1].split()[1] == "1.000"
    for name in ("report.html", "summary.csv", "study.json", "config.json"):
        assert (out / name).exists(), name
    # --no-utility: no empty privacy-vs-utility frame on the page (issue 28, item 4)
    assert not (out / "privacy_utility.png").exists() and "fig-privacy-utility" not in (out / "report.html").read_text()


def test_study_config_yaml_rejects_unknown_keys(tmp_path):
    path = tmp_path / "study.yaml"
    path.write_text("dataset: demo\nsanitizers: identity,remove_all\n")
    assert StudyConfig.from_yaml(path, limit=3).sanitizers == ["identity", "remove_all"]
    path.write_text("dataset: demo\nsanitiser: identity\n")
    with pytest.raises(ValueError, match="sanitiser"):
        StudyConfig.from_yaml(path)


@pytest.mark.browser
def test_study_report_drilldown_in_browser(tmp_path):
    from _browser import chromium

    cfg = StudyConfig(dataset="demo", limit=5, sanitizers=["identity", "remove_all"], utility=False,
                      output=str(tmp_path / "b"), leakage=LeakageConfig(bootstrap=100))
    run_study(cfg, progress=False)
    with chromium() as driver:
        driver.get((tmp_path / "b" / "report.html").as_uri())
        # utility=False: the page has no (empty) privacy-utility plot (issue 28, item 4)
        assert driver.execute_script("return document.getElementById('fig-privacy-utility')") is None
        record = driver.find_elements("css selector", "div.records[data-sanitizer='identity'] details.record")[0]
        record.find_element("tag name", "summary").click()
        claims = record.find_elements("css selector", "ul.claims li.claim")
        assert claims and all(c.is_displayed() for c in claims)
        assert record.find_element("css selector", "ul.known li").is_displayed()


def test_failed_records_count_as_leaked_not_private(tmp_path, monkeypatch):
    """A sanitizer that fails on every record must not look private: failures are released as-is."""
    from textleak.sanitize.base import SanitizeResult, Sanitizer

    class AlwaysFails(Sanitizer):
        name = "always_fails"

        def sanitize_batch(self, texts, seeds):
            return [SanitizeResult(None, "llm_error") for _ in texts]

    monkeypatch.setitem(sanitizers._items, "always_fails", AlwaysFails)  # registered for this test only
    cfg = StudyConfig(dataset="demo", limit=8, sanitizers=["always_fails"], llm=_reader(8), linkage_ablation=False,
                      output=str(tmp_path / "f"), leakage=LeakageConfig(bootstrap=100))
    row = run_study(cfg, progress=False)["rows"][0]
    assert row["failed_records"] == 8
    assert row["semantic_privacy"] < 0.3 and row["linkage_rate"] >= 0.9  # judged as the originals
    assert row["utility"] == 0.0  # and no answer could be given from a failed record
