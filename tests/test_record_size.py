"""Issue 27, item 10: a huge record is refused with one line naming it and the limit (a LeakageConfig
option), and the text helpers that made long records superlinear give the same results as before.
Times are measured in benchmarks/bench_record_size.py, not asserted here."""

from __future__ import annotations

import random

import pytest

from textleak.leakage import LeakageConfig, evaluate_leakage
from textleak.leakage.limits import RecordTooLongError
from textleak.text.lcs import LCSIndex, lcs_length
from textleak.text.quantities import find_quantities
from textleak.text.sentences import sentence_spans

ORIGINALS = ["A 34-year-old nurse from Leeds has a fever. She has a cough.",
             "A 61-year-old man from Boston has chest pain. He smokes."]


def test_a_sanitized_record_above_the_limit_is_refused_naming_it():
    sanitized = [ORIGINALS[0], "x " * 600]
    with pytest.raises(RecordTooLongError) as err:
        evaluate_leakage(ORIGINALS, sanitized, judge="lexical", max_record_chars=1000, original_ids=["a", "b"])
    message = str(err.value)
    assert "sanitized record 1" in message and "1,200 characters" in message and "max_record_chars=1,000" in message
    assert "\n" not in message


def test_an_original_above_the_limit_is_refused_and_zero_means_no_limit():
    originals = [ORIGINALS[0], ORIGINALS[1] + " He coughs." * 100]
    with pytest.raises(RecordTooLongError, match="original record 1 \\(id '1'\\)"):
        evaluate_leakage(originals, originals, judge="lexical", max_record_chars=500)
    report = evaluate_leakage(originals, originals, judge="lexical", max_record_chars=0, bootstrap=0)
    assert report.semantic_privacy is not None


def test_the_limit_is_validated_and_has_a_default():
    assert LeakageConfig().max_record_chars > 100_000
    for bad in (-1, True, 1.5, "10"):
        with pytest.raises(ValueError, match="max_record_chars"):
            LeakageConfig(max_record_chars=bad)


def _dp_lcs(a, b):
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def test_lcs_is_exact_whichever_side_is_indexed():
    rng = random.Random(0)
    for _ in range(300):
        a = [rng.choice("abcde") for _ in range(rng.randint(0, 30))]
        b = [rng.choice("abcdef") for _ in range(rng.choice([0, 1, 2, 3, 50, 300]))]  # long b: the short side is indexed
        expected = _dp_lcs(a, b)
        assert lcs_length(a, b) == lcs_length(b, a) == expected
        assert LCSIndex(b).lcs(a) == LCSIndex(a).lcs(b) == expected
    frequent = ["x"] * 40 + ["y"] * 3  # a token with more than 8 positions takes the byte-array path
    assert LCSIndex(frequent).masks["x"] == (1 << 40) - 1 and LCSIndex(frequent).masks["y"] == 0b111 << 40


def test_quantities_skip_money_inside_other_quantities_in_any_order():
    text = "He is 5 ft 6 in tall, weighs 70 kg and paid $5. Then 6 ft 2 in $7 and 38.5 C."
    found = [(q.text, q.dimension) for q in find_quantities(text)]
    assert ("5 ft 6 in", "length") in found and ("70 kg", "mass") in found
    assert [t for t, d in found if d.startswith("money")] == ["$5", "$7"]
    assert [q.start for q in find_quantities(text)] == sorted(q.start for q in find_quantities(text))


@pytest.mark.parametrize("text, expected", [
    ("He saw Dr. Lee. Then he left.", ["He saw Dr. Lee.", "Then he left."]),
    ("Temp 38.5 C. Next day.", ["Temp 38.5 C.", "Next day."]),
    ("J. Smith came. He sat.", ["J. Smith came.", "He sat."]),
    ("x" * 150 + ". Then more.", ["x" * 150 + ".", "Then more."]),  # a word longer than the search window
    ("Tested 5 \t C. Ok.", ["Tested 5 \t C.", "Ok."]),
])
def test_sentence_boundaries_with_the_bounded_word_search(text, expected):
    assert [text[a:b] for a, b in sentence_spans(text)] == expected


def test_a_sanitized_record_paired_by_position_is_named_by_its_originals_id():
    """Before: "sanitized record 1 has ..." only, though the record's id was known (its original's, by position)."""
    with pytest.raises(RecordTooLongError, match=r"sanitized record 1 \(the release of original id 'b'\)"):
        evaluate_leakage(ORIGINALS, [ORIGINALS[0], "x " * 600], judge="lexical", max_record_chars=1000, original_ids=["a", "b"])


def test_the_cli_names_the_file_the_record_and_the_limit_in_one_line(tmp_path, capsys):
    """Before: the line named neither the file nor the record's id."""
    import json

    from textleak.cli import main

    originals, sanitized = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    originals.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip("ab", ORIGINALS)))
    sanitized.write_text("".join(json.dumps({"text": t}) + "\n" for t in [ORIGINALS[0], "x " * 600]))
    code = main(["evaluate", "--originals", str(originals), "--sanitized", str(sanitized), "--judge", "lexical",
                 "--max-record-chars", "1000", "--output", str(tmp_path / "out"), "--no-progress"])
    (line,) = [l for l in capsys.readouterr().err.splitlines() if "error:" in l]
    assert code == 2 and f"{sanitized}: sanitized record 1 (the release of original id 'b') has 1,200 characters" in line
    assert "max_record_chars=1,000" in line
