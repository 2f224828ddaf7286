"""Pasted layout (textleak.text.layout): headings read with the next line, table rows with their header."""

from __future__ import annotations

import re

import pytest

from textleak.text import split_sentences
from textleak.text.layout import read_layout

DF = ("jannik@hauspi:~ $ df -h /\n"
      "Filesystem      Size  Used Avail Use% Mounted on\n"
      "/dev/mmcblk0p2   29G   27G  1.3G  96% /\n"
      "jannik@hauspi:~ $ sudo journalctl --disk-usage\n")
PODS = ("NAME                            READY   STATUS             RESTARTS     AGE\n"
        "route-planner-6d9f7c5b8-x2kqp   0/1     CrashLoopBackOff   7 (2m ago)   31m\n"
        "dispatch-api-5c7d9b8f6-abcde    1/1     Running            0            2d3h\n")
CV = "OLUSEGUN ADEYEMI\nToronto, Ontario\n\nEDUCATION\nB.Sc. Computer Science, University of Lagos, 2014\n"


def words(text: str) -> list[str]:
    return sorted(re.findall(r"\S+", text.replace(",", " ").replace(":", " ")))


def test_a_table_row_is_read_under_its_header():
    read = read_layout(DF)
    assert "Filesystem /dev/mmcblk0p2, Size 29G, Used 27G, Avail 1.3G, Use% 96%, Mounted on /" in read.splitlines()
    assert "Filesystem      Size  Used Avail Use% Mounted on" in read.splitlines()  # the header line stays as written


def test_left_aligned_columns_and_a_value_of_several_words():
    rows = read_layout(PODS).splitlines()
    assert rows[1] == "NAME route-planner-6d9f7c5b8-x2kqp, READY 0/1, STATUS CrashLoopBackOff, RESTARTS 7 (2m ago), AGE 31m"
    assert rows[2] == "NAME dispatch-api-5c7d9b8f6-abcde, READY 1/1, STATUS Running, RESTARTS 0, AGE 2d3h"


def test_a_heading_is_read_with_the_line_after_it():
    read = read_layout(CV)
    assert "EDUCATION: B.Sc. Computer Science, University of Lagos, 2014" in read.splitlines()
    assert "EDUCATION: B.Sc. Computer Science, University of Lagos, 2014" in split_sentences(read)
    assert read_layout("Incident description:\nOn November 10 I was driving north.") == "Incident description: On November 10 I was driving north."


@pytest.mark.parametrize("text", [DF, PODS, CV, "Log:\n$ npm test\nFAIL src/a.test.ts"])
def test_no_word_is_dropped(text):
    """Only line breaks and header words move: every word of the text is still there."""
    assert set(words(text)) <= set(words(read_layout(text)))


@pytest.mark.parametrize("text", [
    "A plain record.\nShe has a fever of 38.5 C and a cough.\nNo rash.",
    "10457,<PERSON>,<DATE_TIME>,T23 K7P8,<PHONE_NUMBER>\n10491,<PERSON>,<DATE_TIME>,T12 R9D4,<PHONE_NUMBER>",  # CSV rows
    "<DATE_TIME>\nReceived-SPF: softfail",  # a placeholder is no heading
    "one line only: no break",
    "Name  Age  City\n\nnot a row",  # a header with no aligned row under it
])
def test_text_without_headings_or_tables_is_unchanged(text):
    assert read_layout(text) == text


def test_dotted_abbreviations_do_not_end_a_sentence_but_a_file_name_does():
    assert split_sentences("I hold a B.Sc. Computer Science degree.") == ["I hold a B.Sc. Computer Science degree."]
    assert split_sentences("Send it to P.O. Box 149 please.") == ["Send it to P.O. Box 149 please."]
    assert split_sentences("Edit api.py. Then run it.") == ["Edit api.py.", "Then run it."]


def test_the_judge_reads_a_cv_heading_and_a_table_row(tmp_path):
    """End to end with the shipped judge: the year under EDUCATION and the size in a df row are stated."""
    from textleak.judges import make_judge

    judge = make_judge("nli")
    cv, df = judge.rate([["The user graduated in 2014."], ["The SD card's root partition is 29 GB."]], [CV, DF])
    assert cv[0].rating == 1 and "2014" in cv[0].detail["span"]
    assert df[0].rating == 1 and "Size 29G" in df[0].detail["span"]
