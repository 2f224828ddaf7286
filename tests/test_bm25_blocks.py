"""The BM25 linker scores queries in blocks and takes their hits with one array pass: same hits as
one bm25s ``get_scores`` call per query and a plain sort (ties with the k-th kept, lower id first)."""

from __future__ import annotations

import numpy as np
import pytest

from textleak.linkers.base import top_hits, top_hits_rows
from textleak.linkers.bm25 import BM25Linker


def reference_hits(scores, k):
    """By the definition: positive scores, best first, lower id first among equals, all tied with the k-th."""
    ranked = sorted(((float(s), r) for r, s in enumerate(scores) if s > 0), key=lambda x: (-x[0], x[1]))
    if len(ranked) > k:
        ranked = [x for x in ranked if x[0] >= ranked[k - 1][0]]
    return [(r, s) for s, r in ranked]


@pytest.mark.parametrize("k", [1, 2, 3, 7, 50])
def test_top_hits_rows_equals_the_definition_with_ties_and_zeros(k):
    rng = np.random.default_rng(k)
    scores = rng.integers(-1, 4, size=(40, 12)).astype(np.float32)  # many ties, zeros and negatives
    scores[3] = 0.0  # a row with nothing positive
    rows = top_hits_rows(scores, k)
    assert rows == [reference_hits(row, k) for row in scores]
    assert [top_hits(row, k) for row in scores] == rows
    assert rows[3] == [] and (k >= 12 or any(len(r) > k for r in rows))  # ties with the k-th are kept


DOCS = ["a cook in Oslo with asthma", "a pilot in Rome with gout", "a cook in Rome", "", "gout gout and asthma in Oslo",
        "a teacher from Lima with fever of 38.5"]


@pytest.mark.parametrize("block", [1, 2, 256])
def test_blocked_search_gives_bm25s_scores_and_hits(block):
    linker = BM25Linker().fit(DOCS)
    linker.block = block
    queries = ["cook Oslo", "gout gout Rome", "zzz", "asthma cook cook Oslo fever 38.5", "Lima"]
    got = linker._search(queries, 2)
    retriever = linker._retriever
    for query, hits in zip(queries, got):
        ids = [retriever.vocab_dict[t] for t in linker._tokenizer([query])[0] if t in retriever.vocab_dict]
        want = reference_hits(retriever.get_scores_from_ids(ids), 2) if ids else []
        assert hits == want  # the same float32 scores, bit for bit
    assert got[2] == [] and got[1][0][0] == 1


def test_blocked_search_on_a_claim_index_takes_each_records_best_claim():
    claims = [["She is a cook.", "She lives in Oslo."], [], ["He is a pilot.", "He has gout.", "He has gout and asthma."]]
    linker = BM25Linker.release().fit(["x", "y", "z"], claims)
    (hits,) = linker._search(["gout asthma cook"], 3)
    retriever = linker._retriever
    ids = [retriever.vocab_dict[t] for t in linker._tokenizer(["gout asthma cook"])[0] if t in retriever.vocab_dict]
    passage = retriever.get_scores_from_ids(ids)
    assert hits == reference_hits(np.array([passage[:2].max(), 0.0, passage[2:].max()], dtype=np.float32), 3)
    assert [r for r, _ in hits] == [2, 0]


@pytest.mark.parametrize("dense_share", [0.0, 0.3, 0.5, 2.0])
@pytest.mark.parametrize("method", ["lucene", "bm25l"])
def test_dense_rows_for_common_terms_give_bm25s_scores_bit_for_bit(dense_share, method):
    """Common terms are added as dense rows, the rest by scatter: every passage's score is bm25s's own
    float, summed in the query's term order (bm25l adds a score for absent terms: bm25s's path)."""
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(40)]
    p = 1.0 / np.arange(1, 41)  # Zipf-like: a few words in most records, many rare
    docs = [" ".join(rng.choice(words, size=int(rng.integers(1, 30)), p=p / p.sum())) for _ in range(300)]
    linker = BM25Linker(method=method)
    linker.dense_share = dense_share
    linker.fit(docs)
    n_dense = linker._dense.shape[0]
    n_terms = int(np.count_nonzero(np.diff(linker._retriever.scores["indptr"])))  # bm25s adds an empty "" term
    assert n_dense == {0.0: n_terms, 2.0: 0}.get(dense_share, n_dense) and (dense_share in (0.0, 2.0) or 0 < n_dense < n_terms)
    queries = [" ".join(rng.choice(words, size=int(rng.integers(1, 12)))) for _ in range(60)]
    retriever = linker._retriever
    for query in queries:
        ids = [retriever.vocab_dict[t] for t in linker.query_tokens([query])[0] if t in retriever.vocab_dict]
        scores = np.zeros(len(docs), dtype=np.float32)
        linker._add_scores(scores, ids)
        assert np.array_equal(scores, retriever.get_scores_from_ids(ids))
    assert linker._search(queries, 5) == [reference_hits(retriever.get_scores_from_ids(
        [retriever.vocab_dict[t] for t in q if t in retriever.vocab_dict]), 5) for q in linker.query_tokens(queries)]
