"""The labelling page marks the judge's best span in the released text (issue 26, item 1) also when the
judge read that text in the claim's form (the NLI judge's reader's view: '53-year-old' read as
'53 years-old', '38.1°C (100.6°F)' as '100.6°F (38.1°C)'), where the span is not a substring of
what was released: the closest released sentence is marked. Before, the page marked nothing for a
quarter of the claims of a MedQA run."""

from __future__ import annotations

import json

import pytest

from textleak.leakage.labels import locate_span

RELEASED = ("Hola 💛 quick update. A 53-year-old man who returned from Peru 2 weeks ago comes to the emergency department. "
            "His temperature is 38.1°C (100.6°F), pulse is 71/min.\nHe has a history of   psoriasis and takes no medication.")
# spans as the NLI judge reports them: the reader's view, and a window re-joined by single spaces
READER_VIEW = "A 53 years-old man who returned from Peru 2 weeks ago comes to the emergency department."
SWAPPED = "His temperature is 100.6°F (38.1°C), pulse is 71/min."
WINDOW = "He has a history of psoriasis and takes"


def test_locate_span_exact_whitespace_and_reader_view():
    at = locate_span(RELEASED, "quick update.")
    assert at and RELEASED[at[0]:at[1]] == "quick update." and at[2]
    at = locate_span(RELEASED, WINDOW)
    assert at and RELEASED[at[0]:at[1]] == "He has a history of   psoriasis and takes" and at[2]
    at = locate_span(RELEASED, READER_VIEW)
    assert at and RELEASED[at[0]:at[1]].startswith("A 53-year-old man") and RELEASED[at[1] - 1] == "." and not at[2]
    at = locate_span(RELEASED, SWAPPED)
    assert at and RELEASED[at[0]:at[1]] == "His temperature is 38.1°C (100.6°F), pulse is 71/min." and not at[2]
    assert locate_span(RELEASED, "The patient owns a red bicycle in Oslo.") is None  # nothing close: no mark
    assert locate_span(RELEASED, None) is None and locate_span(None, "x") is None


def _folder(tmp_path):
    """An evaluate output folder holding one record judged as the NLI judge reports it."""
    claims = [("A 53-year-old man returned from Peru.", 1, READER_VIEW), ("His temperature is 38.1°C.", 1, SWAPPED),
              ("He has psoriasis.", 2, WINDOW), ("He owns a red bicycle.", 3, None)]
    rows = [{"text": t, "known": False, "status": "ok", "rating": r, "score": (r - 1) / 2, "detail": {"span": s}} for t, r, s in claims]
    record = {"index": 0, "id": "r0", "privacy": sum(c["score"] for c in rows) / len(rows), "linked_text": RELEASED, "claims": rows}
    out = tmp_path / "out"
    out.mkdir()
    (out / "records-x.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "report.json").write_text(json.dumps({"results": [{"sanitizer": "x", "records_file": "records-x.jsonl"}]}))
    return out


def _utf16(text: str, k: int) -> int:
    return len(text[:k].encode("utf-16-le")) // 2


def test_state_gives_the_page_where_to_mark_in_javascript_offsets(tmp_path):
    from textleak.commands.label import Session, choose_run, find_runs

    session = Session.open(choose_run(find_runs(_folder(tmp_path)), None), 10, 0)
    items = {it["span"]: it for it in session.state()["items"]}
    at = locate_span(RELEASED, SWAPPED)
    assert items[SWAPPED]["span_at"] == [_utf16(RELEASED, at[0]), _utf16(RELEASED, at[1])] != list(at[:2])  # after the emoji
    assert items[SWAPPED]["span_exact"] is False and items[WINDOW]["span_exact"] is True
    assert items[None]["span_at"] is None


@pytest.mark.browser
def test_the_page_marks_the_closest_sentence_in_a_browser(tmp_path):
    import threading

    from _browser import chromium
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from textleak.commands.label import Session, choose_run, find_runs, make_server

    session = Session.open(choose_run(find_runs(_folder(tmp_path)), None), 10, 0)
    server = make_server(session)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    expected = {"A 53-year-old man returned from Peru.": locate_span(RELEASED, READER_VIEW),
                "His temperature is 38.1°C.": locate_span(RELEASED, SWAPPED), "He has psoriasis.": locate_span(RELEASED, WINDOW)}
    try:
        with chromium() as driver:
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/?token={session.token}")
            wait = WebDriverWait(driver, 20)
            wait.until(lambda d: d.find_element(By.ID, "progress").text.startswith("0 of 4"))
            seen = 0
            for _ in range(4):
                claim = driver.find_element(By.ID, "claim").text
                marks = driver.find_elements(By.CSS_SELECTOR, "#released mark")
                if claim in expected:
                    a, b, _exact = expected[claim]
                    assert [m.get_attribute("textContent") for m in marks] == [RELEASED[a:b]], claim
                    seen += 1
                else:
                    assert not marks  # no span: nothing marked
                driver.find_element(By.ID, "next").click()
            assert seen == 3
    finally:
        server.shutdown()
        server.server_close()
