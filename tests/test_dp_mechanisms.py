"""Closed forms, DP guarantees and sampling of the word-level DP mechanisms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from textleak.dp import CusTextMechanism, SanTextMechanism, build_mechanism
from textleak.dp.santext import euclidean, santext_loop_reference
from textleak.word_embeddings import WordEmbeddings

WORDS = ["w%d" % i for i in range(10)]


@pytest.fixture(scope="module")
def emb():
    rng = np.random.default_rng(7)
    return WordEmbeddings(WORDS, rng.normal(size=(10, 3)))


def counts():
    return [(w, 100 - 7 * i) for i, w in enumerate(WORDS)]


def toy():
    return WordEmbeddings(["a", "b", "c"], np.array([[0.0], [1.0], [3.0]]))


def test_santext_toy_matrix_by_hand():
    m = build_mechanism("santext", toy(), [("a", 5), ("b", 3), ("c", 2)], 2.0)
    # row a: exp(-d) normalised, d = 0, 1, 3
    e = np.exp([0.0, -1.0, -3.0])
    np.testing.assert_allclose(m.transition_matrix()[0], e / e.sum(), rtol=1e-12)


def test_custext_toy_matrix_matches_spec_worked_example():
    m = build_mechanism("custext+", toy(), [("a", 5), ("b", 3), ("c", 2)], 2.0, top_k=3, stopwords="none")
    np.testing.assert_allclose(m.transition_matrix()[0], [0.4798, 0.3438, 0.1765], atol=1e-4)


@pytest.mark.parametrize("w,p", [(1.0, 0.3), (0.6, 0.3), (0.6, 0.0), (0.5, 1.0)])
def test_santext_rows_sum_to_one_and_metric_dp(emb, w, p):
    eps = 1.5
    m = SanTextMechanism(emb, counts(), eps, p=p, sensitive_fraction=w)
    P = m.transition_matrix()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    sens = m.sensitive_ids
    d = euclidean(m.vectors, m.vectors)
    for x in sens:
        for x2 in sens:
            ratio = P[x, m.sensitive_ids] / P[x2, m.sensitive_ids]
            assert ratio.max() <= np.exp(eps * d[x, x2]) * (1 + 1e-9)


def test_santext_plus_closed_form_for_non_sensitive(emb):
    m = SanTextMechanism(emb, counts(), 2.0, p=0.25, sensitive_fraction=0.5)
    x = int(np.nonzero(~m.sensitive_mask)[0][0])
    row = m.transition_matrix()[x]
    assert row[x] == pytest.approx(0.75)
    np.testing.assert_allclose(row[m.sensitive_ids], 0.25 * m.em_rows(np.array([x]))[0])
    assert m.prob(m.words[x], m.words[x]) == pytest.approx(0.75)


def test_sensitive_set_size_and_reference_off_by_one(emb):
    assert SanTextMechanism(emb, counts(), 1.0, sensitive_fraction=0.3).sensitive_mask.sum() == 3
    assert SanTextMechanism(emb, counts(), 1.0, sensitive_fraction=0.3, off_by_one=True).sensitive_mask.sum() == 4
    # the least frequent words are the sensitive ones
    assert [w for w, f in zip(WORDS, SanTextMechanism(emb, counts(), 1.0, sensitive_fraction=0.3).sensitive_mask) if f] == WORDS[-3:]


@pytest.mark.parametrize("strategy", ["conservative", "aggressive"])
def test_custext_rows_sum_to_one(emb, strategy):
    m = CusTextMechanism(emb, counts(), 2.0, top_k=4, strategy=strategy, stopwords="none")
    P = m.transition_matrix()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)


def test_custext_conservative_clusters_are_closed_and_eps_dp_within(emb):
    eps = 3.0
    m = CusTextMechanism(emb, counts(), eps, top_k=4, strategy="conservative", stopwords="none")
    P = m.transition_matrix()
    clusters = m.clusters()
    assert sorted(i for c in clusters for i in c) == list(range(10))  # a partition
    for c in clusters:
        support = P[np.ix_(c, range(10))] > 0
        assert (support.sum(axis=0) > 0).sum() == len(c)  # closed: outputs stay in the cluster
        sub = P[np.ix_(c, c)]
        assert (sub.max(axis=0) / sub.min(axis=0)).max() <= np.exp(eps) * (1 + 1e-9)


def test_custext_aggressive_has_no_dp_guarantee(emb):
    """Documented: some output is reachable from one input but not from another."""
    m = CusTextMechanism(emb, counts(), 3.0, top_k=4, strategy="aggressive", stopwords="none")
    P = m.transition_matrix()
    reachable = P > 0
    assert any((reachable[x] & ~reachable[x2]).any() for x in range(10) for x2 in range(10))


def test_custext_plus_keeps_stopwords():
    emb = WordEmbeddings(["the", "cat", "dog", "cow"], np.array([[0.0], [1.0], [1.5], [2.0]]))
    plus = build_mechanism("custext+", emb, [("the", 9), ("cat", 3), ("dog", 2), ("cow", 1)], 1.0, top_k=4, stopwords=["the"])
    plain = build_mechanism("custext", emb, [("the", 9), ("cat", 3), ("dog", 2), ("cow", 1)], 1.0, top_k=4, stopwords=["the"])
    assert plus.prob("the", "the") == 1.0 and plus.output_set("the") == ["the"]
    assert plain.prob("the", "the") < 1.0


def _frequencies(m, word, n=20000, seed=3):
    out = m.sanitize_tokens([[word] * n], [seed])[0][0]
    return np.asarray([out.count(w) for w in m.words], dtype=float)


@pytest.mark.parametrize("kind", ["santext+", "custext+"])
def test_sampling_frequencies_match_closed_form(emb, kind):
    opts = {"p": 0.4, "sensitive_fraction": 0.5} if kind == "santext+" else {"top_k": 5, "stopwords": "none"}
    m = build_mechanism(kind, emb, counts(), 1.0, **opts)
    for word in ("w0", "w9"):  # a non-sensitive and a sensitive input for SANTEXT+
        expected = m.transition_matrix()[m.word_id(word)]
        observed = _frequencies(m, word)
        support = expected > 0
        assert observed[~support].sum() == 0
        stat = chisquare(observed[support], expected[support] * observed.sum())
        assert stat.pvalue > 1e-3, (word, stat)


def test_vectorised_and_loop_reference_sample_the_same_distribution(emb):
    m = SanTextMechanism(emb, counts(), 1.0, p=0.0, sensitive_fraction=1.0)
    loop = santext_loop_reference(m, ["w3"] * 20000, np.random.default_rng(0))
    observed = np.asarray([loop.count(w) for w in m.words], dtype=float)
    expected = m.transition_matrix()[m.word_id("w3")] * 20000
    assert chisquare(observed, expected).pvalue > 1e-3


@pytest.mark.parametrize("kind", ["santext+", "custext+"])
def test_same_seed_same_output_whatever_the_batching(emb, kind):
    m = build_mechanism(kind, emb, counts(), 1.0)
    records = [[WORDS[(i * 3 + j) % 10] for j in range(5 + i % 4)] for i in range(30)]
    seeds = list(range(100, 130))
    together = m.sanitize_tokens(records, seeds)
    one_by_one = [m.sanitize_tokens([r], [s])[0] for r, s in zip(records, seeds)]
    assert together == one_by_one
    assert together != m.sanitize_tokens(records, [s + 1 for s in seeds])


def test_oov_policies(emb):
    keep = SanTextMechanism(emb, counts(), 1.0, oov_policy="keep")
    uniform = SanTextMechanism(emb, counts(), 1.0, oov_policy="uniform")
    assert keep.sanitize_tokens([["zzz"]], [1])[0][0] == ["zzz"]
    assert uniform.sanitize_tokens([["zzz"]], [1])[0][0][0] in WORDS


def test_text_rendering_keeps_layout_and_alignment():
    emb = WordEmbeddings(["hello", "world", "there"], np.array([[0.0], [1.0], [1.1]]))
    m = build_mechanism("santext", emb, [("hello", 2), ("world", 1), ("there", 1)], 0.001)
    out = m.sanitize_texts(["hello,  world!\nbye"], [5])[0]
    assert out.original_tokens == ["hello", ",", "world", "!", "bye"]
    assert out.text == "".join([out.sanitized_tokens[0], ",  ", out.sanitized_tokens[2], "!\nbye"])
    # SANTEXT: every word is sensitive; the three without a vector are released as they are (passthrough)
    assert out.sensitive == [True, True, True, True, True]
    assert out.passthrough == [False, True, False, True, True]


def test_bad_parameters_fail_clearly(emb):
    with pytest.raises(ValueError, match="epsilon"):
        SanTextMechanism(emb, counts(), 0.0)
    with pytest.raises(ValueError, match="strategy"):
        CusTextMechanism(emb, counts(), 1.0, strategy="greedy")
    with pytest.raises(ValueError, match="unknown mechanism"):
        build_mechanism("santext++", emb, counts(), 1.0)


@pytest.mark.parametrize("kind", ["santext+", "custext+"])
def test_with_epsilon_equals_a_fresh_build(emb, kind):
    fresh = build_mechanism(kind, emb, counts(), 2.5).transition_matrix()
    reused = build_mechanism(kind, emb, counts(), 1.0).with_epsilon(2.5).transition_matrix()
    np.testing.assert_allclose(reused, fresh, rtol=1e-12, atol=1e-15)
