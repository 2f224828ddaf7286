"""LLM refusals are counted in every report (issue 27, "Done means"): report.json had ``llm_refusals``, but
the report page (``textleak evaluate --html``, ``textleak study``), summary.csv, study.json and the study's
terminal table did not show them, and the study counted a sanitizer's refusals only among its failed records."""

from __future__ import annotations

import csv
import json

from textleak.judges.llm import LLMJudge
from textleak.leakage import LeakageConfig, evaluate_leakage
from textleak.llm import ScriptedLM

ORIGINALS = [
    "A 34-year-old woman presents with fever. She works as a nurse in Leeds. She has a cough.",
    "A 61-year-old man has chest pain. He smokes two packs a day. He lives in Boston.",
    "A 25-year-old student reports headaches. She drinks coffee daily. She studies law.",
]


def test_judge_refusals_are_on_the_evaluate_report_page(tmp_path, monkeypatch):
    from textleak.report.evaluate_page import write_evaluate_report

    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    lm = ScriptedLM(lambda p, i, s: "I'm sorry, but I cannot rate these claims.", name="refusing-judge")
    report = evaluate_leakage(ORIGINALS, ORIGINALS, judge=LLMJudge(lm, max_retries=0), bootstrap=0, use_cache=False,
                              max_unparsed_share=1.0)
    refused = report.llm_refusals["judge"]
    assert refused > 0
    row = {"sanitizer": "released", **report.summary()}
    paths = write_evaluate_report(tmp_path / "out", "a.jsonl", ORIGINALS, [row],
                                  {"released": [r.to_dict() for r in report.records]})
    page = paths["html"].read_text(encoding="utf-8")
    assert f"released: the LLM refused judge {refused}" in page
    (csv_row,) = csv.DictReader(paths["csv"].open(encoding="utf-8"))
    assert json.loads(csv_row["llm_refusals"])["judge"] == refused
    assert json.loads(paths["json"].read_text())["rows"][0]["llm_refusals"]["judge"] == refused


def test_a_study_counts_its_sanitizer_refusals_on_every_report(tmp_path, monkeypatch):
    from textleak.registry import sanitizers
    from textleak.report import summary_text
    from textleak.sanitize.base import SanitizeResult, Sanitizer
    from textleak.sanitize.llm import STATUS_REFUSAL
    from textleak.study import StudyConfig, run_study

    class RefusesTwo(Sanitizer):
        """Refuses the first two records (as an LLM sanitizer's refusal status), keeps the others."""

        def sanitize_batch(self, texts, seeds):
            return [SanitizeResult(None, STATUS_REFUSAL) if "nurse" in t or "chest" in t else SanitizeResult(t, "ok")
                    for t in texts]

    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(sanitizers._items, "refuses_two", RefusesTwo)
    data = tmp_path / "a.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(ORIGINALS)))
    cfg = StudyConfig(dataset=str(data), sanitizers=["refuses_two"], utility=False,
                      linkage_ablation=False, output=str(tmp_path / "study"),
                      leakage=LeakageConfig(judge="lexical", bootstrap=0))
    result = run_study(cfg, progress=False)
    (row,) = result["rows"]
    assert row["failed_records"] == 2 and row["llm_refusals"]["sanitizer"] == 2
    note = "refuses_two: the LLM refused sanitizer 2"
    assert note in summary_text(result["rows"])
    assert note in (tmp_path / "study" / "report.html").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "study" / "study.json").read_text())["rows"][0]["llm_refusals"]["sanitizer"] == 2


def test_evaluate_counts_the_sanitizers_refusals_from_a_run_and_from_a_file(tmp_path, monkeypatch, capsys):
    """Before: `textleak evaluate --sanitizer` and a `textleak sanitize` file with status 'refusal' counted the
    refused records only as missing (released unsanitized), not as refusals."""
    from textleak.cli import main
    from textleak.registry import sanitizers
    from textleak.sanitize.base import SanitizeResult, Sanitizer
    from textleak.sanitize.llm import STATUS_REFUSAL

    class RefusesOne(Sanitizer):
        def sanitize_batch(self, texts, seeds):
            return [SanitizeResult(None, STATUS_REFUSAL) if "nurse" in t else SanitizeResult("An adult.", "ok") for t in texts]

    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(sanitizers._items, "refuses_one", RefusesOne)
    src = tmp_path / "a.jsonl"
    src.write_text("".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(ORIGINALS)))
    options = ["--judge", "lexical", "--bootstrap", "0", "--no-progress", "--html"]
    assert main(["evaluate", "--originals", str(src), "--sanitizer", "refuses_one", *options, "--output", str(tmp_path / "o1")]) == 0
    assert main(["sanitize", "--sanitizer", "refuses_one", "--input", str(src), "--output", str(tmp_path / "b.jsonl")]) == 0
    assert main(["evaluate", "--originals", str(src), "--sanitized", str(tmp_path / "b.jsonl"), *options,
                 "--output", str(tmp_path / "o2")]) == 0
    printed = capsys.readouterr().out
    for out in ("o1", "o2"):
        (row,) = json.loads((tmp_path / out / "report.json").read_text())["results"]
        assert row["llm_refusals"]["sanitizer"] == 1 and row["n_missing"] == 1
        assert "the LLM refused sanitizer 1" in (tmp_path / out / "report.html").read_text(encoding="utf-8")
    assert printed.count("the LLM refused: sanitizer 1") == 2
