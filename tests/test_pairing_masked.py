"""Masked releases that lost rows pair with their originals; records sharing a template do not (issue 27, item 4).

Before: the pairing test looked at word bigrams only, which a masker breaks: the first 8 MedQA
profiles with every 2nd (3rd) word "[MASK]", half the rows kept and no ids, scored 0.550 (0.438)
with ``--alignment none`` and no warning, against 0.189 (0.067) aligned by id.
"""

from __future__ import annotations

import json

import pytest

from textleak.cli import main
from textleak.data.medqa import medqa_record
from textleak.data.vignettes import generate_vignettes
from textleak.leakage import evaluate_leakage
from textleak.leakage.pairing import text_pairing

from _profiles import RECORDS


def _mask(text: str, k: int, placeholder: str = "[MASK]") -> str:
    return " ".join(placeholder if (i + 1) % k == 0 else w for i, w in enumerate(text.split(" ")))


def _vignettes(start: int, stop: int, seed: int = 0) -> list[str]:
    return [medqa_record(r, i)["text"] for i, r in enumerate(generate_vignettes(stop, seed))][start:stop]


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("placeholder", ["[MASK]", "<PERSON>"])
def test_a_masked_release_that_lost_rows_pairs_with_its_originals(k, placeholder):
    """Before: 0 of 4 (every 2nd word) paired by bigrams, so the set passed as synthetic."""
    for originals in (RECORDS, _vignettes(0, 8)):
        masked = [_mask(t, k, placeholder) for t in originals][::2]
        pairing = text_pairing(originals, masked)
        assert pairing.one_to_one and pairing.matches == {0: 0, 1: 2, 2: 4, 3: 6}


@pytest.mark.parametrize("k", [2, 3])
def test_masked_template_records_pair_though_no_word_is_one_records_own(k):
    """48 vignettes (the demo set's size) repeat their values across records: no word is one record's own.
    With a floor of 2 such words instead of the margin 6 (10) of 24 paired and the set passed as synthetic."""
    originals = _vignettes(0, 48)
    pairing = text_pairing(originals, [_mask(t, k) for t in originals][::2])
    assert pairing.one_to_one and pairing.paired == 24 and all(i == 2 * j for j, i in pairing.matches.items())


def test_a_masked_release_that_lost_rows_is_refused_unaligned():
    masked = [_mask(t, 2) for t in _vignettes(0, 8)][::2]
    with pytest.raises(ValueError, match="lost records"):
        evaluate_leakage(_vignettes(0, 8), masked, alignment="none", judge="lexical", bootstrap=0, use_cache=False)


def test_the_cli_refuses_a_masked_file_without_ids_unaligned(tmp_path, capsys):
    originals = tmp_path / "a.jsonl"
    originals.write_text("".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(_vignettes(0, 8))))
    masked = tmp_path / "s.jsonl"
    masked.write_text("".join(json.dumps({"text": _mask(t, 3)}) + "\n" for t in _vignettes(0, 8)[::2]))
    code = main(["evaluate", "--originals", str(originals), "--sanitized", str(masked), "--alignment", "none",
                 "--judge", "lexical", "--bootstrap", "0", "--no-progress", "--output", str(tmp_path / "out")])
    lines = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert code == 2 and len(lines) == 1 and "sanitized set that lost records" in lines[0]
    assert "90% of their words" in lines[0] and "sanitized_ids" not in lines[0]


@pytest.mark.parametrize("others", [lambda: _vignettes(8, 12), lambda: _vignettes(0, 4, seed=1), lambda: _vignettes(8, 16)])
def test_records_made_from_the_same_template_with_other_values_do_not_pair(others):
    """Different vignettes of one scenario share its wording; their values tell them apart: they run unaligned."""
    released = others()
    assert text_pairing(_vignettes(0, 8), released).paired == 0
    r = evaluate_leakage(_vignettes(0, 8), released, alignment="none", judge="lexical", bootstrap=0, use_cache=False)
    assert r.settings["alignment"] == "none" and r.n_sanitized == len(released)


def test_a_template_profile_with_other_peoples_values_does_not_pair():
    mixed = ["Anna is 60 years old. Anna is a teacher. Anna lives in Rome. Anna has eczema. Anna plays chess.",
             "Boris is 41 years old. Boris is a nurse. Boris lives in Fez. Boris has lupus. Boris grows roses."]
    assert text_pairing(RECORDS, mixed).paired == 0
    # one person's values under another name is that person's record, pseudonymised: it pairs
    renamed = RECORDS[1].replace("Boris", "Anna")
    assert text_pairing(RECORDS, [renamed]).matches == {0: 1}
