"""``textleak evaluate --html`` writes the study's report page; the page drops empty plots and shows
one linkage figure per strategy (issue 28, item 4)."""

from __future__ import annotations

import json

import pytest

from textleak.cli import main
from textleak.report import render_html, write_report

ORIGINALS = [
    {"id": "a", "text": "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle."},
    {"id": "b", "text": "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps."},
    {"id": "c", "text": "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin."},
]


def test_evaluate_html_writes_the_study_page(tmp_path):
    src = tmp_path / "combined.jsonl"
    rows = [{**r, "sanitized": r["text"].split(". ", 1)[1]} for r in ORIGINALS]  # the name sentence dropped
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    assert main(["evaluate", "--originals", str(src), "--judge", "lexical", "--bootstrap", "50", "--no-cache",
                 "--no-progress", "--output", str(out), "--html"]) == 0
    (row,) = json.loads((out / "report.json").read_text())["results"]
    page = (out / "report.html").read_text()
    assert "textleak privacy-utility report" in page and row["sanitizer"] == "combined"
    assert f"<td>{row['semantic_privacy']:.3f}" in page  # the same number as report.json
    assert all(f"record {r['id']}" in page for r in ORIGINALS)  # the drill-down
    assert "fig-privacy-utility" not in page and not (out / "privacy_utility.png").exists()  # no utility: no empty frame
    assert "Linkage with first" not in page  # no ablation was run: no section
    assert main(["evaluate", "--originals", str(src), "--judge", "lexical", "--bootstrap", "0", "--no-cache",
                 "--no-progress", "--output", str(tmp_path / "plain")]) == 0
    assert not (tmp_path / "plain" / "report.html").exists()  # only when asked


def _row(name, utility=None, linkage=None):
    return {"sanitizer": name, "semantic_privacy": 0.5, "lexical_privacy": 0.4, "linkage_rate": 0.9, "utility": utility,
            "utility_name": "MedQA accuracy", "n_records": 2, **({"linkage": linkage} if linkage else {})}


def test_the_page_has_no_empty_privacy_utility_plot(tmp_path):
    paths = write_report({"dataset": "d", "rows": [_row("a"), _row("b")]}, tmp_path / "none")
    assert "privacy_utility" not in paths and "fig-privacy-utility" not in paths["html"].read_text()
    paths = write_report({"dataset": "d", "rows": [_row("a", 0.6), _row("b")]}, tmp_path / "some")
    assert paths["privacy_utility"].exists() and "fig-privacy-utility" in paths["html"].read_text()
    page = render_html({"rows": [_row("a", linkage={"first": 1.0, "random": 0.9, "last": 0.8})]}, {})
    assert "Linkage with first / random / last" in page


def test_the_ablation_random_rate_is_the_reports_linkage_rate():
    """One figure per strategy: the study's ablation uses the pipeline's own stages, so its entry for
    the report's strategy (random) is the report's linkage_rate, not a second draw."""
    from textleak.data.vignettes import DEMO_PATH
    from textleak.io import read_records
    from textleak.leakage import LeakageConfig, evaluate_leakage
    from textleak.study import linkage_rates

    texts = [r["text"] for r in read_records(str(DEMO_PATH), limit=40, row_ids=False)]
    texts += texts[:6]  # a dataset with repeated records (MedQA has some): linking to a twin is a correct link
    # a release that keeps only every third sentence: some records link, some do not
    released = [". ".join(t.split(". ")[::3]) for t in texts]
    config = LeakageConfig(judge="lexical", bootstrap=0, use_cache=False, seed=3)
    rates = linkage_rates(texts, released, config=config)
    report = evaluate_leakage(texts, released, config, alignment="index", empty_originals="skip")
    assert 0.0 < report.linkage_rate < 1.0
    assert rates["random"] == pytest.approx(report.linkage_rate)
