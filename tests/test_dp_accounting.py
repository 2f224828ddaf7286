"""Every token accounted for: one output token per input token on real data, the OOV policy by
name, pass-through tokens counted as recovered, NLTK's stop words, epsilon validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sanitizers import CusTextPlus, SanTextPlus
from textleak.attacks import AttackData, run_attacks
from textleak.dp import CusTextMechanism, SanTextMechanism, build_mechanism, count_words
from textleak.dp.custext import load_stopwords, nltk_english_stopwords
from textleak.dp.tokenize import WordTokenizer, render
from textleak.word_embeddings import WordEmbeddings

EPSILONS = (1.0, 3.0, 8.0)


@pytest.fixture(scope="module")
def corpora(shared_data):
    from textleak.commands.attack import read_texts
    from textleak.data.medqa import read_medqa_jsonl

    sst2 = read_texts(str(shared_data / "sst2" / "dev.tsv"), "sentence")
    medqa = [r["text"] for r in read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl")]
    return {"sst2": sst2, "medqa": medqa}


@pytest.fixture(scope="module")
def glove_mechanisms(corpora):
    """SANTEXT+ and CUSTEXT+ on GloVe 6B 50d, fitted on both corpora (one set-up each)."""
    emb = WordEmbeddings.load("default")
    vocab = count_words(corpora["sst2"] + corpora["medqa"])
    return {"santext+": build_mechanism("santext+", emb, vocab, 1.0),
            "custext+": build_mechanism("custext+", emb, vocab, 1.0)}


@pytest.mark.parametrize("kind", ["santext+", "custext+"])
@pytest.mark.parametrize("corpus", ["sst2", "medqa"])
def test_output_retokenises_to_one_token_per_input_token(glove_mechanisms, corpora, kind, corpus):
    texts = corpora[corpus]
    glued = 0
    for eps in EPSILONS:
        mech = glove_mechanisms[kind].with_epsilon(eps)
        for i, out in enumerate(mech.sanitize_texts(texts, list(range(len(texts))))):
            assert mech.tokenizer.tokens(out.text) == out.sanitized_tokens, (corpus, eps, i, out.text)
            assert len(out.sanitized_tokens) == len(out.original_tokens)
            glued += out.text.count(" ") - texts[i].count(" ")
    assert glued > 0  # the real data has touching tokens that needed a space (e.g. "''", "mellitus,")


def test_render_separates_touching_tokens_only_where_they_would_glue():
    tok = WordTokenizer("regex")
    text = "mr. smith said ''hello'' (x)"
    toks, spans = tok.tokens_and_spans(text)
    outs = list(toks)
    outs[1] = "today"       # "mr" + "." -> "mrtoday" would glue
    outs[4] = "thousand"    # "'" + "'" -> "thousand'" would not glue with "'"...
    outs[5] = "pointed"     # ...but "thousandpointed" would
    outs[-2] = "y"          # "(y)" re-tokenises to three tokens: no space needed
    rendered = render(text, spans, outs, tok)
    assert tok.tokens(rendered) == outs
    assert rendered.startswith("mr today smith said thousand pointed")
    assert rendered.endswith("(y)")
    assert render(text, spans, list(toks), tok) == text  # nothing replaced: the text is untouched
    # a run of three that only merges as a whole: "x" "-" "y" -> "x-y"
    _, spans2 = tok.tokens_and_spans("x.y")
    assert tok.tokens(render("x.y", spans2, ["x", "-", "y"], tok)) == ["x", "-", "y"]


def toy():
    return WordEmbeddings(["a", "b", "c"], np.array([[0.0], [1.0], [3.0]]))


def test_oov_policy_is_chosen_by_name_and_keep_is_the_default():
    vocab = [("a", 5), ("b", 3), ("c", 2), ("zz", 1)]
    keep = build_mechanism("santext", toy(), vocab, 2.0)
    assert keep.oov_policy == "keep"
    out = keep.sanitize_texts(["a zz qq"], [0])[0]
    assert out.sanitized_tokens[1:] == ["zz", "qq"]
    assert out.sensitive == [True, True, True] and out.passthrough == [False, True, True]
    uniform = build_mechanism("santext", toy(), vocab, 2.0, oov_policy="uniform")
    outs = uniform.sanitize_tokens([["qq"] * 400], [1])[0][0]
    assert set(outs) <= {"a", "b", "c", "zz"} and len(set(outs)) == 4  # uniform over the corpus word list
    assert not any(uniform.sanitize_texts(["qq"], [2])[0].passthrough)
    with pytest.raises(ValueError, match="'keep', 'uniform'"):
        build_mechanism("santext+", toy(), vocab, 2.0, oov_policy="drop")
    with pytest.raises(ValueError, match="oov_policy"):
        build_mechanism("custext+", toy(), vocab, 2.0, top_k=2, oov_policy="drop")


def test_santext_plus_frequent_words_without_a_vector_are_not_targets():
    vocab = [("qq", 9), ("a", 5), ("b", 3), ("c", 2)]  # qq: frequent, no vector
    m = build_mechanism("santext+", toy(), vocab, 2.0, p=0.0, sensitive_fraction=0.75)
    assert not m.is_sensitive("qq") and m.is_sensitive("rare-unseen-word")


def test_custext_unmapped_and_oov_words_are_sensitive_passthrough():
    emb = WordEmbeddings(["the", "cat", "dog", "cow"], np.array([[0.0], [1.0], [1.5], [2.0]]))
    m = build_mechanism("custext+", emb, [("the", 9), ("cat", 3), ("dog", 2)], 1.0, top_k=2, stopwords=["the"])
    out = m.sanitize_texts(["the cat zebra"], [0])[0]
    assert out.sensitive == [False, True, True]
    assert out.passthrough == [False, False, True]


def test_asr_counts_passthrough_targets_as_recovered_and_reports_them_apart():
    m = build_mechanism("santext", toy(), [("a", 5), ("b", 3), ("c", 2)], 2.0)
    # target 0: a -> b (context-free guesses a: hit); target 1: "zz" kept verbatim (no vector)
    data = AttackData(m, [["a", "zz"]], [["b", "zz"]], [(0, 0), (0, 1)], shadow_original=[["a"] * 5 + ["c"] * 2])
    r = run_attacks(data, ["context_free_bayes", "embedding_inversion", "context_free_bound"])
    assert r["n_passthrough"] == 1 and r["n_tokens"] == 2
    assert r["asr"] == {"context_free_bayes": 1.0, "embedding_inversion": 0.5}
    assert r["asr_protected"] == {"context_free_bayes": 1.0, "embedding_inversion": 0.0}
    assert r["bounds"]["context_free"] == 1.0 and r["bounds_protected"]["context_free"] == 1.0


def test_nltk_stopwords_ship_with_the_package():
    words = nltk_english_stopwords()
    assert len(words) == 179
    assert {"the", "don't", "should've", "ourselves", "s", "t"} <= words
    assert not {"fifteen", "three", "twenty", "first", "name"} & words  # spaCy's list has these
    assert load_stopwords("nltk") is words
    assert {"fifteen", "first"} <= load_stopwords("spacy")
    with pytest.raises(ValueError, match="nltk"):
        load_stopwords("french")


def test_custext_plus_uses_nltk_stopwords_by_default():
    emb = WordEmbeddings(["the", "three", "cat", "dog"], np.array([[0.0], [1.0], [1.5], [2.0]]))
    m = CusTextMechanism(emb, [("the", 9), ("three", 4), ("cat", 3), ("dog", 2)], 1.0, top_k=2)
    assert m.output_set("the") == ["the"]          # NLTK stop word: kept
    assert len(m.output_set("three")) == 2         # a spaCy stop word, not an NLTK one: perturbed
    assert CusTextPlus().stopwords == "nltk"


@pytest.mark.parametrize("eps", [math.inf, -math.inf, math.nan, 0.0, -1.0, "x", None])
def test_epsilon_must_be_finite_and_positive(eps):
    vocab = [("a", 5), ("b", 3), ("c", 2)]
    with pytest.raises(ValueError, match="finite positive"):
        SanTextMechanism(toy(), vocab, eps)
    with pytest.raises(ValueError, match="finite positive"):
        CusTextMechanism(toy(), vocab, eps, top_k=2)
    with pytest.raises(ValueError, match="finite positive"):
        SanTextMechanism(toy(), vocab, 1.0).with_epsilon(eps)
    with pytest.raises(ValueError, match="finite positive"):
        SanTextPlus(epsilon=eps, embeddings=toy()).fit(["a b c"])(["a b"], [0])


def test_santext_dense_and_row_cache_sampling_agree_exactly():
    """The whole-matrix path and the per-word row cache (vocabularies beyond ``cache_mb``) draw the
    same words from the same seeds, at any batch size."""
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(40)]
    emb = WordEmbeddings(words, rng.normal(size=(40, 4)))
    vocab = [(w, 100 - i) for i, w in enumerate(words)]
    records = [[words[(7 * r + j) % 40] for j in range(3 + r % 5)] + ["oov"] for r in range(60)]
    seeds = list(range(60))
    dense = SanTextMechanism(emb, vocab, 2.0, p=0.3, sensitive_fraction=0.6)
    rows = SanTextMechanism(emb, vocab, 2.0, p=0.3, sensitive_fraction=0.6, cache_mb=1e-4)
    a = dense.sanitize_tokens(records, seeds)
    assert dense.dense_cdf() is not None and rows.dense_cdf() is None
    b = [x for s in range(0, 60, 7) for x in rows.sanitize_tokens(records[s:s + 7], seeds[s:s + 7])]
    assert a == b
