"""The reconstruction_asr evaluate metric: direct class, evaluate.load of the Space folder, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from textleak.metrics.reconstruction_asr import ReconstructionASR
from textleak.word_embeddings import WordEmbeddings

REPO = Path(__file__).resolve().parent.parent
TOY = WordEmbeddings(["a", "b", "c"], np.array([[0.0], [1.0], [3.0]]))
ARGS = dict(mechanism="santext", epsilon=2.0, vocab=[["a", 5], ["b", 3], ["c", 2]], shadow=["a a a a a c c"],
            attacks=["context_free_bayes", "embedding_inversion"], bounds=["context_free"])


def test_direct_class_hand_computed():
    r = ReconstructionASR(embeddings=TOY).compute(predictions=["b", "c a"], references=["a", "c c"], **ARGS)
    # targets: a->b (guess a: hit), c->c (guess: c, score 3*0.84 wins: hit), c->a (guess a: miss)
    assert r["n_tokens"] == 3 and r["n_changed"] == 2
    assert r["asr"]["context_free_bayes"] == pytest.approx(2 / 3)
    assert r["asr_changed"]["context_free_bayes"] == pytest.approx(1 / 2)
    assert r["asr"]["embedding_inversion"] == pytest.approx(1 / 3)
    assert set(r["bounds"]) == {"context_free"}
    assert r["mechanism"]["mechanism"] == "santext"


def test_evaluate_load_of_the_space_folder():
    import evaluate

    metric = evaluate.load(str(REPO / "metrics" / "reconstruction_asr"), embeddings=TOY)
    assert metric.name == "reconstruction_asr"
    r = metric.compute(predictions=["b"], references=["a"], **ARGS)
    assert r["asr"] == {"context_free_bayes": 1.0, "embedding_inversion": 0.0}


def test_compute_takes_no_var_kwargs():
    import inspect

    assert all(p.kind != p.VAR_KEYWORD for p in inspect.signature(ReconstructionASR._compute).parameters.values())


def test_misaligned_record_is_named():
    with pytest.raises(ValueError, match="record 1"):
        ReconstructionASR(embeddings=TOY).compute(predictions=["b", "a b"], references=["a", "a"], **ARGS)


def test_shadow_attacks_refuse_an_empty_shadow():
    args = {**ARGS, "shadow": None}
    with pytest.raises(ValueError, match="shadow"):
        ReconstructionASR(embeddings=TOY).compute(predictions=["b"], references=["a"], **args)


def test_fitted_sanitizer_as_mechanism_matches_its_alignment():
    from sanitizers import SanTextPlus

    corpus = ["a b c a", "b c a a", "c c b a"]
    san = SanTextPlus(epsilon=1.0, p=0.5, sensitive_fraction=0.5, embeddings=TOY, alignment_column="private_word_alignment").fit(corpus)
    out = san(corpus, [0, 1, 2])
    r = ReconstructionASR(embeddings=TOY).compute(
        predictions=out["sanitized"], references=corpus, mechanism=san, shadow=["a a b"],
        attacks=["embedding_inversion"], bounds=[])
    flags = [t["sensitive"] for row in out["private_word_alignment"] for t in row]
    unchanged = [t["original"] == t["sanitized"] for row in out["private_word_alignment"] for t in row]
    assert r["n_tokens"] == sum(flags)
    assert r["asr"]["embedding_inversion"] == pytest.approx(sum(f and u for f, u in zip(flags, unchanged)) / sum(flags))


def test_pii_targets_are_the_person_name_tokens():
    from textleak.attacks.asr import pii_flags
    from textleak.dp.tokenize import WordTokenizer

    text = "Yesterday John Smith visited the restaurant ."
    _, spans = WordTokenizer().tokens_and_spans(text)
    assert pii_flags([text], [spans]) == [[False, True, True, False, False, False, False]]


def test_bare_name_load_after_install():
    import evaluate

    from textleak.metrics import install_metrics

    install_metrics(["reconstruction_asr"])
    metric = evaluate.load("reconstruction_asr", embeddings=TOY)
    assert metric.compute(predictions=["b"], references=["a"], **ARGS)["bounds"] == {"context_free": 1.0}
