"""``textleak label`` in a real browser: a MedQA run labelled through the page (keys, back, skip,
progress, resume after a restart), then ``textleak evaluate --labels`` on those labels."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from _browser import start_label_page, stop_process

from textleak.cli import main
from textleak.data.vignettes import DEMO_PATH
from textleak.io import read_records
from textleak.leakage.labels import read_labels

N = 12


def _mangle(text: str) -> str:
    """A partial sanitizer: keeps a third of the sentences, blurs the numbers of another third."""
    parts = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(s if i % 3 == 0 else (re.sub(r"\d+", "several", s) if i % 3 == 1 else "") for i, s in enumerate(parts))


@pytest.mark.browser
def test_label_medqa_run_in_browser_then_evaluate_with_labels(tmp_path, capsys):
    from _browser import chromium
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    recs = read_records(str(DEMO_PATH), limit=20)
    originals = tmp_path / "medqa.jsonl"
    originals.write_text("".join(json.dumps({"id": r["id"], "text": r["text"], "sanitized": _mangle(r["text"])}) + "\n" for r in recs))
    out = tmp_path / "out"
    args = ["evaluate", "--originals", str(originals), "--sanitized-column", "sanitized", "--judge", "lexical",
            "--bootstrap", "200", "--output", str(out), "--no-progress"]
    assert main(args) == 0
    (records_file,) = out.glob("records-*.jsonl")
    labels_file = out / records_file.name.replace("records-", "labels-", 1)

    def progress(driver) -> str:
        return driver.find_element(By.ID, "progress").text

    proc, url = start_label_page(out, N)
    answers = []
    try:
        with chromium() as driver:
            driver.get(url)
            wait = WebDriverWait(driver, 20)
            wait.until(lambda d: progress(d).startswith("0 of 12"))
            claim = driver.find_element(By.ID, "claim").text
            assert claim and driver.find_element(By.ID, "released").text
            assert "Unsupported" in driver.find_element(By.ID, "rubric").text
            body = driver.find_element(By.TAG_NAME, "body")
            for k in range(7):  # 1/2/3 by key, in turn
                before = driver.find_element(By.ID, "claim").text
                key = str(k % 3 + 1)
                body.send_keys(key)
                answers.append((before, int(key)))
                wait.until(lambda d, n=k + 1: progress(d).startswith(f"{n} of 12"))
            body.send_keys(Keys.ARROW_LEFT)  # back to the 7th and change its answer to 3
            wait.until(lambda d: d.find_element(By.ID, "claim").text == answers[-1][0])
            driver.find_element(By.ID, "b3").click()
            answers[-1] = (answers[-1][0], 3)
            wait.until(lambda d: d.find_element(By.ID, "claim").text != answers[-1][0])
            driver.find_element(By.ID, "skip").click()  # the 8th: skipped
            wait.until(lambda d: "1 skipped" in progress(d))
            assert progress(driver).startswith("7 of 12")
    finally:
        stop_process(proc)
    saved = read_labels(labels_file)
    assert sum(v is not None for v in saved.values()) == 7 and sum(v is None for v in saved.values()) == 1
    assert sorted(v for v in saved.values() if v is not None) == sorted(a for _, a in answers)

    proc, url = start_label_page(out, N)  # a restart resumes: the same sample, the answers so far, the next open claim
    try:
        with chromium() as driver:
            driver.get(url)
            wait = WebDriverWait(driver, 20)
            wait.until(lambda d: progress(d) == "7 of 12 labelled, 1 skipped")
            body = driver.find_element(By.TAG_NAME, "body")
            for k in range(4):
                body.send_keys("3" if k % 2 else "1")
                wait.until(lambda d, n=k + 8: progress(d).startswith(f"{n} of 12"))
            wait.until(lambda d: d.find_element(By.ID, "done").is_displayed())
            assert str(labels_file) in driver.find_element(By.ID, "done").text
    finally:
        stop_process(proc)
    assert sum(v is not None for v in read_labels(labels_file).values()) == 11

    capsys.readouterr()
    assert main(args + ["--labels", str(labels_file)]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"semantic privacy \d\.\d\d \[\d\.\d\d, \d\.\d\d\] with 11 labels \(judge alone \d\.\d\d \[", printed), printed
    (row,) = json.loads((out / "report.json").read_text())["results"]
    assert row["labelled"]["n_labels"] == 11 and row["labelled"]["n_skipped"] == 1
