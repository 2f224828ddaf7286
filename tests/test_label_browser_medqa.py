"""Issue 26's done-means, literally: ``textleak evaluate --labels`` end to end on a run over real MedQA
records (the shared sample) with the default judge (NLI), labelled through the page in a real browser.
tests/test_label_browser.py drives every control of the page on synthetic MedQA-style records with the
lexical judge; this one runs what a user runs, where the judge's span is often in the reader's form."""

from __future__ import annotations

import json
import re
import sys
import urllib.request

import pytest
from _browser import start_label_page, stop_process

from sanitizers.record import change_numbers
from textleak.cli import main
from textleak.data.medqa import read_medqa_jsonl
from textleak.leakage.labels import read_labels

N = 9


@pytest.mark.slow
@pytest.mark.browser
def test_medqa_run_with_the_default_judge_labelled_in_a_browser(shared_data, tmp_path, capsys):
    from _browser import chromium
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    records = list(read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"))[:10]
    src = tmp_path / "medqa.jsonl"
    # half the records released as they are, half with every number changed: claims of every rating
    src.write_text("".join(json.dumps({"id": r["id"], "text": r["text"], "sanitized": r["text"] if k % 2 else change_numbers(r["text"])})
                           + "\n" for k, r in enumerate(records)))
    out = tmp_path / "out"
    args = ["evaluate", "--originals", str(src), "--sanitized-column", "sanitized", "--skip-empty-originals", "--bootstrap", "100",
            "--output", str(out), "--no-progress", "--html"]
    assert main(args) == 0
    (row,) = json.loads((out / "report.json").read_text())["results"]
    assert row["judge"]["name"] == "nli"

    proc, url = start_label_page(out, N)
    try:
        token = url.split("token=", 1)[1]
        state = json.loads(urllib.request.urlopen(urllib.request.Request(url.split("?")[0] + "api/state",
                                                                         headers={"X-Token": token})).read())
        spans = {it["claim"]: it for it in state["items"]}
        with chromium() as driver:
            driver.get(url)
            wait = WebDriverWait(driver, 30)
            wait.until(lambda d: d.find_element(By.ID, "progress").text.startswith(f"0 of {N}"))
            body = driver.find_element(By.TAG_NAME, "body")
            for k in range(N):
                it = spans[driver.find_element(By.ID, "claim").text]
                marks = driver.find_elements(By.CSS_SELECTOR, "#released mark")
                assert len(marks) == (1 if it["span_at"] else 0), it  # the judge's best span (or its sentence) marked
                body.send_keys(str(k % 3 + 1))
                wait.until(lambda d, n=k + 1: d.find_element(By.ID, "progress").text.startswith(f"{n} of {N}"))
            wait.until(lambda d: d.find_element(By.ID, "done").is_displayed())
        assert sum(1 for it in state["items"] if it["span_at"]) >= N - 2  # nearly every claim has its span marked
    finally:
        stop_process(proc)
    labels_file = out / "labels-medqa.jsonl"
    assert sum(v is not None for v in read_labels(labels_file).values()) == N

    capsys.readouterr()
    assert main(args + ["--labels", str(labels_file)]) == 0
    printed = capsys.readouterr().out
    assert re.search(rf"semantic privacy \d\.\d\d \[\d\.\d\d, \d\.\d\d\] with {N} labels \(judge alone \d\.\d\d \[", printed), printed
    assert "Spearman" in printed and "confusion" in printed
    (row,) = json.loads((out / "report.json").read_text())["results"]
    assert row["labelled"]["n_labels"] == N and row["labelled"]["judge_alone"]["semantic_privacy"] == pytest.approx(row["semantic_privacy"])
    assert "id='labelled'" in (out / "report.html").read_text()
