"""Embedding and lexical judges: spans, numbers, thresholds, the number guard, calibration figures,
and the done-means ordering identity < perturbed numbers < remove-all."""

import json

import pytest

from textleak.judges.agreement import evaluate_judge, load_labelled_claims
from textleak.judges.embedding import EmbeddingJudge
from textleak.judges.lexical import LexicalJudge
from textleak.judges.base import number_cap
from textleak.text import lcs_length
from textleak.judges.spans import document_spans
from textleak.text import extract_numbers, split_sentences, word_windows


def test_split_sentences_keeps_abbreviations_and_decimals():
    text = "A 45-year-old man sees Dr. Smith. His temp. is 38.5 C. He is fine, e.g. Sometimes.\nUser: hi! How are you? I am J. K. Rowling."
    assert split_sentences(text) == [
        "A 45-year-old man sees Dr. Smith.", "His temp. is 38.5 C.", "He is fine, e.g. Sometimes.", "User: hi!", "How are you?", "I am J. K. Rowling.",
    ]
    assert split_sentences("  \n ") == []


def test_spans_and_contexts():
    doc = "One two three four five six seven eight nine ten. Short one."
    spans = document_spans(doc, window=2, word_window=8, word_stride=4)
    assert spans[:3] == [
        ("One two three four five six seven eight nine ten.", "One two three four five six seven eight nine ten."),
        ("Short one.", "Short one."),
        ("One two three four five six seven eight nine ten. Short one.", "One two three four five six seven eight nine ten. Short one."),
    ]
    assert spans[3:] == [("One two three four five six seven eight", spans[0][0]), ("five six seven eight nine ten.", spans[0][0])]
    assert word_windows("a b c", 8, 4) == []


def test_extract_numbers_canonical():
    assert extract_numbers("a 25-year-old, 1,200 mg, 38.50 C, BP 150/90, twenty-five, seven, in her twenties") == {"25", "1200", "38.5", "150", "90", "7"}
    assert extract_numbers("no one came", count_word_one=False) == set()
    assert extract_numbers("one week") == {"1"}


def test_number_cap():
    assert number_cap({"25"}, {"25", "3"}) == 1
    assert number_cap({"25", "3"}, {"25"}) == 2
    assert number_cap({"25"}, set(), guard_rating=3) == 3
    assert number_cap(set(), set()) == 1


def test_lcs_length():
    assert lcs_length("a b c d".split(), "a x c d y".split()) == 3
    assert lcs_length([], ["a"]) == 0
    assert lcs_length(["a", "b"], ["b", "a"]) == 1


def test_lexical_judge_exact_recall_and_thresholds():
    judge = LexicalJudge(t1=0.8, t2=0.4)
    out = judge.rate([["She takes warfarin daily.", "She takes aspirin.", "He likes jazz music."], ["x"]],
                     ["Since 2019 she takes warfarin daily. She fell.", ""])
    assert [r.rating for r in out[0]] == [1, 2, 3]
    assert out[0][0].detail["rouge_l_recall"] == 1.0
    assert out[0][1].detail["rouge_l_recall"] == pytest.approx(2 / 3)  # "she take" of "she take aspirin"
    assert out[1][0].rating == 3 and out[1][0].detail["reason"] == "empty document"
    with pytest.raises(ValueError):
        LexicalJudge(t1=0.3, t2=0.5)


def test_embedding_judge_empty_document_needs_no_model(monkeypatch):
    """Also: a document without claims to rate needs no model either."""
    import textleak.encoders

    monkeypatch.setattr(textleak.encoders, "load_sentence_encoder", lambda *a, **k: pytest.fail("model loaded"))
    out = EmbeddingJudge().rate([["a", "b"], []], ["", "doc"])
    assert [r.rating for r in out[0]] == [3, 3] and [r.score for r in out[0]] == [1.0, 1.0] and out[1] == []


@pytest.fixture(scope="module")
def embedding_judge():
    return EmbeddingJudge()


@pytest.mark.slow
def test_embedding_judge_same_changed_unrelated(embedding_judge):
    doc = "A 54-year-old man has had a productive cough for 3 days. He lives with his wife in a small town."
    claims = ["He has had a productive cough for 3 days.", "He has had a productive cough for 9 days.", "He plays the violin in an orchestra."]
    out = embedding_judge.rate([claims], [doc])[0]
    assert [r.rating for r in out] == [1, 2, 3]
    assert "number_guard" in out[1].detail and "number_guard" not in out[0].detail
    assert out[0].detail["similarity"] > 0.8


@pytest.mark.slow
def test_embedding_judge_agreement_on_held_out_split(embedding_judge):
    """The calibrated thresholds' held-out agreement (docs/judges.md): a regression check with a margin."""
    report = evaluate_judge(embedding_judge, load_labelled_claims(split="test"))
    assert report.n == 80 and report.n_unparsed == 0
    assert report.spearman > 0.55
    assert report.cohen_kappa_linear > 0.5
    # and the lexical baseline stays below it, as in the paper
    lexical = evaluate_judge(LexicalJudge(), load_labelled_claims(split="test"))
    assert lexical.spearman < report.spearman


@pytest.mark.slow
def test_changed_numbers_never_rated_same(embedding_judge):
    items = [it for it in load_labelled_claims() if it.category == "changed_number"]
    report = evaluate_judge(embedding_judge, items)
    assert report.confusion[1][0] == 0  # no changed-number claim (gold 2) is rated 1


@pytest.mark.slow
def test_identity_below_number_perturbation_below_remove_all(embedding_judge):
    """The pipeline's done-means ordering on the shipped scenarios with a verbatim and a
    number-perturbed version of the same record (med11, chat08)."""
    items = load_labelled_claims()
    privacy = {}
    for scenario in ("med11", "chat08"):
        verbatim = [it for it in items if it.id.startswith(f"{scenario}-b-")]
        perturbed = [it for it in items if it.id.startswith(f"{scenario}-a-")]
        claims = [it.claim for it in verbatim]
        docs = {"identity": verbatim[0].document, "numbers": perturbed[0].document, "remove_all": ""}
        for name, doc in docs.items():
            scores = [r.score for r in embedding_judge.rate([claims], [doc])[0]]
            privacy.setdefault(name, []).extend(scores)
    mean = {k: sum(v) / len(v) for k, v in privacy.items()}
    assert mean["identity"] <= 0.15
    assert mean["remove_all"] == 1.0
    assert mean["identity"] < mean["numbers"] < mean["remove_all"]


def test_cli_judge_agreement(tmp_path, capsys):
    from textleak.cli import main

    out = tmp_path / "report.json"
    assert main(["judge-agreement", "--judge", "lexical", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["split"] == "test" and report["n"] == 80 and report["judge"]["name"] == "lexical"
    assert report["spearman"] == pytest.approx(0.443, abs=0.001)
    printed = capsys.readouterr().out
    assert "Spearman rho" in printed and "| gold \\ judge | 1 | 2 | 3 |" in printed
    labels = tmp_path / "mine.jsonl"
    labels.write_text(json.dumps({"claim": "She takes warfarin.", "document": "She takes warfarin.", "gold": 1}) + "\n")
    assert main(["judge-agreement", "--judge", "lexical", "--labels", str(labels)]) == 0
    assert main(["judge-agreement", "--judge", "lexical", "--labels", str(tmp_path / "missing.jsonl")]) == 2


@pytest.mark.slow
def test_pooled_word_windows():
    import numpy as np

    from textleak.encoders import encode, encode_with_word_windows

    sentence = "A 54-year-old man who works as a baker in Lyon has had a productive cough for three days and smokes daily."
    sentence_vecs, windows = encode_with_word_windows([sentence, "Short one.", sentence], word_window=8, word_stride=4)
    assert [text for text, _ in windows[0]] == word_windows(sentence, 8, 4) and windows[1] == []
    assert all(abs(np.linalg.norm(v) - 1) < 1e-5 for _, v in windows[0])
    assert np.allclose(sentence_vecs[0], encode([sentence])[0], atol=1e-5)  # same as the model's own pooling
    claim = encode(["He works as a baker in Lyon."])[0]
    best = max(windows[0], key=lambda tv: float(tv[1] @ claim))
    assert "baker in Lyon" in best[0]
    assert float(best[1] @ claim) > float(sentence_vecs[0] @ claim)
