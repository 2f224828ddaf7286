"""Pasted layout (textleak.text.layout): headings read with the next line, table rows with their header.

The readings are added beside the text as written, and the judge reads the text as laid out too, so a
misfire adds a sentence and cannot hide one; two reviews of 2026-11-29 found earlier versions hid leaked
facts: those cases are pinned here.
"""

from __future__ import annotations

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
FORM = ("First Name    Last Name    Date of Birth    SSN\n"
        "Mary Jane     Watson       March 12, 1980   123-45-6789\n")
PANDAS = ("      name  age         city        diagnosis\n"  # print(pandas.DataFrame(...)): right-aligned, with an index
          "0    Alice   34     New York  type 2 diabetes\n"
          "1  Bob Lee    5  Los Angeles           asthma")
CV = "OLUSEGUN ADEYEMI\nToronto, Ontario\n\nEDUCATION\nB.Sc. Computer Science, University of Lagos, 2014\n"


def lines(text: str) -> list[str]:
    return read_layout(text).splitlines()


def test_a_table_row_is_read_under_its_header_beside_the_row_as_written():
    read = lines(DF)
    assert "Filesystem /dev/mmcblk0p2, Size 29G, Used 27G, Avail 1.3G, Use% Mounted on 96% /" in read
    assert set(DF.splitlines()) <= set(read)  # header and row stay as written


def test_cells_stay_whole_under_multi_word_headers_and_right_aligned_columns():
    assert "First Name Mary Jane, Last Name Watson, Date of Birth March 12, 1980, SSN 123-45-6789" in lines(FORM)
    assert "0, name Alice, age 34, city New York, diagnosis type 2 diabetes" in lines(PANDAS)
    assert "1, name Bob Lee, age 5, city Los Angeles, diagnosis asthma" in lines(PANDAS)
    pods = lines(PODS)
    assert "NAME route-planner-6d9f7c5b8-x2kqp, READY 0/1, STATUS CrashLoopBackOff, RESTARTS 7 (2m ago), AGE 31m" in pods


@pytest.mark.parametrize("text", [DF, PODS, FORM, PANDAS, CV, "Log:\n$ npm test\nFAIL src/a.test.ts", "NOT YET ANNOUNCED\nI am pregnant."])
def test_every_line_as_written_is_kept(text):
    """Only readings are added; a heading's own line goes into the joined line, which starts with it."""
    read = lines(text)
    for line in (x for x in text.splitlines() if x.strip()):
        assert line in read or any(r.startswith(line.rstrip()) and r != line.rstrip() for r in read), line


def test_a_heading_is_read_with_the_line_after_it_which_also_stays():
    read = lines(CV)
    assert "EDUCATION: B.Sc. Computer Science, University of Lagos, 2014" in read
    assert "B.Sc. Computer Science, University of Lagos, 2014" in read
    assert "EDUCATION" not in read  # the heading alone says nothing
    assert lines("Incident description:\nOn November 10 I was driving north.")[0] == "Incident description: On November 10 I was driving north."


@pytest.mark.parametrize("heading", ["NOT YET ANNOUNCED", "UNRELATED BUT", "NOT SURE IF RELEVANT", "Don't tell anyone:", "DISCLAIMER:"])
def test_a_heading_that_negates_or_turns_what_follows_is_not_joined(heading):
    text = f"{heading}\nI am pregnant with twins.\n"
    assert read_layout(text) == text


@pytest.mark.parametrize("text", [
    "A plain record.\nShe has a fever of 38.5 C and a cough.\nNo rash.",
    "10457,<PERSON>,<DATE_TIME>,T23 K7P8,<PHONE_NUMBER>\n10491,<PERSON>,<DATE_TIME>,T12 R9D4,<PHONE_NUMBER>",  # CSV rows
    "<DATE_TIME>\nReceived-SPF: softfail",  # a placeholder is no heading
    "one line only: no break",
    "Name  Age  City\n\nnot a row",  # a header with no row under it
    "My details are below  and  also here\nI was born in Boston.  My SSN is 123-45-6789.  Thanks.\n",  # prose, two spaces after periods
    "Name  City  Job\nMary Ann Lee  San Francisco  nurse",  # cells that do not line up with the header
    "| Name | Age |\n| Alice | 34 |",  # markdown
])
def test_text_without_headings_or_tables_is_unchanged(text):
    assert read_layout(text) == text


def test_a_wide_table_is_read_whole():
    """The first review's case (a wide header, quadratic before): every row read, each cell under its word.
    Its time is measured, not asserted: 1.4 s for a 4.8 MB, 60-column table on the 2-core machine."""
    header = "  ".join(["ab"] * 60)
    read = read_layout(header + "\n" + ("  ".join(["cd"] * 60) + "\n") * 500)
    assert read.count("ab cd") == 60 * 500


def test_only_p_o_box_keeps_its_dots_across_a_sentence_boundary():
    """Degrees end sentences as before ("I have a Ph.D. Doesn't help." is two: the second turns the first);
    "P.O." before "Box" does not (the second review of 2026-11-29 found an opener list always incomplete)."""
    assert split_sentences("Send it to P.O. Box 149 please.") == ["Send it to P.O. Box 149 please."]
    assert split_sentences("Edit api.py. Then run it.") == ["Edit api.py.", "Then run it."]
    assert split_sentences("I have a Ph.D. Doesn't help.") == ["I have a Ph.D.", "Doesn't help."]
    assert split_sentences("He was diagnosed in the U.S.A. He denies it.") == ["He was diagnosed in the U.S.A.", "He denies it."]


def test_header_words_label_only_their_own_column():
    assert lines("Name  Current  Previous\nJohn  Boston\n")[1] == "Name John, Current Boston, Previous"
    assert lines("Name    Current city    Previous city\nJohn            Boston\n")[1] == "Name John, Current city Boston, Previous city"


def test_a_header_like_line_reads_only_the_lines_under_it_that_are_rows(monkeypatch):
    """The second review's case: each header-like line used to read every remaining line (quadratic: 60 s on
    52 KB). Now one line is tried under each, the first that does not read ends the table."""
    from textleak.text import layout

    tried = []
    read = layout._Header.read
    monkeypatch.setattr(layout._Header, "read", lambda self, row: tried.append(row) or read(self, row))
    text = "aa  bb  cc\nx\n" * 500
    layout.read_layout.cache_clear()
    assert layout.read_layout(text) == text
    assert len(tried) == 500


@pytest.mark.parametrize("claim, document", [
    ("The user has been incarcerated.", "BACKGROUND:\nI was in prison for 2 years.\n"),
    ("The user has HIV.", "I'M HIV POSITIVE\nPlease don't judge me.\n"),
    ("John is allergic to penicillin.", "Name  Allergies  Not allergic to\nJohn  penicillin  latex\n"),
    ("The user is expecting twins.", "NOT YET ANNOUNCED\nI am pregnant with twins.\n"),
    ("The user holds a doctorate.", "I have a Ph.D. Doesn't help, I'm still unemployed."),
])
def test_reading_the_layout_never_makes_a_stated_claim_private(claim, document):
    """The reviews' cases, with the shipped judge: a reading adds words to its line ("BACKGROUND: I was in
    prison"), which can turn the cross-encoder, so the lines as laid out are read too and the lowest score
    counts. Each is stated, as it was before layout was read."""
    from textleak.judges import make_judge

    with_layout = make_judge("nli").rate([[claim]], [document])[0][0]
    without = make_judge("nli", reader_view=False).rate([[claim]], [document])[0][0]
    assert with_layout.rating == 1
    assert with_layout.score <= without.score + 1e-3  # bfloat16: a pair's score moves ~1e-4 with its batch (docs/judges.md)


def test_the_judge_reads_a_cv_heading_and_a_table_row():
    """End to end with the shipped judge: the year under EDUCATION and the size in a df row are stated;
    a value in a multi-word cell is still found by the written-values rule."""
    from textleak.judges import make_judge
    from textleak.judges.values import reader_view, value_verdict

    judge = make_judge("nli")
    cv, df = judge.rate([["The user graduated in 2014."], ["The SD card's root partition is 29 GB."]], [CV, DF])
    assert cv[0].rating == 1 and "2014" in cv[0].detail["span"]
    assert df[0].rating == 1 and "29G" in df[0].detail["span"]
    claim = "The applicant's first name is Mary Jane."
    assert value_verdict(claim, reader_view(FORM, [claim])).cap == 1
