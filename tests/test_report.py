"""The study report: files, numbers on the page, and (in headless Chromium) plots and drill-down."""

from __future__ import annotations

import csv
import json
import re

import pytest

from textleak.report import render_html, summary_text, write_report


def _result():
    claims = [
        {"text": "She is 45 years old.", "rating": 1, "score": 0.0, "status": "ok"},
        {"text": "She has a cough.", "rating": 2, "score": 0.5, "status": "ok"},
        {"text": "She lives in Ohio.", "rating": 3, "score": 1.0, "status": "ok"},
        {"text": "She smokes.", "rating": None, "score": None, "status": "unparsed"},
    ]
    rec = {"id": "r0", "original": "A 45-year-old woman from Ohio has a cough. She smokes.", "linked_id": "r0",
           "linked_text": "A woman in her forties has a cough.", "link_score": 7.5,
           "known_claims": ["She is a woman."], "claims": claims}
    return {
        "dataset": "demo", "n_records": 2, "textleak_version": "0.1.0", "settings": {"judge": {"name": "embedding"}},
        "rows": [
            {"sanitizer": "identity", "semantic_privacy": 0.05, "semantic_ci95": [0.02, 0.08], "lexical_privacy": 0.0,
             "lexical_ci95": [0.0, 0.0], "linkage_rate": 1.0, "utility": 0.62, "utility_ci95": [0.5, 0.7],
             "utility_name": "MedQA accuracy", "coherence": 4.5, "unparsed_claims": 0, "n_records": 2,
             "linkage": {"first": 1.0, "random": 1.0, "last": 0.98}},
            {"sanitizer": "remove_all", "semantic_privacy": 1.0, "semantic_ci95": [1.0, 1.0], "lexical_privacy": 1.0,
             "linkage_rate": 0.04, "utility": 0.44, "utility_name": "MedQA accuracy", "coherence": None,
             "unparsed_claims": 1, "n_records": 2},
        ],
        "dp_sweep": [{"epsilon": "inf", "semantic_privacy": 0.4, "lexical_privacy": 0.7, "utility": 0.5},
                     {"epsilon": 3, "semantic_privacy": 0.8, "lexical_privacy": 0.9, "utility": 0.45}],
        "records": {"identity": [rec, {**rec, "id": "r1", "linked_id": None, "linked_text": None}]},
    }


def test_write_report_files_and_numbers(tmp_path):
    paths = write_report(_result(), tmp_path)
    for key in ("html", "json", "csv", "privacy_utility", "dp_sweep", "dp_csv"):
        assert paths[key].exists() and paths[key].stat().st_size > 0, key
    assert paths["privacy_utility"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = paths["html"].read_text()
    assert "http://" not in page and "https://" not in page  # self-contained: nothing fetched
    assert page.count("<details class='record'>") == 2
    assert "0.050" in page and "[0.02, 0.08]" in page
    assert "1 of 4 claims leaked" in page  # one rating-1 claim; the unparsed one is not counted as safe
    assert "<em>not linked</em>" in page
    rows = list(csv.DictReader(open(paths["csv"])))
    assert [r["sanitizer"] for r in rows] == ["identity", "remove_all"]
    assert float(rows[1]["semantic_privacy"]) == 1.0
    assert "records" not in json.loads(paths["json"].read_text())


def test_unparsed_claims_are_shown_as_unparsed_not_safe():
    page = render_html(_result(), {"privacy_utility": b"x"})
    m = re.search(r"<li class='claim (\w+)'><span class='badge'>unparsed</span> She smokes.", page)
    assert m and m.group(1) == "unparsed"


def test_summary_text_aligns_columns():
    text = summary_text(_result()["rows"])
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["sanitizer", "semantic", "lexical"]
    assert lines[2].split()[:3] == ["identity", "0.050", "0.000"]
    assert lines[3].split()[4] == "0.440" and lines[3].split()[5] == "-"
    assert len({len(l.rstrip()) for l in lines[:2]}) == 1


@pytest.mark.browser
def test_report_in_browser_plots_render_and_drilldown_expands(tmp_path):
    from _browser import chromium

    paths = write_report(_result(), tmp_path)
    with chromium() as driver:
        driver.get(paths["html"].as_uri())
        for img_id in ("fig-privacy-utility", "fig-dp-sweep"):
            width = driver.execute_script(f"return document.getElementById('{img_id}').naturalWidth")
            assert width > 200, f"{img_id} did not render"
        details = driver.find_elements("css selector", "details.record")
        assert len(details) == 2 and details[0].get_attribute("open") is None
        claim = details[0].find_element("css selector", "li.claim.leak")
        assert not claim.is_displayed()
        details[0].find_element("tag name", "summary").click()
        assert details[0].get_attribute("open") is not None
        assert claim.is_displayed() and "45 years old" in claim.text
        driver.save_screenshot(str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").stat().st_size > 10_000
